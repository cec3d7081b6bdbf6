/* Statistics and OOM notifications of a container's cgroup, for `events`.
 * Each controller is read from the hierarchy that holds it: the v1
 * directory when there is one, else the cgroup2 directory (pure v2, or
 * hybrid hosts whose cgroup2 mount carries e.g. hugetlb). */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cgroups/cgroups-internal.h"
#include "cleanup.h"

#define BIG 65536

/* The file's text, or NULL (no error) when the file does not exist. */
static char *read_opt(struct cv_cg_dir *d, const char *file, cv_error_t *err, int *rc)
{
	*rc = 0;
	if (!d || !cv_cg_has_file(d, file))
		return NULL;
	char *buf = malloc(BIG);
	if (!buf) {
		*rc = cv_error(err, ENOMEM, "read %s", file);
		return NULL;
	}
	if (cv_cg_read(d, file, buf, BIG, err) < 0) {
		free(buf);
		*rc = cv_error_prefix(err, "%s", d->path);
		return NULL;
	}
	return buf;
}

/* A single number; "max" reads as UINT64_MAX (runc reports that for v2). */
static int read_u64(struct cv_cg_dir *d, const char *file, uint64_t *out, cv_error_t *err)
{
	char buf[64];
	*out = 0;
	if (!d || !cv_cg_has_file(d, file))
		return 0;
	if (cv_cg_read(d, file, buf, sizeof(buf), err) < 0)
		return cv_error_prefix(err, "%s", d->path);
	if (strncmp(buf, "max", 3) == 0)
		*out = UINT64_MAX;
	else
		*out = strtoull(buf, NULL, 10);
	return 0;
}

/* The value of KEY in a "key value" per line file (memory.stat, cpu.stat). */
static bool kv_get(const char *text, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
			*out = strtoull(p + kl + 1, NULL, 10);
			return true;
		}
	}
	return false;
}

static uint64_t kv(const char *text, const char *key)
{
	uint64_t v = 0;
	if (text)
		kv_get(text, key, &v);
	return v;
}

static int raw_stats(const char *text, oci_stats *s, cv_error_t *err)
{
	char key[128];
	unsigned long long v;
	for (const char *p = text; *p;) {
		const char *nl = strchrnul(p, '\n');
		if (sscanf(p, "%127s %llu", key, &v) == 2) {
			oci_stat_kv *raw = realloc(s->memory.raw, (s->memory.raw_len + 1) * sizeof(*raw));
			if (!raw)
				return cv_error(err, ENOMEM, "memory statistics");
			s->memory.raw = raw;
			raw[s->memory.raw_len].key = strdup(key);
			raw[s->memory.raw_len].value = v;
			if (!raw[s->memory.raw_len++].key)
				return cv_error(err, ENOMEM, "memory statistics");
		}
		p = *nl ? nl + 1 : nl;
	}
	return 0;
}

static int mem_entry_v1(struct cv_cg_dir *d, const char *prefix, oci_memory_entry *e, cv_error_t *err)
{
	char f[96];
	snprintf(f, sizeof(f), "%s.usage_in_bytes", prefix);
	if (read_u64(d, f, &e->usage, err) < 0)
		return -1;
	snprintf(f, sizeof(f), "%s.max_usage_in_bytes", prefix);
	if (read_u64(d, f, &e->max, err) < 0)
		return -1;
	snprintf(f, sizeof(f), "%s.failcnt", prefix);
	if (read_u64(d, f, &e->failcnt, err) < 0)
		return -1;
	snprintf(f, sizeof(f), "%s.limit_in_bytes", prefix);
	return read_u64(d, f, &e->limit, err);
}

static int memory_stats(struct cv_cgroup *cg, oci_stats *s, cv_error_t *err)
{
	struct cv_cg_dir *d = cv_cg_find(cg, "memory");
	int rc;
	if (d) {
		if (mem_entry_v1(d, "memory", &s->memory.usage, err) < 0 ||
		    mem_entry_v1(d, "memory.memsw", &s->memory.swap, err) < 0 ||
		    mem_entry_v1(d, "memory.kmem", &s->memory.kernel, err) < 0 ||
		    mem_entry_v1(d, "memory.kmem.tcp", &s->memory.kernel_tcp, err) < 0)
			return -1;
	} else {
		d = cv_cg_find(cg, "unified");
		if (!d || !cv_cg_has_file(d, "memory.current"))
			return 0;
		uint64_t swap = 0;
		if (read_u64(d, "memory.current", &s->memory.usage.usage, err) < 0 ||
		    read_u64(d, "memory.max", &s->memory.usage.limit, err) < 0 ||
		    read_u64(d, "memory.peak", &s->memory.usage.max, err) < 0 ||
		    read_u64(d, "memory.swap.current", &swap, err) < 0 ||
		    read_u64(d, "memory.swap.max", &s->memory.swap.limit, err) < 0)
			return -1;
		/* runc's v2 swap is memory+swap, as v1's memsw */
		s->memory.swap.usage = s->memory.usage.usage + swap;
		cleanup_free char *ev = read_opt(d, "memory.events", err, &rc);
		if (rc < 0)
			return rc;
		s->memory.usage.failcnt = kv(ev, "max");
	}
	cleanup_free char *st = read_opt(d, "memory.stat", err, &rc);
	if (rc < 0)
		return rc;
	if (st) {
		uint64_t cache;
		/* v1 "cache", v2 "file" */
		s->memory.cache = kv_get(st, "cache", &cache) ? cache : kv(st, "file");
		if (raw_stats(st, s, err) < 0)
			return -1;
	}
	return 0;
}

static int cpu_stats(struct cv_cgroup *cg, oci_stats *s, cv_error_t *err)
{
	struct cv_cg_dir *acct = cv_cg_find(cg, "cpuacct");
	struct cv_cg_dir *cpu = cv_cg_find(cg, "cpu");
	int rc;
	if (acct) {
		if (read_u64(acct, "cpuacct.usage", &s->cpu_usage.total, err) < 0)
			return -1;
		cleanup_free char *per = read_opt(acct, "cpuacct.usage_percpu", err, &rc);
		if (rc < 0)
			return rc;
		for (char *p = per, *end; p && *p; p = end) {
			uint64_t v = strtoull(p, &end, 10);
			if (end == p)
				break;
			uint64_t *n = realloc(s->cpu_usage.percpu, (s->cpu_usage.percpu_len + 1) * sizeof(*n));
			if (!n)
				return cv_error(err, ENOMEM, "cpu statistics");
			s->cpu_usage.percpu = n;
			n[s->cpu_usage.percpu_len++] = v;
		}
		cleanup_free char *st = read_opt(acct, "cpuacct.stat", err, &rc);
		if (rc < 0)
			return rc;
		/* clock ticks to nanoseconds */
		long hz = sysconf(_SC_CLK_TCK);
		if (hz <= 0)
			hz = 100;
		s->cpu_usage.user = kv(st, "user") * (1000000000ull / (uint64_t)hz);
		s->cpu_usage.kernel = kv(st, "system") * (1000000000ull / (uint64_t)hz);
	}
	if (cpu) {
		cleanup_free char *st = read_opt(cpu, "cpu.stat", err, &rc);
		if (rc < 0)
			return rc;
		s->throttling.periods = kv(st, "nr_periods");
		s->throttling.throttled_periods = kv(st, "nr_throttled");
		s->throttling.throttled_time = kv(st, "throttled_time");
	}
	if (!acct && !cpu) {
		struct cv_cg_dir *u = cv_cg_find(cg, "unified");
		cleanup_free char *st = read_opt(u, "cpu.stat", err, &rc);
		if (rc < 0)
			return rc;
		if (!st)
			return 0;
		s->cpu_usage.total = kv(st, "usage_usec") * 1000;
		s->cpu_usage.user = kv(st, "user_usec") * 1000;
		s->cpu_usage.kernel = kv(st, "system_usec") * 1000;
		s->throttling.periods = kv(st, "nr_periods");
		s->throttling.throttled_periods = kv(st, "nr_throttled");
		s->throttling.throttled_time = kv(st, "throttled_usec") * 1000;
	}
	return 0;
}

static int pids_stats(struct cv_cgroup *cg, oci_stats *s, cv_error_t *err)
{
	struct cv_cg_dir *d = cv_cg_find(cg, "pids");
	if (!d)
		d = cv_cg_find(cg, "unified");
	if (read_u64(d, "pids.current", &s->pids.current, err) < 0 || read_u64(d, "pids.max", &s->pids.limit, err) < 0)
		return -1;
	if (s->pids.limit == UINT64_MAX) /* runc: 0 means unlimited */
		s->pids.limit = 0;
	return 0;
}

/* v1 blkio lines "MAJ:MIN Op Value" ("Total N" lines are skipped). */
static int blkio_v1_list(struct cv_cg_dir *d, const char *file, oci_blkio_list *l, cv_error_t *err)
{
	int rc;
	cleanup_free char *text = read_opt(d, file, err, &rc);
	if (!text)
		return rc;
	for (const char *p = text; *p;) {
		const char *nl = strchrnul(p, '\n');
		oci_blkio_entry e = { 0 };
		unsigned long long maj, min, v;
		char op[16];
		int n = sscanf(p, "%llu:%llu %15s %llu", &maj, &min, op, &v);
		if (n == 4 || n == 3) {
			e.major = maj;
			e.minor = min;
			if (n == 4) {
				snprintf(e.op, sizeof(e.op), "%s", op);
				e.value = v;
			} else {
				e.value = strtoull(op, NULL, 10);
			}
			if (oci_blkio_add(l, &e, err) < 0)
				return -1;
		}
		p = *nl ? nl + 1 : nl;
	}
	return 0;
}

static int blkio_stats(struct cv_cgroup *cg, oci_stats *s, cv_error_t *err)
{
	struct cv_cg_dir *d = cv_cg_find(cg, "blkio");
	if (d) {
		/* runc's order: CFQ's files, then BFQ's, then the throttle counters */
		static const char *const pre[] = { "blkio.", "blkio.bfq.", NULL };
		for (size_t i = 0; pre[i]; i++) {
			char f[96];
			snprintf(f, sizeof(f), "%sio_service_bytes_recursive", pre[i]);
			if (blkio_v1_list(d, f, &s->blkio.service_bytes, err) < 0)
				return -1;
			if (!s->blkio.service_bytes.len)
				continue;
			static const struct {
				const char *f;
				size_t off;
			} more[] = {
				{ "io_serviced_recursive", offsetof(oci_stats, blkio.serviced) },
				{ "io_queued_recursive", offsetof(oci_stats, blkio.queued) },
				{ "io_service_time_recursive", offsetof(oci_stats, blkio.service_time) },
				{ "io_wait_time_recursive", offsetof(oci_stats, blkio.wait_time) },
				{ "io_merged_recursive", offsetof(oci_stats, blkio.merged) },
				{ "time_recursive", offsetof(oci_stats, blkio.time) },
				{ "sectors_recursive", offsetof(oci_stats, blkio.sectors) },
			};
			for (size_t j = 0; j < sizeof(more) / sizeof(more[0]); j++) {
				snprintf(f, sizeof(f), "%s%s", pre[i], more[j].f);
				if (blkio_v1_list(d, f, (oci_blkio_list *)((char *)s + more[j].off), err) < 0)
					return -1;
			}
			return 0;
		}
		if (blkio_v1_list(d, "blkio.throttle.io_service_bytes_recursive", &s->blkio.service_bytes, err) < 0 ||
		    blkio_v1_list(d, "blkio.throttle.io_serviced_recursive", &s->blkio.serviced, err) < 0)
			return -1;
		return 0;
	}
	d = cv_cg_find(cg, "unified");
	int rc;
	cleanup_free char *text = read_opt(d, "io.stat", err, &rc);
	if (!text)
		return rc;
	/* "MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N" */
	for (char *line = text, *save = NULL, *tok; (tok = strtok_r(line, "\n", &save)); line = NULL) {
		unsigned long long maj, min;
		if (sscanf(tok, "%llu:%llu", &maj, &min) != 2)
			continue;
		static const struct {
			const char *key, *op;
			bool bytes;
		} map[] = {
			{ "rbytes=", "Read", true }, { "wbytes=", "Write", true }, { "dbytes=", "Discard", true },
			{ "rios=", "Read", false },  { "wios=", "Write", false },  { "dios=", "Discard", false },
		};
		for (size_t j = 0; j < sizeof(map) / sizeof(map[0]); j++) {
			const char *p = strstr(tok, map[j].key);
			if (!p)
				continue;
			oci_blkio_entry e = { .major = maj, .minor = min };
			snprintf(e.op, sizeof(e.op), "%s", map[j].op);
			e.value = strtoull(p + strlen(map[j].key), NULL, 10);
			if (oci_blkio_add(map[j].bytes ? &s->blkio.service_bytes : &s->blkio.serviced, &e, err) < 0)
				return -1;
		}
	}
	return 0;
}

/* The page sizes of /sys/kernel/mm/hugepages ("hugepages-2048kB") as the
 * cgroup files name them ("2MB"). */
static int hugetlb_stats(struct cv_cgroup *cg, oci_stats *s, cv_error_t *err)
{
	struct cv_cg_dir *d = cv_cg_find(cg, "hugetlb");
	bool v2 = false;
	if (!d) {
		d = cv_cg_find(cg, "unified");
		v2 = true;
	}
	if (!d)
		return 0;
	cleanup_dir DIR *dir = opendir("/sys/kernel/mm/hugepages");
	if (!dir)
		return 0; /* no huge pages in this kernel */
	struct dirent *de;
	while ((de = readdir(dir))) {
		unsigned long kb;
		if (sscanf(de->d_name, "hugepages-%lukB", &kb) != 1)
			continue;
		oci_hugetlb_stats h = { 0 };
		if (kb >= 1024 * 1024 && kb % (1024 * 1024) == 0)
			snprintf(h.page_size, sizeof(h.page_size), "%luGB", kb / (1024 * 1024));
		else if (kb >= 1024 && kb % 1024 == 0)
			snprintf(h.page_size, sizeof(h.page_size), "%luMB", kb / 1024);
		else
			snprintf(h.page_size, sizeof(h.page_size), "%luKB", kb);
		char f[96];
		if (v2) {
			snprintf(f, sizeof(f), "hugetlb.%s.current", h.page_size);
			if (!cv_cg_has_file(d, f))
				continue;
			if (read_u64(d, f, &h.usage, err) < 0)
				return -1;
			int rc;
			snprintf(f, sizeof(f), "hugetlb.%s.events", h.page_size);
			cleanup_free char *ev = read_opt(d, f, err, &rc);
			if (rc < 0)
				return rc;
			h.failcnt = kv(ev, "max");
		} else {
			snprintf(f, sizeof(f), "hugetlb.%s.usage_in_bytes", h.page_size);
			if (!cv_cg_has_file(d, f))
				continue;
			if (read_u64(d, f, &h.usage, err) < 0)
				return -1;
			snprintf(f, sizeof(f), "hugetlb.%s.max_usage_in_bytes", h.page_size);
			if (read_u64(d, f, &h.max, err) < 0)
				return -1;
			snprintf(f, sizeof(f), "hugetlb.%s.failcnt", h.page_size);
			if (read_u64(d, f, &h.failcnt, err) < 0)
				return -1;
		}
		oci_hugetlb_stats *v = realloc(s->hugetlb, (s->hugetlb_len + 1) * sizeof(*v));
		if (!v)
			return cv_error(err, ENOMEM, "hugetlb statistics");
		s->hugetlb = v;
		v[s->hugetlb_len++] = h;
	}
	return 0;
}

int cv_cgroup_stats(struct cv_cgroup *cg, oci_stats *out, cv_error_t *err)
{
	oci_stats s = { 0 };
	if (cpu_stats(cg, &s, err) < 0 || memory_stats(cg, &s, err) < 0 || pids_stats(cg, &s, err) < 0 ||
	    blkio_stats(cg, &s, err) < 0 || hugetlb_stats(cg, &s, err) < 0) {
		oci_stats_clear(&s);
		return cv_error_prefix(err, "cgroup statistics");
	}
	*out = s;
	return 0;
}

struct cv_cgroup_oom {
	struct cv_cg_dir *dir;
	bool v2;
	int fd;          /* v1: the eventfd; v2: inotify */
	int oom_control; /* v1: memory.oom_control, kept open while registered */
	uint64_t last;   /* v2: oom_kill count seen */
};

static int v2_oom_kills(struct cv_cg_dir *d, uint64_t *out, cv_error_t *err)
{
	char buf[1024];
	if (cv_cg_read(d, "memory.events", buf, sizeof(buf), err) < 0)
		return cv_error_prefix(err, "%s", d->path);
	*out = kv(buf, "oom_kill");
	return 0;
}

int cv_cgroup_oom_open(struct cv_cgroup *cg, struct cv_cgroup_oom **out, cv_error_t *err)
{
	struct cv_cgroup_oom *o = calloc(1, sizeof(*o));
	if (!o)
		return cv_error(err, ENOMEM, "oom notifications");
	o->fd = o->oom_control = -1;
	cleanup_free struct cv_cgroup_oom *guard = o;
	struct cv_cg_dir *d = cv_cg_find(cg, "memory");
	if (d) {
		int dfd = cv_cg_dir_fd(d, err);
		if (dfd < 0)
			return dfd;
		o->oom_control = openat(dfd, "memory.oom_control", O_RDONLY | O_CLOEXEC);
		if (o->oom_control < 0)
			return cv_error_errno(err, "open %s/memory.oom_control", d->path);
		o->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (o->fd < 0) {
			cv_error_errno(err, "eventfd");
			goto fail;
		}
		if (cv_cg_writef(d, "cgroup.event_control", err, "%d %d", o->fd, o->oom_control) < 0) {
			cv_error_prefix(err, "%s", d->path);
			goto fail;
		}
	} else {
		d = cv_cg_find(cg, "unified");
		if (!d || !cv_cg_has_file(d, "memory.events"))
			return cv_error(err, ENOENT, "no memory cgroup to watch for OOM events");
		o->v2 = true;
		o->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		if (o->fd < 0)
			return cv_error_errno(err, "inotify_init1");
		char path[4096];
		snprintf(path, sizeof(path), "%s/memory.events", d->path);
		if (inotify_add_watch(o->fd, path, IN_MODIFY) < 0) {
			cv_error_errno(err, "inotify_add_watch %s", path);
			goto fail;
		}
		if (v2_oom_kills(d, &o->last, err) < 0)
			goto fail;
	}
	o->dir = d;
	guard = NULL;
	*out = o;
	return 0;
fail:
	if (o->fd >= 0)
		close(o->fd);
	if (o->oom_control >= 0)
		close(o->oom_control);
	return -1;
}

int cv_cgroup_oom_fd(const struct cv_cgroup_oom *o)
{
	return o->fd;
}

int cv_cgroup_oom_read(struct cv_cgroup_oom *o, uint64_t *events, cv_error_t *err)
{
	*events = 0;
	if (!o->v2) {
		uint64_t n;
		if (read(o->fd, &n, sizeof(n)) == (ssize_t)sizeof(n))
			*events = n;
		else if (errno != EAGAIN)
			return cv_error_errno(err, "read the OOM eventfd");
		return 0;
	}
	char buf[4096];
	while (read(o->fd, buf, sizeof(buf)) > 0)
		;
	uint64_t now;
	if (v2_oom_kills(o->dir, &now, err) < 0)
		return -1;
	if (now > o->last)
		*events = now - o->last;
	o->last = now;
	return 0;
}

void cv_cgroup_oom_free(struct cv_cgroup_oom *o)
{
	if (!o)
		return;
	if (o->fd >= 0)
		close(o->fd);
	if (o->oom_control >= 0)
		close(o->oom_control);
	free(o);
}
