/* linux.resources on cgroup v2: one directory, the unified file names. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroups/cgroups-internal.h"
#include "cleanup.h"
#include "io.h"
#include "log.h"

int cv_cg_v2_enable(int parentfd, const char *only, cv_error_t *err)
{
	char avail[512], req[1024];
	cleanup_close int fd = -1;
	size_t n = 0;
	ssize_t len;

	if ((len = cv_read_buf_at(parentfd, "cgroup.controllers", avail, sizeof(avail))) < 0)
		return cv_error(err, (int)-len, "read cgroup.controllers");
	for (char *save = NULL, *c = strtok_r(avail, " \n", &save); c; c = strtok_r(NULL, " \n", &save)) {
		if (only && strcmp(c, only) != 0)
			continue;
		n += snprintf(req + n, sizeof(req) - n, "%s+%s", n ? " " : "", c);
		if (n >= sizeof(req))
			return cv_error(err, E2BIG, "cgroup.controllers: too many controllers");
	}
	if (n == 0) {
		if (only)
			return cv_error(err, ENOENT, "the %s controller is not available in cgroup.controllers", only);
		return 0;
	}
	fd = openat(parentfd, "cgroup.subtree_control", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "write cgroup.subtree_control \"%s\"", req);
	if (write(fd, req, n) == (ssize_t)n)
		return 0;
	if (only)
		return cv_error_errno(err, "write cgroup.subtree_control \"%s\"", req);
	/* One at a time: a controller that cannot be enabled (e.g. a threaded
	 * subtree, or processes in the parent) must not block the others; a
	 * resource that needs it fails later naming its file. */
	for (char *save = NULL, *c = strtok_r(req, " ", &save); c; c = strtok_r(NULL, " ", &save))
		if (write(fd, c, strlen(c)) < 0)
			cv_debug("cgroup: cannot enable %s: %m", c);
	return 0;
}

static int wr_max(struct cv_cg_dir *d, const char *file, int64_t v, cv_error_t *err)
{
	char buf[32];

	cv_cg_fmt_max(v, buf, sizeof(buf));
	return cv_cg_write(d, file, buf, err);
}

static int memory(struct cv_cg_dir *d, const oci_memory *m, bool update, cv_error_t *err)
{
	if (update && m->check_before_update.set && m->check_before_update.v && m->limit.set && m->limit.v > 0) {
		char buf[64];
		if (cv_cg_read(d, "memory.current", buf, sizeof(buf), err) < 0)
			return -1;
		if (strtoull(buf, NULL, 10) > (uint64_t)m->limit.v)
			return cv_error(err, EBUSY,
					"linux.resources.memory.limit %" PRId64
					" is below the current usage %llu (checkBeforeUpdate)",
					m->limit.v, strtoull(buf, NULL, 10));
	}
	if (m->limit.set && wr_max(d, "memory.max", m->limit.v, err) < 0)
		return -1;
	if (m->swap.set) {
		int64_t swap;
		if (cv_cg_swap_to_v2(m->swap.v, m->limit.set ? m->limit.v : 0, &swap, err) < 0)
			return -1;
		if (wr_max(d, "memory.swap.max", swap, err) < 0) {
			/* No swap accounting: unlimited is what we already have. */
			if ((*err)->errnum != ENOENT || swap != -1)
				return -1;
			cv_error_release(err);
		}
	}
	if (m->reservation.set && wr_max(d, "memory.low", m->reservation.v, err) < 0)
		return -1;
	if (m->kernel.set)
		cv_warn("linux.resources.memory.kernel ignored: cgroup v2 has no separate kernel memory limit");
	if (m->kernel_tcp.set)
		cv_warn("linux.resources.memory.kernelTCP ignored: cgroup v2 has no separate TCP memory limit");
	if (m->swappiness.set)
		cv_warn("linux.resources.memory.swappiness ignored: cgroup v2 has no per-cgroup swappiness");
	if (m->disable_oom_killer.set && m->disable_oom_killer.v)
		cv_warn("linux.resources.memory.disableOOMKiller ignored: cgroup v2 cannot disable the OOM killer");
	/* useHierarchy: v2 is always hierarchical. */
	return 0;
}

static int cpu(struct cv_cg_dir *d, const oci_cpu *c, bool update, cv_error_t *err)
{
	if (c->realtime_runtime.set || c->realtime_period.set)
		return cv_error(err, ENOTSUP,
				"linux.resources.cpu.realtimeRuntime/realtimePeriod: not supported on cgroup v2");
	if (c->shares.set && c->shares.v &&
	    cv_cg_writef(d, "cpu.weight", err, "%" PRIu64, cv_cg_shares_to_weight(c->shares.v)) < 0)
		return -1;
	if (c->quota.set || (c->period.set && c->period.v)) {
		char cur[64] = "", out[96];
		uint64_t cur_period = 0;
		/* On update, a lone period keeps the current quota and vice versa. */
		if (update && (!c->quota.set || !c->period.set)) {
			if (cv_cg_read(d, "cpu.max", cur, sizeof(cur), err) < 0)
				return -1;
			char *sp = strchr(cur, ' ');
			if (sp) {
				*sp = '\0';
				cur_period = strtoull(sp + 1, NULL, 10);
			}
		}
		cv_cg_fmt_cpu_max(c->quota.set, c->quota.v, c->period.set, c->period.v, cur, cur_period, out,
				  sizeof(out));
		if (cv_cg_write(d, "cpu.max", out, err) < 0)
			return -1;
	}
	if (c->burst.set && cv_cg_writef(d, "cpu.max.burst", err, "%" PRIu64, c->burst.v) < 0)
		return -1;
	if (c->idle.set && cv_cg_writef(d, "cpu.idle", err, "%" PRId64, c->idle.v) < 0)
		return -1;
	return cv_cg_write_cpuset(d, c, err);
}

static int io_max(struct cv_cg_dir *d, const char *key, const oci_throttle_list *l, cv_error_t *err)
{
	for (size_t i = 0; i < l->len; i++)
		if (cv_cg_writef(d, "io.max", err, "%" PRId64 ":%" PRId64 " %s=%" PRIu64, l->v[i].major, l->v[i].minor,
				 key, l->v[i].rate) < 0)
			return -1;
	return 0;
}

static int io(struct cv_cg_dir *d, const oci_block_io *b, cv_error_t *err)
{
	/* With BFQ, io.bfq.weight takes blkio's own range; else convert. */
	bool bfq = (b->weight.set || b->weight_device_len) && cv_cg_has_file(d, "io.bfq.weight");

	if (b->weight.set && b->weight.v) {
		if (bfq) {
			if (cv_cg_writef(d, "io.bfq.weight", err, "%" PRIu32, b->weight.v) < 0)
				return -1;
		} else if (cv_cg_writef(d, "io.weight", err, "default %" PRIu64,
					cv_cg_blkio_to_io_weight(b->weight.v)) < 0)
			return -1;
	}
	if (b->leaf_weight.set)
		cv_warn("linux.resources.blockIO.leafWeight ignored: cgroup v2 has no leaf weight");
	for (size_t i = 0; i < b->weight_device_len; i++) {
		const oci_weight_device *w = &b->weight_device[i];
		if (!w->weight.set)
			continue;
		if (bfq) {
			if (cv_cg_writef(d, "io.bfq.weight", err, "%" PRId64 ":%" PRId64 " %" PRIu32, w->major,
					 w->minor, w->weight.v) < 0)
				return -1;
		} else if (cv_cg_writef(d, "io.weight", err, "%" PRId64 ":%" PRId64 " %" PRIu64, w->major, w->minor,
					cv_cg_blkio_to_io_weight(w->weight.v)) < 0)
			return -1;
	}
	if (io_max(d, "rbps", &b->throttle_read_bps, err) < 0 || io_max(d, "wbps", &b->throttle_write_bps, err) < 0 ||
	    io_max(d, "riops", &b->throttle_read_iops, err) < 0 || io_max(d, "wiops", &b->throttle_write_iops, err) < 0)
		return -1;
	return 0;
}

int cv_cg_v2_hugetlb(struct cv_cg_dir *d, const oci_resources *r, cv_error_t *err)
{
	for (size_t i = 0; i < r->hugepage_limits_len; i++) {
		const oci_hugepage_limit *h = &r->hugepage_limits[i];
		char file[96];

		if (!cv_cg_valid_page_size(h->page_size))
			return cv_error(err, EINVAL, "linux.resources.hugepageLimits: invalid pageSize \"%s\"",
					h->page_size ? h->page_size : "");
		snprintf(file, sizeof(file), "hugetlb.%s.max", h->page_size);
		if (!cv_cg_has_file(d, file)) {
			/* Hybrid: the cgroup2 parent may not have hugetlb enabled for
			 * its children yet. */
			cleanup_free char *parent = strdup(d->path);
			char *s = parent ? strrchr(parent, '/') : NULL;
			cleanup_close int pfd = -1;
			if (!s)
				return cv_error(err, ENOMEM, "cgroup path");
			*s = '\0';
			pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (pfd < 0)
				return cv_error_errno(err, "open cgroup `%s`", parent);
			if (cv_cg_v2_enable(pfd, "hugetlb", err) < 0)
				return cv_error_prefix(err, "linux.resources.hugepageLimits");
		}
		if (cv_cg_writef(d, file, err, "%" PRIu64, h->limit) < 0)
			return -1;
		snprintf(file, sizeof(file), "hugetlb.%s.rsvd.max", h->page_size);
		if (cv_cg_has_file(d, file) && cv_cg_writef(d, file, err, "%" PRIu64, h->limit) < 0)
			return -1;
	}
	return 0;
}

int cv_cg_v2_write_unified(struct cv_cg_dir *d, const oci_kv_list *u, cv_error_t *err)
{
	for (size_t i = 0; i < u->len; i++) {
		if (!cv_cg_valid_unified_key(u->v[i].key))
			return cv_error(err, EINVAL, "linux.resources.unified: invalid key \"%s\"",
					u->v[i].key ? u->v[i].key : "");
		if (cv_cg_write(d, u->v[i].key, u->v[i].value ? u->v[i].value : "", err) < 0)
			return cv_error_prefix(err, "linux.resources.unified");
	}
	return 0;
}

int cv_cg_v2_apply(struct cv_cgroup *cg, struct cv_cg_dir *d, const oci_resources *r, bool update, cv_error_t *err)
{
	(void)cg;
	if (!r)
		return 0;
	if (r->memory && memory(d, r->memory, update, err) < 0)
		return -1;
	if (r->cpu && cpu(d, r->cpu, update, err) < 0)
		return -1;
	if (r->has_pids && r->pids_limit.set) {
		char v[32];
		cv_cg_fmt_pids(r->pids_limit.v, v, sizeof(v));
		if (cv_cg_write(d, "pids.max", v, err) < 0)
			return -1;
	}
	if (r->block_io && io(d, r->block_io, err) < 0)
		return -1;
	if (r->hugepage_limits_len && cv_cg_v2_hugetlb(d, r, err) < 0)
		return -1;
	if (r->network && (r->network->class_id.set || r->network->priorities_len))
		return cv_error(
			err, ENOTSUP,
			"linux.resources.network: classID and priorities need the cgroup v1 net_cls/net_prio controllers, which cgroup v2 does not have");
	for (size_t i = 0; i < r->rdma_len; i++) {
		char line[160];
		if (cv_cg_fmt_rdma(&r->rdma[i], line, sizeof(line), err) < 0 ||
		    cv_cg_write(d, "rdma.max", line, err) < 0)
			return -1;
	}
	if (r->unified.len && cv_cg_v2_write_unified(d, &r->unified, err) < 0)
		return -1;
	return 0;
}
