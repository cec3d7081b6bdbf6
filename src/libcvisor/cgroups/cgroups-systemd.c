/* The systemd cgroup driver: cgroupsPath ("slice:prefix:name"), the check
 * that systemd runs, the scope's properties from linux.resources, and the
 * D-Bus calls that create and stop the transient scope (through our own
 * client, dbus.c: no libsystemd, so a static binary has the driver too). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroups/cgroups-internal.h"
#include "cgroups/cgroups-systemd.h"
#include "cleanup.h"
#include "io.h"
#include "cgroups/dbus.h"
#include "log.h"

void cv_cg_systemd_path_clear(struct cv_cg_systemd_path *p)
{
	free(p->slice);
	free(p->prefix);
	free(p->name);
	free(p->unit);
	*p = (struct cv_cg_systemd_path){ 0 };
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool valid_part(const char *s)
{
	return !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

int cv_cg_systemd_parse(const char *cgroups_path, const char *id, struct cv_cg_systemd_path *out, cv_error_t *err)
{
	const char *c1, *c2;
	const char *slice, *prefix, *name;
	size_t ls, lp;

	*out = (struct cv_cg_systemd_path){ 0 };
	if (!cgroups_path || !*cgroups_path) {
		if (!id || !*id)
			return cv_error(err, EINVAL, "linux.cgroupsPath: empty, and no container id");
		out->slice = strdup("system.slice");
		out->prefix = strdup("cvisor");
		out->name = strdup(id);
	} else {
		c1 = strchr(cgroups_path, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c1 || !c2 || strchr(c2 + 1, ':'))
			return cv_error(
				err, EINVAL,
				"linux.cgroupsPath \"%s\": the systemd cgroup driver expects \"slice:prefix:name\"",
				cgroups_path);
		ls = c1 - cgroups_path;
		lp = c2 - c1 - 1;
		out->slice = ls ? strndup(cgroups_path, ls) : strdup("system.slice");
		out->prefix = strndup(c1 + 1, lp);
		out->name = strdup(c2 + 1);
	}
	if (!out->slice || !out->prefix || !out->name) {
		cv_cg_systemd_path_clear(out);
		return cv_error(err, ENOMEM, "systemd cgroup path");
	}
	slice = out->slice;
	prefix = out->prefix;
	name = out->name;
	if (!*name || !valid_part(slice) || !valid_part(prefix) || !valid_part(name) || !ends_with(slice, ".slice")) {
		int r = cv_error(
			err, EINVAL,
			"linux.cgroupsPath \"%s\": invalid systemd path (the slice must end in \".slice\", the name must not be empty, no \"/\")",
			cgroups_path ? cgroups_path : "");
		cv_cg_systemd_path_clear(out);
		return r;
	}
	if (ends_with(name, ".slice") || ends_with(name, ".scope"))
		out->unit = strdup(name);
	else if (*prefix) {
		if (asprintf(&out->unit, "%s-%s.scope", prefix, name) < 0)
			out->unit = NULL;
	} else if (asprintf(&out->unit, "%s.scope", name) < 0)
		out->unit = NULL;
	if (!out->unit) {
		cv_cg_systemd_path_clear(out);
		return cv_error(err, ENOMEM, "systemd cgroup path");
	}
	return 0;
}

int cv_cg_systemd_check(cv_error_t *err)
{
	struct stat st;

	/* systemd's own test (sd_booted): it creates this directory at boot. */
	if (lstat("/run/systemd/system", &st) < 0 || !S_ISDIR(st.st_mode))
		return cv_error(err, ENOTSUP, "systemd cgroup driver requested but systemd is not running");
	return 0;
}

/* ---- properties (pure) ---- */

void cv_sd_props_clear(struct cv_sd_props *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].str);
		free(p->v[i].bytes);
	}
	free(p->v);
	*p = (struct cv_sd_props){ 0 };
}

static struct cv_sd_prop *prop_add(struct cv_sd_props *p, const char *name, const char *sig, cv_error_t *err)
{
	struct cv_sd_prop *v = realloc(p->v, (p->n + 1) * sizeof(*v));
	if (!v) {
		cv_error(err, ENOMEM, "systemd property %s", name);
		return NULL;
	}
	p->v = v;
	v = &p->v[p->n++];
	*v = (struct cv_sd_prop){ .name = name, .sig = sig };
	return v;
}

static int prop_u64(struct cv_sd_props *p, const char *name, uint64_t val, cv_error_t *err)
{
	struct cv_sd_prop *v = prop_add(p, name, "t", err);
	if (!v)
		return -1;
	v->u64 = val;
	return 0;
}

static int prop_bool(struct cv_sd_props *p, const char *name, bool val, cv_error_t *err)
{
	struct cv_sd_prop *v = prop_add(p, name, "b", err);
	if (!v)
		return -1;
	v->b = val;
	return 0;
}

static int prop_str(struct cv_sd_props *p, const char *name, const char *val, cv_error_t *err)
{
	struct cv_sd_prop *v = prop_add(p, name, "s", err);
	if (!v)
		return -1;
	v->str = strdup(val);
	if (!v->str)
		return cv_error(err, ENOMEM, "systemd property %s", name);
	return 0;
}

static int prop_bits(struct cv_sd_props *p, const char *name, const char *field, const char *list, cv_error_t *err)
{
	struct cv_sd_prop *v = prop_add(p, name, "ay", err);
	if (!v)
		return -1;
	if (cv_sd_cpuset_bits(list, &v->bytes, &v->len, err) < 0)
		return cv_error_prefix(err, "%s", field);
	return 0;
}

/* A negative OCI value means unlimited: systemd's "infinity" is UINT64_MAX. */
static uint64_t limit_u64(int64_t v)
{
	return v < 0 ? UINT64_MAX : (uint64_t)v;
}

uint64_t cv_sd_quota_per_sec(int64_t quota, uint64_t period)
{
	uint64_t q;

	if (quota <= 0)
		return UINT64_MAX;
	if (period == 0)
		period = 100000;
	if ((uint64_t)quota > UINT64_MAX / 1000000)
		return UINT64_MAX;
	q = (uint64_t)quota * 1000000 / period;
	/* systemd keeps CPU quotas in whole percent (10 ms per second). */
	if (q % 10000)
		q = (q / 10000 + 1) * 10000;
	return q;
}

int cv_sd_cpuset_bits(const char *list, uint8_t **out, size_t *len, cv_error_t *err)
{
	cleanup_free uint8_t *bits = NULL;
	size_t n = 0;
	const char *s = list;

	*out = NULL;
	*len = 0;
	while (*s) {
		char *end;
		unsigned long a, b;

		if (*s < '0' || *s > '9')
			goto bad;
		errno = 0;
		a = strtoul(s, &end, 10);
		b = a;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				goto bad;
			b = strtoul(s, &end, 10);
		}
		/* systemd's own limit for a cpu set is 8192 cpus. */
		if (errno || b < a || b >= 8192)
			goto bad;
		if (b / 8 + 1 > n) {
			uint8_t *nb = realloc(bits, b / 8 + 1);
			if (!nb)
				return cv_error(err, ENOMEM, "cpuset \"%s\"", list);
			memset(nb + n, 0, b / 8 + 1 - n);
			bits = nb;
			n = b / 8 + 1;
		}
		for (unsigned long i = a; i <= b; i++)
			bits[i / 8] |= (uint8_t)(1u << (i % 8));
		s = end;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			goto bad;
	}
	if (!n)
		goto bad;
	*out = steal_pointer(&bits);
	*len = n;
	return 0;
bad:
	return cv_error(err, EINVAL, "invalid cpu/node list \"%s\"", list);
}

int cv_sd_scope_properties(const oci_resources *r, bool v2, pid_t pid, const char *slice, const char *description,
			   struct cv_sd_props *out, cv_error_t *err)
{
	struct cv_sd_props p = { 0 };
	struct cv_sd_prop *v;
	const oci_memory *m = r ? r->memory : NULL;
	const oci_cpu *c = r ? r->cpu : NULL;
	const oci_block_io *io = r ? r->block_io : NULL;

	*out = (struct cv_sd_props){ 0 };
	if (prop_str(&p, "Description", description, err) < 0 || prop_str(&p, "Slice", slice, err) < 0)
		goto fail;
	v = prop_add(&p, "PIDs", "au", err);
	if (!v)
		goto fail;
	v->u64 = (uint64_t)pid;
	/* The container writes its own cgroup files (and nests, with a cgroup
	 * namespace): systemd must leave the subtree alone. */
	if (prop_bool(&p, "Delegate", true, err) < 0 || prop_bool(&p, "DefaultDependencies", false, err) < 0)
		goto fail;

	if (m && m->limit.set && m->limit.v != 0 &&
	    prop_u64(&p, v2 ? "MemoryMax" : "MemoryLimit", limit_u64(m->limit.v), err) < 0)
		goto fail;
	if (v2 && m && m->reservation.set && m->reservation.v != 0 &&
	    prop_u64(&p, "MemoryLow", limit_u64(m->reservation.v), err) < 0)
		goto fail;
	if (v2 && m && m->swap.set && m->swap.v != 0) {
		int64_t sw;
		if (cv_cg_swap_to_v2(m->swap.v, m->limit.set ? m->limit.v : 0, &sw, err) < 0) {
			cv_error_prefix(err, "linux.resources.memory.swap");
			goto fail;
		}
		if (prop_u64(&p, "MemorySwapMax", limit_u64(sw), err) < 0)
			goto fail;
	}

	if (c && c->shares.set && c->shares.v != 0 &&
	    prop_u64(&p, v2 ? "CPUWeight" : "CPUShares", v2 ? cv_cg_shares_to_weight(c->shares.v) : c->shares.v, err) <
		    0)
		goto fail;
	if (c) {
		int64_t quota = c->quota.set ? c->quota.v : 0;
		uint64_t period = c->period.set ? c->period.v : 0;
		if (period && prop_u64(&p, "CPUQuotaPeriodUSec", period, err) < 0)
			goto fail;
		if ((quota || period) &&
		    prop_u64(&p, "CPUQuotaPerSecUSec", cv_sd_quota_per_sec(quota, period), err) < 0)
			goto fail;
	}
	/* v1 cpusets are written by the cgroupfs code: systemd's v1 support
	 * has no cpuset controller. */
	if (v2 && c && c->cpus && *c->cpus &&
	    prop_bits(&p, "AllowedCPUs", "linux.resources.cpu.cpus", c->cpus, err) < 0)
		goto fail;
	if (v2 && c && c->mems && *c->mems &&
	    prop_bits(&p, "AllowedMemoryNodes", "linux.resources.cpu.mems", c->mems, err) < 0)
		goto fail;

	if (r && r->has_pids && r->pids_limit.set && r->pids_limit.v != 0 &&
	    prop_u64(&p, "TasksMax", limit_u64(r->pids_limit.v), err) < 0)
		goto fail;
	if (io && io->weight.set && io->weight.v != 0 &&
	    prop_u64(&p, v2 ? "IOWeight" : "BlockIOWeight", v2 ? cv_cg_blkio_to_io_weight(io->weight.v) : io->weight.v,
		     err) < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	cv_sd_props_clear(&p);
	return -1;
}

int cv_sd_expand_slice(const char *slice, char **out, cv_error_t *err)
{
	size_t len = strlen(slice), base;
	cleanup_free char *path = NULL;
	size_t plen = 0;

	*out = NULL;
	if (!ends_with(slice, ".slice") || len == strlen(".slice") || strchr(slice, '/'))
		goto bad;
	base = len - strlen(".slice");
	if (base == 1 && slice[0] == '-') {
		*out = strdup("/");
		return *out ? 0 : cv_error(err, ENOMEM, "slice path");
	}
	/* One directory per dash-separated prefix: a-b-c.slice lives in
	 * /a.slice/a-b.slice/a-b-c.slice. */
	path = malloc(base * (base + 8) + 8);
	if (!path)
		return cv_error(err, ENOMEM, "slice path");
	for (size_t i = 0; i <= base; i++) {
		if (i < base && slice[i] != '-')
			continue;
		if (i == 0 || slice[i - 1] == '-' || (i == base && slice[i - 1] == '-'))
			goto bad;
		plen += (size_t)sprintf(path + plen, "/%.*s.slice", (int)i, slice);
	}
	*out = steal_pointer(&path);
	return 0;
bad:
	return cv_error(err, EINVAL, "invalid systemd slice name \"%s\"", slice);
}

/* ---- D-Bus ---- */

#define SD_SERVICE "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
/* runc's and crun's bound for a unit job: for the connection and the call,
 * then again for the job. */
#define SD_JOB_TIMEOUT_USEC (30ULL * 1000000)

/* The JobRemoved signals seen: the one for our job may come before the
 * call's reply tells which job is ours. */
struct job_seen {
	char *job, *result, *sender;
};
struct job_wait {
	struct job_seen *v;
	size_t n;
	/* once the reply named them, only that job from that sender (systemd's
	 * unique name) is recorded */
	const char *job, *owner;
	int error; /* ENOMEM while recording */
};

static void job_wait_clear(struct job_wait *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->v[i].job);
		free(w->v[i].result);
		free(w->v[i].sender);
	}
	free(w->v);
	*w = (struct job_wait){ 0 };
}

static void on_message(const struct cv_dbus_message *m, void *data)
{
	struct job_wait *w = data;
	const char *path, *unit, *result;
	struct job_seen *v;
	uint32_t id;

	if (m->h.type != CV_DBUS_SIGNAL || !m->h.member || strcmp(m->h.member, "JobRemoved") != 0 ||
	    strcmp(m->h.interface, SD_MANAGER) != 0 || strcmp(m->h.path, SD_PATH) != 0 ||
	    cv_dbus_read(m, "uoss", NULL, &id, &path, &unit, &result) < 0)
		return;
	if (w->job && (strcmp(path, w->job) != 0 || (w->owner && (!m->h.sender || strcmp(m->h.sender, w->owner) != 0))))
		return;
	/* before the reply: a busy systemd ends other jobs, but not this
	 * many while it has not answered the call */
	if (!w->job && w->n >= 4096)
		return;
	v = realloc(w->v, (w->n + 1) * sizeof(*v));
	if (!v) {
		w->error = ENOMEM;
		return;
	}
	w->v = v;
	v = &w->v[w->n];
	*v = (struct job_seen){ strdup(path), strdup(result), strdup(m->h.sender ? m->h.sender : "") };
	w->n++;
	if (!v->job || !v->result || !v->sender)
		w->error = ENOMEM;
}

/* The result of `job` from systemd (`owner`, its unique name), if seen. */
static const char *job_result(const struct job_wait *w, const char *job, const char *owner)
{
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->v[i].job, job) == 0 && (!owner || strcmp(w->v[i].sender, owner) == 0))
			return w->v[i].result;
	return NULL;
}

static void append_prop(struct cv_dbus_writer *b, const struct cv_sd_prop *p)
{
	cv_dbus_struct_begin(b);
	cv_dbus_put_string(b, p->name);
	cv_dbus_variant_begin(b, p->sig);
	switch (p->sig[0]) {
	case 's':
		cv_dbus_put_string(b, p->str);
		break;
	case 'b':
		cv_dbus_put_bool(b, p->b);
		break;
	case 't':
		cv_dbus_put_u64(b, p->u64);
		break;
	case 'a': {
		struct cv_dbus_array a = cv_dbus_array_begin(b, p->sig + 1);
		if (p->sig[1] == 'u')
			cv_dbus_put_u32(b, (uint32_t)p->u64);
		else
			for (size_t i = 0; i < p->len; i++)
				cv_dbus_put_byte(b, p->bytes[i]);
		cv_dbus_array_end(b, a);
		break;
	}
	}
}

/* Calls Manager.METHOD(unit, mode[, properties, no auxiliary units]) and
 * waits for the job it queues. */
static int unit_job(const char *address, bool user, const char *method, const char *unit,
		    const struct cv_sd_props *props, bool gone_ok, cv_error_t *err)
{
	cleanup_dbus struct cv_dbus *c = NULL;
	cleanup_free char *addr = NULL;
	__attribute__((cleanup(cv_dbus_writer_clear))) struct cv_dbus_writer body = { 0 };
	__attribute__((cleanup(cv_dbus_message_clear))) struct cv_dbus_message reply = { 0 };
	__attribute__((cleanup(job_wait_clear))) struct job_wait w = { 0 };
	struct cv_dbus_header h = {
		.type = CV_DBUS_METHOD_CALL,
		.destination = SD_SERVICE,
		.path = SD_PATH,
		.interface = SD_MANAGER,
		.member = method,
		.signature = props ? "ssa(sv)a(sa(sv))" : "ss",
	};
	uint64_t deadline = cv_dbus_now_usec() + SD_JOB_TIMEOUT_USEC;
	const char *job, *result;
	char ebuf[512];

	if (cv_dbus_address(address, user, &addr, err) < 0 || cv_dbus_open(addr, deadline, &c, err) < 0)
		return cv_error_prefix(err, "systemd cgroup driver: connect to the %s bus%s%s",
				       user ? "user" : "system", address ? " at " : "", address ? address : "");
	/* Subscribe before the call: the job may end before its reply is read. */
	if (cv_dbus_add_match(c,
			      "type='signal',sender='" SD_SERVICE "',path='" SD_PATH "',interface='" SD_MANAGER
			      "',member='JobRemoved'",
			      deadline, err) < 0)
		return cv_error_prefix(err, "systemd cgroup driver: %s %s", method, unit);

	cv_dbus_put_string(&body, unit);
	cv_dbus_put_string(&body, props ? "fail" : "replace");
	if (props) {
		struct cv_dbus_array a = cv_dbus_array_begin(&body, "(sv)");
		for (size_t i = 0; i < props->n; i++)
			append_prop(&body, &props->v[i]);
		cv_dbus_array_end(&body, a);
		cv_dbus_array_end(&body, cv_dbus_array_begin(&body, "(sa(sv))"));
	}
	if (cv_dbus_send(c, &h, &body, err) < 0 ||
	    cv_dbus_wait_reply(c, h.serial, deadline, on_message, &w, &reply, err) < 0)
		return cv_error_prefix(err, "systemd cgroup driver: %s %s", method, unit);
	if (reply.h.type == CV_DBUS_ERROR) {
		if (gone_ok && (strcmp(reply.h.error_name, "org.freedesktop.systemd1.NoSuchUnit") == 0 ||
				strcmp(reply.h.error_name, "org.freedesktop.systemd1.LoadFailed") == 0))
			return 0;
		return cv_error_plain(err, EIO, "systemd cgroup driver: %s %s: %s", method, unit,
				      cv_dbus_error_message(&reply, ebuf, sizeof(ebuf)));
	}
	if (cv_dbus_read(&reply, "o", err, &job) < 0)
		return cv_error_prefix(err, "systemd cgroup driver: %s %s: the job", method, unit);

	w.job = job;
	w.owner = reply.h.sender;
	deadline = cv_dbus_now_usec() + SD_JOB_TIMEOUT_USEC;
	while (!(result = job_result(&w, job, reply.h.sender))) {
		struct cv_dbus_message m;
		if (w.error)
			return cv_error(err, w.error, "systemd cgroup driver: %s %s: waiting for job %s", method, unit,
					job);
		if (cv_dbus_recv(c, deadline, &m, err) < 0)
			return cv_error_prefix(err, "systemd cgroup driver: %s %s: waiting for job %s", method, unit,
					       job);
		on_message(&m, &w);
		cv_dbus_message_clear(&m);
	}
	if (strcmp(result, "done") != 0)
		return cv_error_plain(err, EIO, "systemd cgroup driver: %s %s: job %s", method, unit, result);
	return 0;
}

int cv_sd_start_scope(const char *bus_address, bool user, const char *unit, const struct cv_sd_props *props,
		      cv_error_t *err)
{
	return unit_job(bus_address, user, "StartTransientUnit", unit, props, false, err);
}

int cv_sd_stop_unit(const char *bus_address, bool user, const char *unit, cv_error_t *err)
{
	return unit_job(bus_address, user, "StopUnit", unit, NULL, true, err);
}

/* ---- the driver ---- */

/* The scope needs a process when it is created, and the container process
 * does not exist yet (it is cloned straight into the cgroup later): a child
 * that only waits holds the scope until then. */
static int spawn_holder(pid_t *out, cv_error_t *err)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		return cv_error_errno(err, "systemd cgroup driver: fork the scope's holder process");
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		for (;;)
			pause();
	}
	*out = pid;
	return 0;
}

static void end_holder(pid_t *pid)
{
	if (*pid <= 0)
		return;
	/* our unreaped child: the pid cannot have been reused */
	if (kill(*pid, SIGKILL) == 0)
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
	*pid = 0;
}

/* The scope's directory as systemd made it, from /proc/PID/cgroup: the
 * cgroup2 line, or name=systemd's on a v1-only host. */
static int scope_path(pid_t pid, const char *unit, char **out, cv_error_t *err)
{
	char file[64], buf[8192];
	ssize_t n;
	const char *found = NULL;
	size_t flen = 0, ulen = strlen(unit);

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	if ((n = cv_read_buf_at(AT_FDCWD, file, buf, sizeof(buf))) < 0)
		return cv_error(err, (int)-n, "read %s", file);
	for (char *line = buf, *next; line && *line; line = next) {
		char *c1, *c2, *nl = strchr(line, '\n');
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		c1 = strchr(line, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		if ((strncmp(line, "0::", 3) == 0 && strcmp(c2 + 1, "/") != 0) ||
		    (!found && strncmp(c1 + 1, "name=systemd:", strlen("name=systemd:")) == 0)) {
			found = c2 + 1;
			flen = strlen(found);
		}
	}
	if (!found || flen <= ulen || found[flen - ulen - 1] != '/' || strcmp(found + flen - ulen, unit) != 0)
		return cv_error(err, ENOENT, "systemd cgroup driver: %s is not in the scope %s (%s)", file, unit,
				found ? found : "no systemd hierarchy");
	*out = strdup(found);
	return *out ? 0 : cv_error(err, ENOMEM, "scope path");
}

int cv_cg_systemd_create(const struct cv_cgroup_config *cfg, struct cv_cgroup **out, cv_error_t *err)
{
	__attribute__((cleanup(cv_cg_systemd_path_clear))) struct cv_cg_systemd_path sp = { 0 };
	__attribute__((cleanup(cv_sd_props_clear))) struct cv_sd_props props = { 0 };
	cleanup_free char *slice_dir = NULL;
	cleanup_free char *path = NULL;
	cleanup_free char *desc = NULL;
	struct cv_cgroup_config fs = *cfg;
	enum cv_cgroup_layout layout;
	pid_t holder = 0;
	cv_error_t e = NULL;
	bool user = cfg->rootless && geteuid() != 0;
	int r;

	if (cv_cg_systemd_parse(cfg->cgroups_path, cfg->id, &sp, err) < 0)
		return -1;
	if (ends_with(sp.unit, ".slice"))
		return cv_error(
			err, EINVAL,
			"linux.cgroupsPath \"%s\": a slice as the container's unit is not supported by the systemd cgroup driver; name a scope",
			cfg->cgroups_path ? cfg->cgroups_path : "");
	if (cv_sd_expand_slice(sp.slice, &slice_dir, err) < 0)
		return cv_error_prefix(err, "linux.cgroupsPath");
	if (cv_cg_systemd_check(err) < 0 || cv_cgroup_layout(&layout, err) < 0)
		return -1;
	if (asprintf(&desc, "cvisor container %s", cfg->id ? cfg->id : sp.name) < 0) {
		desc = NULL;
		return cv_error(err, ENOMEM, "scope description");
	}
	if (spawn_holder(&holder, err) < 0)
		return -1;
	r = cv_sd_scope_properties(cfg->resources, layout == CV_CGROUP_UNIFIED, holder, sp.slice, desc, &props, err);
	if (r == 0)
		r = cv_sd_start_scope(NULL, user, sp.unit, &props, err);
	if (r < 0) {
		end_holder(&holder);
		return -1;
	}
	r = scope_path(holder, sp.unit, &path, err);
	if (r == 0) {
		cv_debug("systemd: scope %s at %s (slice %s)", sp.unit, path, slice_dir);
		fs.systemd = false;
		fs.cgroups_path = path;
		r = cv_cgroup_create(&fs, out, err);
	}
	if (r < 0) {
		if (cv_sd_stop_unit(NULL, user, sp.unit, &e) < 0)
			cv_warn("cleaning up after a failed cgroup setup: %s", e->msg);
		cv_error_release(&e);
		end_holder(&holder);
		return -1;
	}
	(*out)->sd_unit = steal_pointer(&sp.unit);
	(*out)->sd_user = user;
	(*out)->sd_holder = holder;
	return 0;
}

int cv_cg_systemd_destroy(struct cv_cgroup *cg, cv_error_t *err)
{
	end_holder(&cg->sd_holder);
	if (!cg->sd_unit)
		return 0;
	if (cv_sd_stop_unit(NULL, cg->sd_user, cg->sd_unit, err) < 0)
		return -1;
	free(cg->sd_unit);
	cg->sd_unit = NULL;
	return 0;
}

void cv_cg_systemd_release(struct cv_cgroup *cg)
{
	end_holder(&cg->sd_holder);
	free(cg->sd_unit);
	cg->sd_unit = NULL;
}
