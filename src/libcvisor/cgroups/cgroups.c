/* The cgroup manager: layout detection, path resolution, directory creation
 * and removal, and the operations every layout shares (enter, pids, kill,
 * freeze). v1/v2 resource files live in cgroups-v1.c / cgroups-v2.c.
 *
 * Hot path (every create): one statfs, one read of /proc/self/cgroup, then per
 * hierarchy an open of its root, one mkdirat and one open of the new
 * directory; every later file access is relative to that directory fd. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "cgroups/cgroups-internal.h"
#include "cleanup.h"
#include "clock.h"
#include "io.h"
#include "log.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define UNIFIED_HYBRID CGROUP_ROOT "/unified"
#define MAX_WAIT_MS 5000
/* 4194304 pids (PID_MAX_LIMIT) of up to 7 digits and a newline: 32 MiB */
#define CGROUP_PROCS_MAX (64u << 20)

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int cv_cgroup_layout(enum cv_cgroup_layout *out, cv_error_t *err)
{
	/* found once; threads finding it at the same time find the same */
	static atomic_int cached;
	enum cv_cgroup_layout layout = (enum cv_cgroup_layout)atomic_load_explicit(&cached, memory_order_relaxed);
	struct statfs st;

	if (layout) {
		*out = layout;
		return 0;
	}
	if (statfs(CGROUP_ROOT, &st) < 0)
		return cv_error_errno(err, "statfs `%s`", CGROUP_ROOT);
	if (st.f_type == CGROUP2_SUPER_MAGIC)
		layout = CV_CGROUP_UNIFIED;
	else if (statfs(UNIFIED_HYBRID, &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC)
		layout = CV_CGROUP_HYBRID;
	else
		layout = CV_CGROUP_LEGACY;
	atomic_store_explicit(&cached, (int)layout, memory_order_relaxed);
	*out = layout;
	return 0;
}

/* ---- org.cvisor.cgroup.controllers ---- */

/* Bit i of a controller mask is cg_names[i] (the order cgroups.h documents). */
static const char *const cg_names[] = { "cpu",     "cpuacct", "cpuset",  "memory",  "pids",     "blkio",
					"io",      "devices", "freezer", "net_cls", "net_prio", "perf_event",
					"hugetlb", "rdma",    "misc",    "unified" };
#define N_CG_NAMES (sizeof(cg_names) / sizeof(cg_names[0]))
#define BIT(name) (1u << cg_bit(name, strlen(name)))
#define UNIFIED_BIT (1u << (N_CG_NAMES - 1))

static int cg_bit(const char *p, size_t n)
{
	for (size_t i = 0; i < N_CG_NAMES; i++)
		if (strlen(cg_names[i]) == n && memcmp(cg_names[i], p, n) == 0)
			return (int)i;
	return -1;
}

const char *cv_cgroup_controller_name(unsigned bit)
{
	return bit < N_CG_NAMES ? cg_names[bit] : NULL;
}

int cv_cgroup_controllers_parse(const char *value, uint32_t *mask, cv_error_t *err)
{
	uint32_t m = 0;

	for (const char *p = value;;) {
		const char *e = strchrnul(p, ',');
		int b;

		if (e == p)
			return cv_error_plain(err, EINVAL, "annotation %s \"%s\": empty controller name",
					      CV_CGROUP_ANNOTATION_CONTROLLERS, value);
		b = cg_bit(p, e - p);
		if (b < 0)
			return cv_error_plain(err, EINVAL, "annotation %s \"%s\": unknown cgroup controller \"%.*s\"",
					      CV_CGROUP_ANNOTATION_CONTROLLERS, value, (int)(e - p), p);
		m |= 1u << b;
		if (!*e)
			break;
		p = e + 1;
	}
	*mask = m;
	return 0;
}

bool cv_cg_memory_set(const oci_memory *m)
{
	/* checkBeforeUpdate alone is an instruction to update, no limit */
	return m && (m->limit.set || m->reservation.set || m->swap.set || m->kernel.set || m->kernel_tcp.set ||
		     m->swappiness.set || m->disable_oom_killer.set || m->use_hierarchy.set);
}

static bool cpu_set(const oci_cpu *c)
{
	return c && (c->shares.set || c->quota.set || c->period.set || c->burst.set || c->realtime_period.set ||
		     c->realtime_runtime.set || c->idle.set);
}

static bool cpuset_set(const oci_cpu *c)
{
	return c && ((c->cpus && *c->cpus) || (c->mems && *c->mems));
}

bool cv_cg_blkio_set(const oci_block_io *b)
{
	return b && (b->weight.set || b->leaf_weight.set || b->weight_device_len || b->throttle_read_bps.len ||
		     b->throttle_write_bps.len || b->throttle_read_iops.len || b->throttle_write_iops.len);
}

/* What linux.resources R sets, each with the controller it needs (on v2
 * the one directory is the unified hierarchy's, and device rules are an
 * eBPF program: no controller for either). Returns how many. */
struct need {
	const char *field;
	const char *controller;
};
static size_t resource_needs(const oci_resources *r, bool v2, struct need out[11])
{
	const struct {
		bool set;
		struct need n;
	} all[] = {
		{ r && cv_cg_memory_set(r->memory), { "linux.resources.memory", "memory" } },
		{ r && cpu_set(r->cpu), { "linux.resources.cpu", "cpu" } },
		{ r && cpuset_set(r->cpu), { "linux.resources.cpu.cpus/mems", "cpuset" } },
		{ r && r->has_pids && r->pids_limit.set, { "linux.resources.pids", "pids" } },
		{ r && cv_cg_blkio_set(r->block_io), { "linux.resources.blockIO", v2 ? "io" : "blkio" } },
		{ r && r->hugepage_limits_len, { "linux.resources.hugepageLimits", "hugetlb" } },
		{ r && r->network && r->network->class_id.set, { "linux.resources.network.classID", "net_cls" } },
		{ r && r->network && r->network->priorities_len, { "linux.resources.network.priorities", "net_prio" } },
		{ r && r->rdma_len, { "linux.resources.rdma", "rdma" } },
		{ r && r->unified.len && !v2, { "linux.resources.unified", "unified" } },
		{ r && r->devices_len && !v2, { "linux.resources.devices", "devices" } },
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].set)
			out[n++] = all[i].n;
	return n;
}

int cv_cgroup_controllers_check(const char *value, uint32_t mask, const oci_resources *r, enum cv_cgroup_layout layout,
				cv_error_t *err)
{
	struct need needs[11];
	size_t n = resource_needs(r, layout == CV_CGROUP_UNIFIED, needs);
	for (size_t i = 0; i < n; i++)
		if (!(mask & BIT(needs[i].controller)))
			return cv_error_plain(
				err, EINVAL,
				"annotation %s \"%s\": %s needs the %s controller, which the list leaves out",
				CV_CGROUP_ANNOTATION_CONTROLLERS, value, needs[i].field, needs[i].controller);
	return 0;
}

/* cv_cgroup_config_validate, also giving the annotation's mask (0 when
 * absent) to cv_cgroup_create. */
static int config_mask(const struct cv_cgroup_config *cfg, uint32_t *mask, cv_error_t *err)
{
	enum cv_cgroup_layout layout;

	*mask = 0;
	if (!cfg->controllers)
		return 0;
	if (cv_cgroup_controllers_parse(cfg->controllers, mask, err) < 0)
		return -1;
	if (cfg->systemd)
		return cv_error_plain(
			err, EINVAL,
			"annotation %s \"%s\": not supported with --systemd-cgroup (systemd gives a scope a "
			"directory in every hierarchy it manages)",
			CV_CGROUP_ANNOTATION_CONTROLLERS, cfg->controllers);
	if (cv_cgroup_layout(&layout, err) < 0)
		return -1;
	return cv_cgroup_controllers_check(cfg->controllers, *mask, cfg->resources, layout, err);
}

int cv_cgroup_config_validate(const struct cv_cgroup_config *cfg, cv_error_t *err)
{
	uint32_t mask;
	return config_mask(cfg, &mask, err);
}

const char *cv_cg_missing_why(const struct cv_cgroup *cg, const char *controller, char *buf, size_t size)
{
	if (cg->filter)
		snprintf(buf, size, "the container has no %s cgroup (annotation %s \"%s\")", controller,
			 CV_CGROUP_ANNOTATION_CONTROLLERS, cg->filter);
	else if (cg->rootless_skipped)
		snprintf(buf, size,
			 "the container has no %s cgroup: rootless, and uid %u may not create one "
			 "(a limit needs a cgroup delegated to the caller)",
			 controller, (unsigned)geteuid());
	else
		snprintf(buf, size, "the %s cgroup controller is not mounted on this host", controller);
	return buf;
}

/* ---- directory helpers ---- */

int cv_cg_dir_fd(struct cv_cg_dir *d, cv_error_t *err)
{
	if (d->fd < 0) {
		d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d->fd < 0)
			return cv_error_errno(err, "open cgroup `%s`", d->path);
	}
	return d->fd;
}

static bool key_has(const char *key, const char *controller)
{
	size_t n = strlen(controller);

	for (const char *p = key; *p;) {
		const char *e = strchrnul(p, ',');
		if ((size_t)(e - p) == n && memcmp(p, controller, n) == 0)
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

struct cv_cg_dir *cv_cg_find(struct cv_cgroup *cg, const char *controller)
{
	for (size_t i = 0; i < cg->n; i++) {
		if (strcmp(controller, "unified") == 0) {
			if (cg->dirs[i].unified)
				return &cg->dirs[i];
		} else if (!cg->dirs[i].unified && key_has(cg->dirs[i].key, controller))
			return &cg->dirs[i];
	}
	return NULL;
}

int cv_cg_write(struct cv_cg_dir *d, const char *file, const char *value, cv_error_t *err)
{
	cleanup_close int fd = -1;
	size_t len = strlen(value);
	int dfd = cv_cg_dir_fd(d, err);

	if (dfd < 0)
		return dfd;
	fd = openat(dfd, file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "write %s \"%s\"", file, value);
	if (write(fd, value, len) != (ssize_t)len)
		return cv_error_errno(err, "write %s \"%s\"", file, value);
	cv_debug("cgroup: %s/%s = %s", d->path, file, value);
	return 0;
}

int cv_cg_write_cpuset(struct cv_cg_dir *d, const oci_cpu *c, cv_error_t *err)
{
	if (c->cpus && *c->cpus && cv_cg_write(d, "cpuset.cpus", c->cpus, err) < 0)
		return -1;
	if (c->mems && *c->mems && cv_cg_write(d, "cpuset.mems", c->mems, err) < 0)
		return -1;
	return 0;
}

int cv_cg_writef(struct cv_cg_dir *d, const char *file, cv_error_t *err, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return cv_cg_write(d, file, buf, err);
}

ssize_t cv_cg_read(struct cv_cg_dir *d, const char *file, char *buf, size_t size, cv_error_t *err)
{
	int dfd = cv_cg_dir_fd(d, err);
	ssize_t n;

	if (dfd < 0)
		return dfd;
	if ((n = cv_read_buf_at(dfd, file, buf, size)) < 0)
		return cv_error(err, (int)-n, "read %s", file);
	return n;
}

bool cv_cg_has_file(struct cv_cg_dir *d, const char *file)
{
	cv_error_t e = NULL;
	int dfd = cv_cg_dir_fd(d, &e);

	cv_error_release(&e);
	return dfd >= 0 && faccessat(dfd, file, F_OK, 0) == 0;
}

/* ---- paths ---- */

/* Appends the components of `p` to buf (at *len), refusing "." and "..". */
static int append_components(char *buf, size_t size, size_t *len, const char *p, const char *what, cv_error_t *err)
{
	while (*p) {
		const char *e;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		n = e - p;
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return cv_error(err, EINVAL, "%s: \".\" and \"..\" are not allowed in a cgroup path", what);
		if (*len + n + 2 > size)
			return cv_error(err, ENAMETOOLONG, "%s: cgroup path too long", what);
		if (*len)
			buf[(*len)++] = '/';
		memcpy(buf + *len, p, n);
		*len += n;
		buf[*len] = '\0';
		p = e;
	}
	return 0;
}

int cv_cg_resolve_path(const char *own, const char *cgroups_path, const char *id, char **out, cv_error_t *err)
{
	char buf[4096];
	size_t len = 0;
	int r;

	buf[0] = '\0';
	if (cgroups_path && *cgroups_path == '/') {
		r = append_components(buf, sizeof(buf), &len, cgroups_path, "linux.cgroupsPath", err);
	} else {
		r = append_components(buf, sizeof(buf), &len, own ? own : "", "/proc/self/cgroup", err);
		if (r == 0 && cgroups_path && *cgroups_path)
			r = append_components(buf, sizeof(buf), &len, cgroups_path, "linux.cgroupsPath", err);
		else if (r == 0) {
			if (!id || !*id || strchr(id, '/') || strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
				return cv_error(err, EINVAL, "invalid container id \"%s\" for a cgroup name",
						id ? id : "");
			r = append_components(buf, sizeof(buf), &len, id, "container id", err);
		}
	}
	if (r < 0)
		return r;
	if (len == 0)
		return cv_error(err, EINVAL, "linux.cgroupsPath \"%s\": the root cgroup cannot be a container's cgroup",
				cgroups_path ? cgroups_path : "");
	*out = strdup(buf);
	if (!*out)
		return cv_error(err, ENOMEM, "cgroup path");
	return 0;
}

/* ---- the object ---- */

static void dir_clear(struct cv_cg_dir *d)
{
	free(d->key);
	free(d->path);
	free(d->created);
	if (d->fd >= 0)
		(void)close(d->fd); /* read-only directory fd: nothing to flush */
}

void cv_cgroup_free(struct cv_cgroup *cg)
{
	if (!cg)
		return;
	cv_cg_systemd_release(cg);
	for (size_t i = 0; i < cg->n; i++)
		dir_clear(&cg->dirs[i]);
	free(cg->dirs);
	free(cg->filter);
	free(cg);
}

static struct cv_cg_dir *add_dir(struct cv_cgroup *cg, const char *key, const char *path, cv_error_t *err)
{
	struct cv_cg_dir *v = realloc(cg->dirs, (cg->n + 1) * sizeof(*v));
	struct cv_cg_dir *d;

	if (!v) {
		cv_error(err, ENOMEM, "cgroup");
		return NULL;
	}
	cg->dirs = v;
	d = &v[cg->n];
	*d = (struct cv_cg_dir){ .fd = -1 };
	d->key = strdup(key);
	d->path = strdup(path);
	if (!d->key || !d->path) {
		free(d->key);
		free(d->path);
		cv_error(err, ENOMEM, "cgroup");
		return NULL;
	}
	cg->n++;
	return d;
}

/* Gives the new v1 cpuset directory `path` (relative to rootfd) its parent's
 * cpus and mems: a new cpuset is empty and would refuse tasks. */
static int cpuset_inherit(int rootfd, const char *root, const char *path, cv_error_t *err)
{
	const char *slash = strrchr(path, '/');
	cleanup_free char *parent_path = slash ? strndup(path, slash - path) : strdup(".");
	cleanup_close int parent = -1, child = -1;

	if (!parent_path)
		return cv_error(err, ENOMEM, "cgroup path");
	parent = openat(rootfd, parent_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent < 0)
		return cv_error_errno(err, "open cgroup `%s/%s`", root, parent_path);
	child = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (child < 0)
		return cv_error_errno(err, "open cgroup `%s/%s`", root, path);
	return cv_cg_v1_copy_cpuset(parent, child, err);
}

/* mkdir -p of `rel` under the hierarchy root `rootfd`, recording in d->created
 * the topmost directory made. */
static int make_dirs(int rootfd, const char *root, const char *rel, struct cv_cg_dir *d, bool cpuset, cv_error_t *err)
{
	char buf[4096];
	size_t len = strlen(rel);

	if (mkdirat(rootfd, rel, 0755) == 0) {
		if (asprintf(&d->created, "%s/%s", root, rel) < 0) {
			d->created = NULL;
			return cv_error(err, ENOMEM, "cgroup path");
		}
		return cpuset ? cpuset_inherit(rootfd, root, rel, err) : 0;
	}
	if (errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return cv_error_errno(err, "create cgroup `%s/%s`", root, rel);
	if (len >= sizeof(buf))
		return cv_error(err, ENAMETOOLONG, "cgroup path too long");
	/* Some ancestors are missing: create from the top down. */
	memcpy(buf, rel, len + 1);
	for (size_t i = 1; i <= len; i++) {
		char c = buf[i];

		if (c != '/' && c != '\0')
			continue;
		buf[i] = '\0';
		if (mkdirat(rootfd, buf, 0755) == 0) {
			if (!d->created && asprintf(&d->created, "%s/%s", root, buf) < 0) {
				d->created = NULL;
				return cv_error(err, ENOMEM, "cgroup path");
			}
			if (cpuset && cpuset_inherit(rootfd, root, buf, err) < 0)
				return -1;
		} else if (errno != EEXIST)
			return cv_error_errno(err, "create cgroup `%s/%s`", root, buf);
		buf[i] = c;
	}
	return 0;
}

/* Removes `path` and any child cgroups made inside it (by the container),
 * deepest first. EBUSY (tasks still exiting) is retried until *deadline_ms
 * of waiting is used up. */
static int remove_tree(const char *path, long *budget_ms, cv_error_t *err)
{
	long wait = 1;

	for (;;) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY && errno != ENOTEMPTY)
			return cv_error_errno(err, "remove cgroup `%s`", path);
		/* Child cgroups first. */
		{
			cleanup_dir DIR *dir = opendir(path);
			struct dirent *de;
			bool had_child = false;

			if (!dir)
				return cv_error_errno(err, "remove cgroup `%s`", path);
			while ((de = readdir(dir))) {
				cleanup_free char *sub = NULL;
				if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
				    strcmp(de->d_name, "..") == 0)
					continue;
				if (asprintf(&sub, "%s/%s", path, de->d_name) < 0)
					return cv_error(err, ENOMEM, "cgroup path");
				had_child = true;
				if (remove_tree(sub, budget_ms, err) < 0)
					return -1;
			}
			if (had_child && (rmdir(path) == 0 || errno == ENOENT))
				return 0;
		}
		if (*budget_ms <= 0)
			return cv_error(err, EBUSY, "remove cgroup `%s`: processes are still in it", path);
		sleep_ms(wait);
		*budget_ms -= wait;
		if (wait < 64)
			wait *= 2;
	}
}

int cv_cgroup_destroy(struct cv_cgroup *cg, cv_error_t *err)
{
	long budget = MAX_WAIT_MS;
	int r = 0;

	if (!cg)
		return 0;
	/* systemd removes the scope's directories; ours (e.g. v1 cpuset) after */
	if (cg->sd_unit && cv_cg_systemd_destroy(cg, err) < 0)
		r = cv_error_ret(*err);
	for (size_t i = 0; i < cg->n; i++) {
		struct cv_cg_dir *d = &cg->dirs[i];
		size_t top;
		cleanup_free char *p = NULL;
		cv_error_t e = NULL;

		if (!d->created)
			continue; /* never remove what we did not create */
		if (d->fd >= 0) {
			(void)close(d->fd); /* directory fd: nothing to flush */
			d->fd = -1;
		}
		top = strlen(d->created);
		if (remove_tree(d->path, &budget, &e) < 0) {
			if (r == 0)
				cv_error_move(err, &e), r = cv_error_ret(*err);
			cv_error_release(&e);
			continue;
		}
		/* Then the intermediate directories we made, up to the topmost. */
		p = strdup(d->path);
		if (!p)
			return cv_error(err, ENOMEM, "cgroup path");
		for (;;) {
			char *s = strrchr(p, '/');
			if (!s || (size_t)(s - p) < top)
				break;
			*s = '\0';
			if (rmdir(p) < 0 && errno != ENOENT) {
				/* Another container may share the parent: keep it. */
				cv_debug("cgroup: keeping `%s`: %m", p);
				break;
			}
		}
		free(d->created);
		d->created = NULL;
	}
	return r;
}

/* One line of /proc/self/cgroup: "ID:CONTROLLERS:PATH". */
struct own_line {
	char *controllers;
	char *path;
	bool v2;
};

static int read_self_cgroup(char *buf, size_t size, struct own_line *lines, size_t max, size_t *n, cv_error_t *err)
{
	ssize_t len = cv_read_buf_at(AT_FDCWD, "/proc/self/cgroup", buf, size);
	char *p;

	if (len < 0)
		return cv_error(err, (int)-len, "read /proc/self/cgroup");
	*n = 0;
	for (p = buf; *p && *n < max;) {
		char *nl = strchrnul(p, '\n');
		char *c1 = memchr(p, ':', nl - p), *c2;
		char *next = *nl ? nl + 1 : nl;

		*nl = '\0';
		if (c1 && (c2 = strchr(c1 + 1, ':'))) {
			*c1 = '\0';
			*c2 = '\0';
			lines[*n].controllers = c1 + 1;
			lines[*n].path = c2 + 1;
			lines[*n].v2 = strcmp(p, "0") == 0 && c1[1] == '\0';
			(*n)++;
		}
		p = next;
	}
	return 0;
}

/* A v1 hierarchy's mount point, /sys/fs/cgroup/<controllers> (the usual
 * name, also for co-mounted "cpu,cpuacct", which may also be mounted under
 * its first name alone), or /sys/fs/cgroup/<name> for name=X hierarchies;
 * SUB (when not NULL) below it. Opened with FLAGS; PATH gets the path. */
static int open_v1(const char *controllers, const char *sub, int flags, char *path, size_t size)
{
	const char *name = strncmp(controllers, "name=", 5) == 0 ? controllers + 5 : controllers;
	/* the whole name, then (co-mounted, not found) its first controller */
	const int lens[2] = { (int)strlen(name), (int)strcspn(name, ",") };
	int fd = -1;

	for (int i = 0; i < 2 && fd < 0; i++) {
		if (i == 1 && (errno != ENOENT || lens[1] == lens[0]))
			break;
		if (snprintf(path, size, CGROUP_ROOT "/%.*s%s%s", lens[i], name, sub ? "/" : "", sub ? sub : "") >=
		    (int)size)
			errno = ENAMETOOLONG;
		else
			fd = open(path, flags);
	}
	return fd;
}

/* True when the comma-separated KEY shares a name with the comma-separated
 * LIST. */
static bool keys_meet(const char *key, const char *list)
{
	char name[64];
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n > 0 && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			if (key_has(key, name))
				return true;
		}
		p += n + (p[n] == ',');
	}
	return false;
}

int cv_cgroup_remove_stale(const char *controllers, bool (*stale)(const char *name, void *arg), void *arg,
			   unsigned *removed, cv_error_t *err)
{
	char buf[4096], path[PATH_MAX];
	struct own_line lines[64];
	size_t nlines = 0;
	enum cv_cgroup_layout layout;
	*removed = 0;
	if (cv_cgroup_layout(&layout, err) < 0 || read_self_cgroup(buf, sizeof(buf), lines, 64, &nlines, err) < 0)
		return -1;
	const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
	for (size_t i = 0; i < nlines; i++) {
		const struct own_line *l = &lines[i];
		const char *own = l->path;
		while (*own == '/')
			own++;
		if (!*own)
			own = ".";
		/* Every run of cvisor do (this one's gc included) reads them:
		 * one open and the reads, no DIR (an fstat, two fcntl and 32 kB
		 * of heap each) */
		cleanup_close int dfd = -1;
		if (l->v2) {
			if (layout == CV_CGROUP_LEGACY)
				continue;
			if (snprintf(path, sizeof(path), "%s/%s",
				     layout == CV_CGROUP_UNIFIED ? CGROUP_ROOT : UNIFIED_HYBRID,
				     own) < (int)sizeof(path))
				dfd = open(path, flags);
		} else if (layout != CV_CGROUP_UNIFIED && *l->controllers &&
			   (!controllers || keys_meet(l->controllers, controllers))) {
			dfd = open_v1(l->controllers, own, flags, path, sizeof(path));
		}
		if (dfd < 0)
			continue;
		char ents[4096] __attribute__((aligned(8)));
		ssize_t n;
		while ((n = getdents64(dfd, ents, sizeof(ents))) > 0) {
			for (ssize_t off = 0; off < n;) {
				const struct dirent64 *de = (const struct dirent64 *)(ents + off);
				off += de->d_reclen;
				if (de->d_type != DT_DIR || de->d_name[0] == '.' || !stale(de->d_name, arg))
					continue;
				/* empty by now (its processes died with their runtime): a
				 * busy one is left for a later run */
				if (unlinkat(dfd, de->d_name, AT_REMOVEDIR) == 0)
					(*removed)++;
				else if (errno != ENOENT && errno != EBUSY)
					cv_warn("cgroup gc: remove `%s/%s`: %s", l->path, de->d_name, strerror(errno));
			}
		}
	}
	return 0;
}

/* Pure v2: enables the available controllers in every ancestor of `rel`
 * from `start_len` (the caller's own cgroup) down to the leaf's parent. */
static int v2_enable_ancestors(int rootfd, const char *rel, size_t start_len, cv_error_t *err)
{
	char buf[4096];
	size_t len = strlen(rel);

	if (len >= sizeof(buf))
		return cv_error(err, ENAMETOOLONG, "cgroup path too long");
	memcpy(buf, rel, len + 1);
	for (size_t i = start_len; i < len; i++) {
		cleanup_close int fd = -1;
		if (i != start_len && buf[i] != '/')
			continue;
		if (i == 0)
			fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		else {
			buf[i] = '\0';
			fd = openat(rootfd, buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			buf[i] = '/';
		}
		if (fd < 0)
			return cv_error_errno(err, "open cgroup `%.*s`", (int)i, buf);
		if (cv_cg_v2_enable(fd, NULL, err) < 0)
			return -1;
	}
	return 0;
}

/* The known controllers in a comma-separated list of names ("cpu,cpuacct",
 * a cgroup.controllers line with spaces); name=X and unknown names add none. */
static uint32_t names_mask(const char *list, const char *seps)
{
	uint32_t m = 0;

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, seps);
		int b = n ? cg_bit(p, n) : -1;
		if (b >= 0)
			m |= 1u << b;
		p += n;
		if (*p)
			p++;
	}
	return m;
}

/* Which lines of /proc/self/cgroup get a directory under the annotation
 * (cgroups.h): want[i] for lines[i]. */
static void select_hierarchies(const struct own_line *lines, size_t n, enum cv_cgroup_layout layout, uint32_t mask,
			       bool *want)
{
	uint32_t v1 = 0;
	ssize_t unified = -1;

	for (size_t i = 0; i < n; i++) {
		want[i] = false;
		if (lines[i].v2) {
			if (layout == CV_CGROUP_UNIFIED)
				want[i] = true;
			else if (layout == CV_CGROUP_HYBRID)
				unified = (ssize_t)i;
			continue;
		}
		uint32_t held = names_mask(lines[i].controllers, ",");
		v1 |= held;
		want[i] = (held & mask) != 0;
	}
	if (unified >= 0) {
		/* A listed controller no v1 hierarchy holds may be bound to the
		 * cgroup2 one (hugetlb here): only then is its list read. */
		uint32_t rest = mask & ~v1 & ~UNIFIED_BIT;
		bool w = (mask & UNIFIED_BIT) != 0;
		if (!w && rest) {
			char buf[512];
			if (cv_read_buf_at(AT_FDCWD, UNIFIED_HYBRID "/cgroup.controllers", buf, sizeof(buf)) > 0)
				w = (names_mask(buf, " \n") & rest) != 0;
		}
		want[unified] = w;
	}
}

static bool rootless_skippable(int e)
{
	return e == EACCES || e == EPERM || e == EROFS;
}

static int apply(struct cv_cgroup *cg, const oci_resources *r, bool update, cv_error_t *err)
{
	if (cg->layout == CV_CGROUP_UNIFIED) {
		struct cv_cg_dir *d = cv_cg_find(cg, "unified");
		if (!d)
			return r ? cv_error(err, ENOENT, "no cgroup v2 directory to apply linux.resources to") : 0;
		return cv_cg_v2_apply(cg, d, r, update, err);
	}
	return cv_cg_v1_apply(cg, r, update, err);
}

/* The container's directory in one hierarchy (a line of /proc/self/cgroup);
 * *chosen counts the hierarchies found mounted. A rootless caller without
 * delegation there gets none, with a debug line (runc's rule). */
static int make_hierarchy(struct cv_cgroup *cg, const struct cv_cgroup_config *cfg, const struct own_line *l,
			  size_t *chosen, cv_error_t *err)
{
	char root[512];
	cleanup_close int rootfd = -1;
	cleanup_free char *rel = NULL;
	cleanup_free char *full = NULL;
	enum cv_cgroup_layout layout = cg->layout;
	int r;

	if (l->v2) {
		if (layout == CV_CGROUP_LEGACY)
			return 0;
		snprintf(root, sizeof(root), "%s", layout == CV_CGROUP_UNIFIED ? CGROUP_ROOT : UNIFIED_HYBRID);
		rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		if (layout == CV_CGROUP_UNIFIED || !*l->controllers)
			return 0;
		rootfd = open_v1(l->controllers, NULL, O_PATH | O_DIRECTORY | O_CLOEXEC, root, sizeof(root));
	}
	if (rootfd < 0) {
		cv_debug("cgroup: hierarchy \"%s\" is not mounted at %s: %m", l->controllers, root);
		return 0;
	}
	(*chosen)++;
	if (cv_cg_resolve_path(l->path, cfg->cgroups_path, cfg->id, &rel, err) < 0)
		return -1;
	if (asprintf(&full, "%s/%s", root, rel) < 0) {
		full = NULL;
		return cv_error(err, ENOMEM, "cgroup path");
	}
	struct cv_cg_dir *d = add_dir(cg, l->v2 ? "unified" : l->controllers, full, err);
	if (!d)
		return -1;
	d->unified = l->v2;
	r = make_dirs(rootfd, root, rel, d, !l->v2 && key_has(l->controllers, "cpuset"), err);
	if (r == 0 && l->v2 && layout == CV_CGROUP_UNIFIED) {
		size_t own_len = 0;
		if (!(cfg->cgroups_path && cfg->cgroups_path[0] == '/')) {
			const char *o = l->path;
			while (*o == '/')
				o++;
			own_len = strlen(o);
		}
		r = v2_enable_ancestors(rootfd, rel, own_len, err);
	}
	if (r == 0 && cv_cg_dir_fd(d, err) < 0)
		r = -1;
	if (r < 0) {
		if (cfg->rootless && rootless_skippable((*err)->errnum) && !d->created) {
			/* not delegated to us: runc's rootless rule, no cgroup */
			cv_debug("rootless: no cgroup in %s: %s", d->path, (*err)->msg);
			cv_error_release(err);
			dir_clear(d);
			cg->n--;
			cg->rootless_skipped = true;
			return 0;
		}
		return -1;
	}
	return 0;
}

enum which_hierarchies {
	ALL_HIERARCHIES,
	V2_HIERARCHY,
	V1_HIERARCHIES
};

/* The directories in the hierarchies of /proc/self/cgroup, in its order. */
static int make_hierarchies(struct cv_cgroup *cg, const struct cv_cgroup_config *cfg, uint32_t mask,
			    enum which_hierarchies which, size_t *chosen, cv_error_t *err)
{
	char buf[4096];
	struct own_line lines[64];
	bool want[64];
	size_t nlines = 0;
	if (read_self_cgroup(buf, sizeof(buf), lines, 64, &nlines, err) < 0)
		return -1;
	if (cfg->controllers)
		select_hierarchies(lines, nlines, cg->layout, mask, want);
	for (size_t i = 0; i < nlines; i++)
		if ((!cfg->controllers || want[i]) &&
		    (which == ALL_HIERARCHIES || lines[i].v2 == (which == V2_HIERARCHY)) &&
		    make_hierarchy(cg, cfg, &lines[i], chosen, err) < 0)
			return -1;
	return 0;
}

/* Once every directory exists: the resources, and on a unified host the
 * device program. */
static int finish_create(struct cv_cgroup *cg, const struct cv_cgroup_config *cfg, size_t chosen, cv_error_t *err)
{
	if (cg->rootless_skipped && cg->n == 0)
		cv_debug("rootless: no cgroup is delegated to uid %u: the container runs without one",
			 (unsigned)geteuid());
	else if (cg->rootless_skipped)
		cv_debug("rootless: the container has cgroups only in the %zu hierarchies delegated to uid %u", cg->n,
			 (unsigned)geteuid());
	if (cfg->controllers && chosen == 0)
		return cv_error_plain(
			err, ENOENT, "annotation %s \"%s\": no cgroup hierarchy of this host holds a listed controller",
			CV_CGROUP_ANNOTATION_CONTROLLERS, cfg->controllers);
	if (apply(cg, cfg->resources, false, err) < 0)
		return -1;
	if (cg->layout == CV_CGROUP_UNIFIED && !cfg->rootless) {
		struct cv_cg_dir *d = cv_cg_find(cg, "unified");
		const oci_resources *res = cfg->resources;
		cleanup_free oci_device_cgroup *extra = NULL;
		size_t nnodes = 0;
		if (d && cv_cg_node_device_rules(cfg->devices, cfg->devices_len, &extra, &nnodes, err) < 0)
			return -1;
		if (d) {
			/* defaults first, then the nodes: one list after the spec's rules */
			oci_device_cgroup *all = realloc(extra,
							 (nnodes + cv_cg_default_device_rules_len) * sizeof(*all));
			if (!all)
				return cv_error(err, ENOMEM, "device rules");
			extra = all;
			memmove(all + cv_cg_default_device_rules_len, all, nnodes * sizeof(*all));
			memcpy(all, cv_cg_default_device_rules, cv_cg_default_device_rules_len * sizeof(*all));
			if (cv_cg_devices_bpf_attach(d->fd, res ? res->devices : NULL, res ? res->devices_len : 0, all,
						     nnodes + cv_cg_default_device_rules_len, err) < 0)
				return cv_error_prefix(err, "linux.resources.devices");
		}
	}
	cg->node_devices = NULL;
	cg->n_node_devices = 0;
	return 0;
}

static void undo_create(struct cv_cgroup *cg)
{
	cv_error_t e = NULL;
	if (cv_cgroup_destroy(cg, &e) < 0)
		cv_warn("cleaning up after a failed cgroup setup: %s", e->msg);
	cv_error_release(&e);
}

int cv_cgroup_create(const struct cv_cgroup_config *cfg, struct cv_cgroup **out, cv_error_t *err)
{
	struct cv_cgroup *cg;
	enum cv_cgroup_layout layout;
	size_t chosen = 0;

	uint32_t mask;
	if (cfg->none && cfg->resources)
		return cv_error(err, EINVAL, "cgroup: resources set for a run without a cgroup");
	if (config_mask(cfg, &mask, err) < 0)
		return -1;
	if (cfg->none) {
		if (cv_cgroup_layout(&layout, err) < 0)
			return -1;
		if (!(cg = calloc(1, sizeof(*cg))))
			return cv_error(err, ENOMEM, "cgroup");
		cg->layout = layout;
		cg->rootless = cfg->rootless;
		*out = cg;
		return 0;
	}
	if (cfg->systemd)
		return cv_cg_systemd_create(cfg, out, err);
	if (cv_cgroup_layout(&layout, err) < 0)
		return -1;
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return cv_error(err, ENOMEM, "cgroup");
	cg->layout = layout;
	cg->rootless = cfg->rootless;
	cg->node_devices = cfg->devices;
	cg->n_node_devices = cfg->devices_len;
	if (cfg->controllers && !(cg->filter = strdup(cfg->controllers))) {
		free(cg);
		return cv_error(err, ENOMEM, "cgroup");
	}
	cg->v1_pending = cfg->v1_after_clone && layout != CV_CGROUP_UNIFIED;
	int r = make_hierarchies(cg, cfg, mask, cg->v1_pending ? V2_HIERARCHY : ALL_HIERARCHIES, &chosen, err);
	if (r == 0 && cg->v1_pending) {
		cg->mask = mask;
		cg->chosen = chosen;
	} else if (r == 0) {
		r = finish_create(cg, cfg, chosen, err);
	}
	if (r < 0) {
		r = cv_error_ret(*err);
		undo_create(cg);
		cv_cgroup_free(cg);
		return r;
	}
	*out = cg;
	return 0;
}

bool cv_cgroup_v1_pending(const struct cv_cgroup *cg)
{
	return cg && cg->v1_pending;
}

int cv_cgroup_create_v1(struct cv_cgroup *cg, const struct cv_cgroup_config *cfg, cv_error_t *err)
{
	if (!cg || !cg->v1_pending)
		return 0;
	size_t chosen = cg->chosen;
	cg->v1_pending = false;
	if (make_hierarchies(cg, cfg, cg->mask, V1_HIERARCHIES, &chosen, err) < 0 ||
	    finish_create(cg, cfg, chosen, err) < 0)
		return -1;
	return 0;
}

int cv_cgroup_enter(struct cv_cgroup *cg, pid_t pid, cv_error_t *err)
{
	char v[24];

	snprintf(v, sizeof(v), "%d", (int)pid);
	for (size_t i = 0; i < cg->n; i++) {
		if (cv_cg_write(&cg->dirs[i], "cgroup.procs", v, err) < 0) {
			if (cg->rootless && rootless_skippable((*err)->errnum)) {
				cv_debug("rootless: not joining cgroup %s: %s", cg->dirs[i].path, (*err)->msg);
				cv_error_release(err);
				continue;
			}
			return cv_error_prefix(err, "join cgroup `%s`", cg->dirs[i].path);
		}
	}
	return 0;
}

int cv_cgroup_clone_fd(struct cv_cgroup *cg)
{
	struct cv_cg_dir *d = cv_cg_find(cg, "unified");
	cv_error_t e = NULL;
	int fd;

	if (!d || !d->unified)
		return -1;
	fd = cv_cg_dir_fd(d, &e);
	cv_error_release(&e);
	return fd;
}

int cv_cgroup_self_join_open(struct cv_cgroup *cg, struct cv_cgroup_self_join *j, cv_error_t *err)
{
	j->fd = NULL;
	j->path = NULL;
	j->n = 0;
	j->rootless = cg->rootless;
	j->cg = cg;
	if (cg->n == 0)
		return 0;
	j->fd = calloc(cg->n, sizeof(*j->fd));
	j->path = calloc(cg->n, sizeof(*j->path));
	if (!j->fd || !j->path) {
		cv_cgroup_self_join_close(j);
		return cv_error(err, ENOMEM, "join cgroup");
	}
	for (size_t i = 0; i < cg->n; i++) {
		struct cv_cg_dir *d = &cg->dirs[i];
		if (d->unified)
			continue;
		int dfd = cv_cg_dir_fd(d, err);
		int fd = dfd < 0 ? -1 : openat(dfd, "tasks", O_WRONLY | O_CLOEXEC);
		if (dfd >= 0 && fd < 0)
			cv_error_errno(err, "open %s/tasks", d->path);
		if (fd < 0) {
			if (cg->rootless && rootless_skippable((*err)->errnum)) {
				cv_debug("rootless: not joining cgroup %s: %s", d->path, (*err)->msg);
				cv_error_release(err);
				continue;
			}
			cv_cgroup_self_join_close(j);
			return cv_error_prefix(err, "join cgroup `%s`", d->path);
		}
		j->path[j->n] = d->path;
		j->fd[j->n++] = fd;
	}
	return 0;
}

int cv_cgroup_self_join_one(int tasks, const char *path, bool rootless, cv_error_t *err)
{
	/* "0": the writer itself, as one thread; the kernel then skips the
	 * global threadgroup lock (its write side waits out an RCU grace
	 * period, ~10 ms, on every pid written from outside). */
	if (write(tasks, "0", 1) != 1) {
		int e = errno;
		if (rootless && rootless_skippable(e)) {
			cv_debug("rootless: not joining cgroup %s: %s", path, strerror(e));
			return 0;
		}
		return cv_error(err, e, "join cgroup `%s`: write tasks \"0\"", path);
	}
	return 0;
}

int cv_cgroup_self_join(const struct cv_cgroup_self_join *j, cv_error_t *err)
{
	for (size_t i = 0; i < j->n; i++)
		if (cv_cgroup_self_join_one(j->fd[i], j->path[i], j->rootless, err) < 0)
			return -1;
	/* Our copies only, and nothing written: the runtime keeps its own, and
	 * its memory may be ours (lifecycle/shared-launch.h). */
	for (size_t i = 0; i < j->n; i++)
		(void)close(j->fd[i]);
	for (size_t i = 0; j->cg && i < j->cg->n; i++)
		if (j->cg->dirs[i].fd >= 0)
			(void)close(j->cg->dirs[i].fd);
	return 0;
}

void cv_cgroup_self_join_close(struct cv_cgroup_self_join *j)
{
	for (size_t i = 0; i < j->n; i++)
		close(j->fd[i]);
	free(j->fd);
	free(j->path);
	j->fd = NULL;
	j->path = NULL;
	j->n = 0;
}

int cv_cgroup_leave_open(const struct cv_cgroup *cg, int **fds, size_t *n, cv_error_t *err)
{
	*fds = NULL;
	*n = 0;
	if (cg->n == 0)
		return 0;
	int *v = calloc(cg->n, sizeof(*v));
	if (!v)
		return cv_error(err, ENOMEM, "cgroup: leave");
	size_t k = 0;
	for (; k < cg->n; k++) {
		const struct cv_cg_dir *d = &cg->dirs[k];
		const char *top = d->created ? d->created : d->path;
		const char *slash = strrchr(top, '/');
		char file[PATH_MAX];
		if (!slash || slash == top ||
		    snprintf(file, sizeof(file), "%.*s/%s", (int)(slash - top), top,
			     d->unified ? "cgroup.procs" : "tasks") >= (int)sizeof(file))
			break;
		if ((v[k] = open(file, O_WRONLY | O_CLOEXEC)) < 0) {
			cv_debug("cgroup: the init stays in `%s` to its exit: open %s: %s", top, file, strerror(errno));
			break;
		}
	}
	if (k < cg->n) {
		while (k > 0)
			close(v[--k]);
		free(v);
		return 0;
	}
	*fds = v;
	*n = k;
	return 0;
}

int cv_cgroup_memory_apart(const struct cv_cgroup *cg, const struct cv_cgroup_self_join *j, int *fds, size_t *n,
			   struct cv_cgroup_memory_apart *out, cv_error_t *err)
{
	out->leave = out->join = -1;
	if (*n != cg->n)
		return 0; /* no way out of every directory: the init stays in all */
	for (size_t k = 0; k < cg->n; k++) {
		const struct cv_cg_dir *d = &cg->dirs[k];
		if (d->unified || !key_has(d->key, "memory"))
			continue;
		for (size_t i = 0; i < j->n; i++) {
			if (j->path[i] != d->path)
				continue;
			out->join = fcntl(j->fd[i], F_DUPFD_CLOEXEC, 3);
			if (out->join < 0)
				return cv_error_errno(err, "join cgroup `%s`: dup its tasks fd", d->path);
			out->leave = fds[k];
			fds[k] = fds[--*n];
			return 1;
		}
	}
	return 0;
}

#define CREATED_PREFIX "created:"

static int kv_add(oci_kv_list *kv, const char *k1, const char *k2, const char *v, cv_error_t *err)
{
	oci_kv *n = realloc(kv->v, (kv->len + 1) * sizeof(*n));

	if (!n)
		return cv_error(err, ENOMEM, "cgroup paths");
	kv->v = n;
	if (asprintf(&n[kv->len].key, "%s%s", k1, k2) < 0)
		return cv_error(err, ENOMEM, "cgroup paths");
	n[kv->len].value = strdup(v);
	if (!n[kv->len].value) {
		free(n[kv->len].key);
		return cv_error(err, ENOMEM, "cgroup paths");
	}
	kv->len++;
	return 0;
}

int cv_cgroup_save(const struct cv_cgroup *cg, oci_kv_list *paths, cv_error_t *err)
{
	for (size_t i = 0; i < cg->n; i++) {
		const struct cv_cg_dir *d = &cg->dirs[i];
		if (kv_add(paths, "", d->key, d->path, err) < 0)
			return -1;
		if (d->created && kv_add(paths, CREATED_PREFIX, d->key, d->created, err) < 0)
			return -1;
	}
	if (cg->sd_unit &&
	    kv_add(paths, "", cg->sd_user ? CV_CG_SYSTEMD_USER_UNIT_KEY : CV_CG_SYSTEMD_UNIT_KEY, cg->sd_unit, err) < 0)
		return -1;
	if (cg->filter && kv_add(paths, "", CV_CG_CONTROLLERS_KEY, cg->filter, err) < 0)
		return -1;
	return 0;
}

int cv_cgroup_load(const oci_kv_list *paths, struct cv_cgroup **out, cv_error_t *err)
{
	struct cv_cgroup *cg = calloc(1, sizeof(*cg));
	bool v1 = false, v2 = false;

	if (!cg)
		return cv_error(err, ENOMEM, "cgroup");
	for (size_t i = 0; i < paths->len; i++) {
		const oci_kv *kv = &paths->v[i];
		struct cv_cg_dir *d;

		if (!kv->key || !kv->value || strncmp(kv->key, CREATED_PREFIX, strlen(CREATED_PREFIX)) == 0)
			continue;
		if (strcmp(kv->key, CV_CG_SYSTEMD_UNIT_KEY) == 0 || strcmp(kv->key, CV_CG_SYSTEMD_USER_UNIT_KEY) == 0) {
			free(cg->sd_unit);
			cg->sd_unit = strdup(kv->value);
			if (!cg->sd_unit) {
				cv_cgroup_free(cg);
				return cv_error(err, ENOMEM, "cgroup");
			}
			cg->sd_user = strcmp(kv->key, CV_CG_SYSTEMD_USER_UNIT_KEY) == 0;
			continue;
		}
		if (strcmp(kv->key, CV_CG_CONTROLLERS_KEY) == 0) {
			free(cg->filter);
			cg->filter = strdup(kv->value);
			if (!cg->filter) {
				cv_cgroup_free(cg);
				return cv_error(err, ENOMEM, "cgroup");
			}
			continue;
		}
		if (kv->value[0] != '/' || strstr(kv->value, "/../")) {
			cv_cgroup_free(cg);
			return cv_error(err, EINVAL, "state: invalid cgroup path \"%s\"", kv->value);
		}
		d = add_dir(cg, kv->key, kv->value, err);
		if (!d) {
			cv_cgroup_free(cg);
			return -1;
		}
		d->unified = strcmp(kv->key, "unified") == 0;
		if (d->unified)
			v2 = true;
		else
			v1 = true;
	}
	for (size_t i = 0; i < paths->len; i++) {
		const oci_kv *kv = &paths->v[i];
		const char *key;

		if (!kv->key || !kv->value || strncmp(kv->key, CREATED_PREFIX, strlen(CREATED_PREFIX)) != 0)
			continue;
		key = kv->key + strlen(CREATED_PREFIX);
		for (size_t j = 0; j < cg->n; j++) {
			size_t n = strlen(kv->value);
			/* Only an ancestor-or-self of the saved directory. */
			if (strcmp(cg->dirs[j].key, key) == 0 && strncmp(cg->dirs[j].path, kv->value, n) == 0 &&
			    (cg->dirs[j].path[n] == '\0' || cg->dirs[j].path[n] == '/')) {
				free(cg->dirs[j].created);
				cg->dirs[j].created = strdup(kv->value);
			}
		}
	}
	cg->layout = v1 && v2 ? CV_CGROUP_HYBRID : v2 ? CV_CGROUP_UNIFIED : CV_CGROUP_LEGACY;
	if (cg->filter) {
		/* A subset does not tell the layout (hybrid without "unified"
		 * looks legacy, with it alone unified): the host's own. */
		enum cv_cgroup_layout host;
		cv_error_t e = NULL;
		if (cv_cgroup_layout(&host, &e) == 0)
			cg->layout = host;
		cv_error_release(&e);
	}
	*out = cg;
	return 0;
}

/* The directory whose cgroup.procs lists the container's processes. */
static struct cv_cg_dir *procs_dir(struct cv_cgroup *cg)
{
	static const char *const pref[] = { "freezer", "pids", "memory", "cpu", "devices" };
	struct cv_cg_dir *d;

	if (cg->layout == CV_CGROUP_UNIFIED)
		return cv_cg_find(cg, "unified");
	for (size_t i = 0; i < sizeof(pref) / sizeof(pref[0]); i++)
		if ((d = cv_cg_find(cg, pref[i])))
			return d;
	return cg->n ? &cg->dirs[0] : NULL;
}

struct pid_vec {
	pid_t *v;
	size_t n, cap;
};

static int collect_pids(int dfd, const char *path, struct pid_vec *pv, int depth, cv_error_t *err)
{
	cleanup_free char *buf = NULL;
	size_t len;
	cleanup_dir DIR *dir = NULL;
	struct dirent *de;
	int sub;

	if (depth > 64)
		return 0;
	/* every pid, however many: kill and delete must miss none */
	if (cv_read_file_at(dfd, "cgroup.procs", CGROUP_PROCS_MAX, 0, &buf, &len, err) < 0)
		return cv_error_prefix(err, "cgroup `%s`", path);
	for (char *p = buf; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pv->n == pv->cap) {
			size_t cap = pv->cap ? pv->cap * 2 : 16;
			pid_t *n = realloc(pv->v, cap * sizeof(*n));
			if (!n)
				return cv_error(err, ENOMEM, "pids");
			pv->v = n;
			pv->cap = cap;
		}
		pv->v[pv->n++] = (pid_t)v;
		p = end;
		while (*p == '\n')
			p++;
	}
	/* Child cgroups the container made. */
	sub = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sub < 0)
		return cv_error_errno(err, "open cgroup `%s`", path);
	dir = fdopendir(sub);
	if (!dir) {
		(void)close(sub); /* fdopendir failed: the fd is still ours */
		return cv_error_errno(err, "open cgroup `%s`", path);
	}
	while ((de = readdir(dir))) {
		cleanup_close int cfd = -1;
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		cfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfd < 0)
			continue; /* removed meanwhile */
		if (collect_pids(cfd, path, pv, depth + 1, err) < 0)
			return -1;
	}
	return 0;
}

int cv_cgroup_pids(struct cv_cgroup *cg, pid_t **pids, size_t *n, cv_error_t *err)
{
	struct cv_cg_dir *d = procs_dir(cg);
	struct pid_vec pv = { 0 };
	int dfd;

	*pids = NULL;
	*n = 0;
	if (!d)
		return 0;
	dfd = cv_cg_dir_fd(d, err);
	if (dfd < 0) {
		if ((*err)->errnum == ENOENT) {
			cv_error_release(err);
			return 0;
		}
		return -1;
	}
	if (collect_pids(dfd, d->path, &pv, 0, err) < 0) {
		free(pv.v);
		return -1;
	}
	*pids = pv.v;
	*n = pv.n;
	return 0;
}

static bool contains(const pid_t *v, size_t n, pid_t p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return true;
	return false;
}

int cv_cgroup_kill(struct cv_cgroup *cg, int signal, cv_error_t *err)
{
	cleanup_free pid_t *signalled = NULL;
	size_t nsignalled = 0;

	if (signal == SIGKILL && cg->layout == CV_CGROUP_UNIFIED) {
		struct cv_cg_dir *d = cv_cg_find(cg, "unified");
		if (d && cv_cg_has_file(d, "cgroup.kill"))
			return cv_cg_write(d, "cgroup.kill", "1", err);
	}
	/* Signal until a pass finds nobody new: a process forked meanwhile is
	 * caught by the next pass. */
	for (int pass = 0; pass < 1000; pass++) {
		cleanup_free pid_t *pids = NULL;
		size_t n;
		bool fresh = false;

		if (cv_cgroup_pids(cg, &pids, &n, err) < 0)
			return -1;
		for (size_t i = 0; i < n; i++) {
			pid_t *grown;
			if (contains(signalled, nsignalled, pids[i]))
				continue;
			if (kill(pids[i], signal) < 0 && errno != ESRCH)
				return cv_error_errno(err, "kill %d", (int)pids[i]);
			fresh = true;
			grown = realloc(signalled, (nsignalled + 1) * sizeof(*grown));
			if (!grown)
				return cv_error(err, ENOMEM, "pids");
			signalled = grown;
			signalled[nsignalled++] = pids[i];
		}
		if (!fresh)
			return 0;
	}
	return cv_error(err, EAGAIN, "kill: processes keep appearing in the cgroup");
}

/* v2: cgroup.events "frozen 0|1", waited for with poll(POLLPRI). */
static int v2_wait_frozen(struct cv_cg_dir *d, bool want, cv_error_t *err)
{
	cleanup_close int fd = -1;
	int dfd = cv_cg_dir_fd(d, err);
	long left = MAX_WAIT_MS;

	if (dfd < 0)
		return -1;
	fd = openat(dfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "read cgroup.events");
	for (;;) {
		char buf[256];
		ssize_t r = pread(fd, buf, sizeof(buf) - 1, 0);
		char *f;
		struct pollfd pfd = { .fd = fd, .events = POLLPRI };

		if (r < 0)
			return cv_error_errno(err, "read cgroup.events");
		buf[r] = '\0';
		f = strstr(buf, "frozen ");
		if (!f)
			return cv_error(err, ENOTSUP,
					"cgroup.events has no \"frozen\" field: the kernel cannot freeze cgroups");
		if ((f[7] == '1') == want)
			return 0;
		if (left <= 0)
			return cv_error(err, ETIMEDOUT, "%s `%s`: timed out", want ? "freeze" : "thaw", d->path);
		uint64_t t0 = cv_now_ms();
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return cv_error_errno(err, "poll cgroup.events");
		left -= (long)(cv_now_ms() - t0) + 1;
	}
}

int cv_cgroup_freeze(struct cv_cgroup *cg, bool freeze, cv_error_t *err)
{
	struct cv_cg_dir *d = cg->layout == CV_CGROUP_UNIFIED ? NULL : cv_cg_find(cg, "freezer");

	if (d) {
		long wait = 1, left = MAX_WAIT_MS;
		if (cv_cg_write(d, "freezer.state", freeze ? "FROZEN" : "THAWED", err) < 0)
			return -1;
		/* v1 reports FREEZING until every task stopped; no notification
		 * exists, so poll the state with a growing interval. */
		for (;;) {
			char buf[32];
			if (cv_cg_read(d, "freezer.state", buf, sizeof(buf), err) < 0)
				return -1;
			if (strncmp(buf, freeze ? "FROZEN" : "THAWED", 6) == 0)
				return 0;
			if (left <= 0)
				break;
			if (freeze) /* re-writing FROZEN retries tasks that were busy */
				(void)cv_cg_write(d, "freezer.state", "FROZEN", err), cv_error_release(err);
			sleep_ms(wait);
			left -= wait;
			if (wait < 32)
				wait *= 2;
		}
		if (freeze) {
			cv_error_t e = NULL;
			(void)cv_cg_write(d, "freezer.state", "THAWED", &e); /* best effort: undo */
			cv_error_release(&e);
		}
		return cv_error(err, ETIMEDOUT, "%s `%s`: timed out", freeze ? "freeze" : "thaw", d->path);
	}
	d = cv_cg_find(cg, "unified");
	if (!d && cg->filter)
		return cv_error_plain(err, ENOTSUP,
				      "cannot %s: the container has no freezer cgroup (annotation %s \"%s\")",
				      freeze ? "pause" : "resume", CV_CGROUP_ANNOTATION_CONTROLLERS, cg->filter);
	if (!d)
		return cv_error(err, ENOTSUP, "cannot %s: no freezer cgroup (v1 freezer controller or cgroup v2)",
				freeze ? "pause" : "resume");
	if (cv_cg_write(d, "cgroup.freeze", freeze ? "1" : "0", err) < 0)
		return -1;
	return v2_wait_frozen(d, freeze, err);
}

int cv_cgroup_frozen(struct cv_cgroup *cg, bool *frozen, cv_error_t *err)
{
	struct cv_cg_dir *d = cg->layout == CV_CGROUP_UNIFIED ? NULL : cv_cg_find(cg, "freezer");
	char buf[256];

	if (d) {
		if (cv_cg_read(d, "freezer.state", buf, sizeof(buf), err) < 0)
			return -1;
		*frozen = strncmp(buf, "FROZEN", 6) == 0;
		return 0;
	}
	d = cv_cg_find(cg, "unified");
	if (!d) {
		*frozen = false;
		return 0;
	}
	if (cv_cg_read(d, "cgroup.events", buf, sizeof(buf), err) < 0)
		return -1;
	{
		char *f = strstr(buf, "frozen ");
		*frozen = f && f[7] == '1';
	}
	return 0;
}

int cv_cgroup_update(struct cv_cgroup *cg, const oci_resources *resources, cv_error_t *err)
{
	if (!resources)
		return 0;
	return apply(cg, resources, true, err);
}
