/* linux.resources on cgroup v1 (and on the hybrid layout, whose resources
 * live in the v1 hierarchies; hugetlb and `unified` go to the cgroup2 mount
 * there when v1 lacks them). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "cgroups/cgroups-internal.h"
#include "cleanup.h"
#include "io.h"
#include "log.h"

int cv_cg_v1_copy_cpuset(int parentfd, int childfd, cv_error_t *err)
{
	static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };

	for (size_t i = 0; i < 2; i++) {
		char buf[4096];
		cleanup_close int out = -1;
		ssize_t n = cv_read_buf_at(parentfd, files[i], buf, sizeof(buf));

		if (n < 0)
			return cv_error(err, (int)-n, "read parent %s", files[i]);
		if (n == 0 || buf[0] == '\n')
			continue;
		out = openat(childfd, files[i], O_WRONLY | O_CLOEXEC);
		if (out < 0 || write(out, buf, n) != n)
			return cv_error_errno(err, "write %s \"%.*s\"", files[i], (int)strcspn(buf, "\n"), buf);
	}
	return 0;
}

/* The directory of `controller`, or an error naming the resource. */
static struct cv_cg_dir *need(struct cv_cgroup *cg, const char *controller, const char *field, cv_error_t *err)
{
	struct cv_cg_dir *d = cv_cg_find(cg, controller);
	char why[256];

	if (!d)
		cv_error_plain(err, ENOENT, "%s: %s", field, cv_cg_missing_why(cg, controller, why, sizeof(why)));
	return d;
}

static int wr_i64(struct cv_cg_dir *d, const char *file, int64_t v, cv_error_t *err)
{
	return cv_cg_writef(d, file, err, "%" PRId64, v);
}

/* A write the kernel may no longer offer (kernel memory limits were removed
 * from recent kernels): a warning, not an error. */
static int wr_optional(struct cv_cg_dir *d, const char *file, int64_t v, const char *field, cv_error_t *err)
{
	if (wr_i64(d, file, v, err) == 0) {
		/* Since Linux 6.1 memory.kmem.limit_in_bytes takes any value and
		 * enforces none: read it back to tell. */
		char buf[64];
		long page = sysconf(_SC_PAGESIZE);
		unsigned long long got;

		if (v < 0 || page <= 0 || cv_cg_read(d, file, buf, sizeof(buf), err) < 0) {
			cv_error_release(err);
			return 0;
		}
		got = strtoull(buf, NULL, 10);
		if (got != (unsigned long long)v / (unsigned long long)page * (unsigned long long)page)
			cv_warn("%s ignored: the kernel accepts %s \"%" PRId64
				"\" but keeps %llu (no kernel memory limits)",
				field, file, v, got);
		return 0;
	}
	if ((*err)->errnum == ENOENT || (*err)->errnum == EOPNOTSUPP || (*err)->errnum == EINVAL) {
		cv_warn("%s ignored: %s", field, (*err)->msg);
		cv_error_release(err);
		return 0;
	}
	return -1;
}

static int check_usage(struct cv_cg_dir *d, const char *file, int64_t limit, cv_error_t *err)
{
	char buf[64];

	if (limit <= 0)
		return 0;
	if (cv_cg_read(d, file, buf, sizeof(buf), err) < 0)
		return -1;
	if (strtoull(buf, NULL, 10) > (uint64_t)limit)
		return cv_error(err, EBUSY,
				"linux.resources.memory.limit %" PRId64
				" is below the current usage %llu (checkBeforeUpdate)",
				limit, strtoull(buf, NULL, 10));
	return 0;
}

static int memory(struct cv_cgroup *cg, const oci_memory *m, bool update, cv_error_t *err)
{
	struct cv_cg_dir *d = need(cg, "memory", "linux.resources.memory", err);

	if (!d)
		return -1;
	if (update && m->check_before_update.set && m->check_before_update.v && m->limit.set &&
	    check_usage(d, "memory.usage_in_bytes", m->limit.v, err) < 0)
		return -1;
	if (m->limit.set) {
		/* memsw must stay >= limit: raising both needs memsw first. */
		if (wr_i64(d, "memory.limit_in_bytes", m->limit.v, err) < 0) {
			/* An unlimited memory limit with no swap given lifts
			 * memory+swap too, as runc's update does. */
			int64_t swap = m->swap.set ? m->swap.v : -1;
			if ((!m->swap.set && m->limit.v != -1) || (*err)->errnum != EINVAL)
				return -1;
			cv_error_release(err);
			if (wr_i64(d, "memory.memsw.limit_in_bytes", swap, err) < 0 ||
			    wr_i64(d, "memory.limit_in_bytes", m->limit.v, err) < 0)
				return -1;
		} else if (m->swap.set && wr_i64(d, "memory.memsw.limit_in_bytes", m->swap.v, err) < 0) {
			if ((*err)->errnum != ENOENT || m->swap.v != -1)
				return -1;
			cv_error_release(err); /* no swap accounting: unlimited is what we have */
		}
	} else if (m->swap.set && wr_i64(d, "memory.memsw.limit_in_bytes", m->swap.v, err) < 0)
		return -1;
	if (m->reservation.set && wr_i64(d, "memory.soft_limit_in_bytes", m->reservation.v, err) < 0)
		return -1;
	if (m->kernel.set &&
	    wr_optional(d, "memory.kmem.limit_in_bytes", m->kernel.v, "linux.resources.memory.kernel", err) < 0)
		return -1;
	if (m->kernel_tcp.set && wr_optional(d, "memory.kmem.tcp.limit_in_bytes", m->kernel_tcp.v,
					     "linux.resources.memory.kernelTCP", err) < 0)
		return -1;
	if (m->swappiness.set) {
		if (m->swappiness.v > 100)
			return cv_error(err, EINVAL, "linux.resources.memory.swappiness: %" PRIu64 " is not in 0..100",
					m->swappiness.v);
		if (cv_cg_writef(d, "memory.swappiness", err, "%" PRIu64, m->swappiness.v) < 0)
			return -1;
	}
	if (m->disable_oom_killer.set && (m->disable_oom_killer.v || update) &&
	    cv_cg_write(d, "memory.oom_control", m->disable_oom_killer.v ? "1" : "0", err) < 0)
		return -1;
	if (m->use_hierarchy.set && cv_cg_write(d, "memory.use_hierarchy", m->use_hierarchy.v ? "1" : "0", err) < 0)
		return -1;
	return 0;
}

static int cpu(struct cv_cgroup *cg, const oci_cpu *c, cv_error_t *err)
{
	struct cv_cg_dir *d;

	if (c->shares.set || c->quota.set || c->period.set || c->burst.set || c->realtime_period.set ||
	    c->realtime_runtime.set || c->idle.set) {
		if (!(d = need(cg, "cpu", "linux.resources.cpu", err)))
			return -1;
		if (c->shares.set && cv_cg_writef(d, "cpu.shares", err, "%" PRIu64, c->shares.v) < 0)
			return -1;
		if (c->period.set && c->period.v) {
			if (cv_cg_writef(d, "cpu.cfs_period_us", err, "%" PRIu64, c->period.v) < 0) {
				/* A shorter period than the current quota: quota first. */
				if (!c->quota.set || (*err)->errnum != EINVAL)
					return -1;
				cv_error_release(err);
				if (wr_i64(d, "cpu.cfs_quota_us", c->quota.v, err) < 0 ||
				    cv_cg_writef(d, "cpu.cfs_period_us", err, "%" PRIu64, c->period.v) < 0)
					return -1;
			}
		}
		if (c->quota.set && wr_i64(d, "cpu.cfs_quota_us", c->quota.v, err) < 0)
			return -1;
		if (c->burst.set && cv_cg_writef(d, "cpu.cfs_burst_us", err, "%" PRIu64, c->burst.v) < 0)
			return -1;
		if (c->realtime_period.set &&
		    cv_cg_writef(d, "cpu.rt_period_us", err, "%" PRIu64, c->realtime_period.v) < 0)
			return -1;
		if (c->realtime_runtime.set && wr_i64(d, "cpu.rt_runtime_us", c->realtime_runtime.v, err) < 0)
			return -1;
		if (c->idle.set && wr_i64(d, "cpu.idle", c->idle.v, err) < 0)
			return -1;
	}
	if ((c->cpus && *c->cpus) || (c->mems && *c->mems)) {
		if (!(d = need(cg, "cpuset", "linux.resources.cpu.cpus/mems", err)))
			return -1;
		if (cv_cg_write_cpuset(d, c, err) < 0)
			return -1;
	}
	return 0;
}

static int throttle(struct cv_cg_dir *d, const char *file, const oci_throttle_list *l, cv_error_t *err)
{
	for (size_t i = 0; i < l->len; i++)
		if (cv_cg_writef(d, file, err, "%" PRId64 ":%" PRId64 " %" PRIu64, l->v[i].major, l->v[i].minor,
				 l->v[i].rate) < 0)
			return -1;
	return 0;
}

static int blkio(struct cv_cgroup *cg, const oci_block_io *b, cv_error_t *err)
{
	struct cv_cg_dir *d = need(cg, "blkio", "linux.resources.blockIO", err);
	const char *wfile = "blkio.weight", *wdfile = "blkio.weight_device";

	if (!d)
		return -1;
	/* Kernels without CFQ expose only the BFQ files; with neither
	 * scheduler built in, no weight can be given (as runc, an error). */
	bool weights = b->weight.set;
	for (size_t i = 0; i < b->weight_device_len; i++)
		weights = weights || b->weight_device[i].weight.set;
	if (weights && !cv_cg_has_file(d, "blkio.weight")) {
		if (!cv_cg_has_file(d, "blkio.bfq.weight"))
			return cv_error_plain(err, EOPNOTSUPP,
					      "linux.resources.blockIO.%s: this kernel has no blkio.weight nor "
					      "blkio.bfq.weight (weights need the BFQ or CFQ I/O scheduler)",
					      b->weight.set ? "weight" : "weightDevice");
		wfile = "blkio.bfq.weight";
		wdfile = "blkio.bfq.weight_device";
	}
	if (b->weight.set && cv_cg_writef(d, wfile, err, "%" PRIu32, b->weight.v) < 0)
		return -1;
	/* Leaf weights were CFQ's, removed in Linux 5.0: warn as on v2. */
	bool leaf = cv_cg_has_file(d, "blkio.leaf_weight");
	if ((b->leaf_weight.set || b->weight_device_len) && !leaf) {
		bool any = b->leaf_weight.set;
		for (size_t i = 0; i < b->weight_device_len; i++)
			any = any || b->weight_device[i].leaf_weight.set;
		if (any)
			cv_warn("linux.resources.blockIO.leafWeight ignored: the kernel has no blkio.leaf_weight (no CFQ)");
	}
	if (leaf && b->leaf_weight.set && cv_cg_writef(d, "blkio.leaf_weight", err, "%" PRIu32, b->leaf_weight.v) < 0)
		return -1;
	for (size_t i = 0; i < b->weight_device_len; i++) {
		const oci_weight_device *w = &b->weight_device[i];
		if (w->weight.set && cv_cg_writef(d, wdfile, err, "%" PRId64 ":%" PRId64 " %" PRIu32, w->major,
						  w->minor, w->weight.v) < 0)
			return -1;
		if (leaf && w->leaf_weight.set &&
		    cv_cg_writef(d, "blkio.leaf_weight_device", err, "%" PRId64 ":%" PRId64 " %" PRIu32, w->major,
				 w->minor, w->leaf_weight.v) < 0)
			return -1;
	}
	if (throttle(d, "blkio.throttle.read_bps_device", &b->throttle_read_bps, err) < 0 ||
	    throttle(d, "blkio.throttle.write_bps_device", &b->throttle_write_bps, err) < 0 ||
	    throttle(d, "blkio.throttle.read_iops_device", &b->throttle_read_iops, err) < 0 ||
	    throttle(d, "blkio.throttle.write_iops_device", &b->throttle_write_iops, err) < 0)
		return -1;
	return 0;
}

static int hugetlb(struct cv_cgroup *cg, const oci_resources *r, cv_error_t *err)
{
	struct cv_cg_dir *d = cv_cg_find(cg, "hugetlb");

	if (!d) {
		/* Hybrid hosts may have hugetlb only in the cgroup2 mount. */
		struct cv_cg_dir *u = cv_cg_find(cg, "unified");
		char why[256];
		if (u)
			return cv_cg_v2_hugetlb(u, r, err);
		return cv_error_plain(err, ENOENT, "linux.resources.hugepageLimits: %s",
				      cv_cg_missing_why(cg, "hugetlb", why, sizeof(why)));
	}
	for (size_t i = 0; i < r->hugepage_limits_len; i++) {
		const oci_hugepage_limit *h = &r->hugepage_limits[i];
		char file[96];

		if (!cv_cg_valid_page_size(h->page_size))
			return cv_error(err, EINVAL, "linux.resources.hugepageLimits: invalid pageSize \"%s\"",
					h->page_size ? h->page_size : "");
		snprintf(file, sizeof(file), "hugetlb.%s.limit_in_bytes", h->page_size);
		if (cv_cg_writef(d, file, err, "%" PRIu64, h->limit) < 0)
			return -1;
		snprintf(file, sizeof(file), "hugetlb.%s.rsvd.limit_in_bytes", h->page_size);
		if (cv_cg_has_file(d, file) && cv_cg_writef(d, file, err, "%" PRIu64, h->limit) < 0)
			return -1;
	}
	return 0;
}

static int network(struct cv_cgroup *cg, const oci_network *n, cv_error_t *err)
{
	struct cv_cg_dir *d;

	if (n->class_id.set) {
		if (!(d = need(cg, "net_cls", "linux.resources.network.classID", err)))
			return -1;
		if (cv_cg_writef(d, "net_cls.classid", err, "%" PRIu32, n->class_id.v) < 0)
			return -1;
	}
	if (n->priorities_len) {
		if (!(d = need(cg, "net_prio", "linux.resources.network.priorities", err)))
			return -1;
		for (size_t i = 0; i < n->priorities_len; i++) {
			const char *name = n->priorities[i].name;
			if (!name || !*name || strpbrk(name, " \n/"))
				return cv_error(err, EINVAL,
						"linux.resources.network.priorities: invalid interface name \"%s\"",
						name ? name : "");
			if (cv_cg_writef(d, "net_prio.ifpriomap", err, "%s %" PRIu32, name, n->priorities[i].priority) <
			    0)
				return -1;
		}
	}
	return 0;
}

static int rdma(struct cv_cgroup *cg, const oci_resources *r, cv_error_t *err)
{
	struct cv_cg_dir *d = need(cg, "rdma", "linux.resources.rdma", err);

	if (!d)
		return -1;
	for (size_t i = 0; i < r->rdma_len; i++) {
		char line[160];
		if (cv_cg_fmt_rdma(&r->rdma[i], line, sizeof(line), err) < 0 ||
		    cv_cg_write(d, "rdma.max", line, err) < 0)
			return -1;
	}
	return 0;
}

const oci_device_cgroup cv_cg_default_device_rules[] = {
	{ .allow = true, .type = "c", .major = { false, 0 }, .minor = { false, 0 }, .access = "m" },
	{ .allow = true, .type = "b", .major = { false, 0 }, .minor = { false, 0 }, .access = "m" },
	{ .allow = true, .type = "c", .major = { true, 1 }, .minor = { true, 3 }, .access = "rwm" },    /* null */
	{ .allow = true, .type = "c", .major = { true, 1 }, .minor = { true, 5 }, .access = "rwm" },    /* zero */
	{ .allow = true, .type = "c", .major = { true, 1 }, .minor = { true, 7 }, .access = "rwm" },    /* full */
	{ .allow = true, .type = "c", .major = { true, 1 }, .minor = { true, 8 }, .access = "rwm" },    /* random */
	{ .allow = true, .type = "c", .major = { true, 1 }, .minor = { true, 9 }, .access = "rwm" },    /* urandom */
	{ .allow = true, .type = "c", .major = { true, 5 }, .minor = { true, 0 }, .access = "rwm" },    /* tty */
	{ .allow = true, .type = "c", .major = { true, 5 }, .minor = { true, 1 }, .access = "rwm" },    /* console */
	{ .allow = true, .type = "c", .major = { true, 5 }, .minor = { true, 2 }, .access = "rwm" },    /* ptmx */
	{ .allow = true, .type = "c", .major = { true, 136 }, .minor = { false, 0 }, .access = "rwm" }, /* pts */
};
const size_t cv_cg_default_device_rules_len = sizeof(cv_cg_default_device_rules) /
					      sizeof(cv_cg_default_device_rules[0]);

/* devices.allow and devices.deny, each opened once for all its rules (a
 * rule a write(2)): a dozen kernfs opens saved per container. */
struct device_files {
	int fd[2]; /* deny, allow; -1 until the first rule */
};

static void device_files_close(struct device_files *f)
{
	for (int i = 0; i < 2; i++)
		cv_closep(&f->fd[i]);
}

static int device_write(struct cv_cg_dir *d, struct device_files *f, bool allow, const char *line, cv_error_t *err)
{
	const char *file = allow ? "devices.allow" : "devices.deny";
	int *fd = &f->fd[allow];
	if (*fd < 0) {
		int dfd = cv_cg_dir_fd(d, err);
		if (dfd < 0)
			return dfd;
		*fd = openat(dfd, file, O_WRONLY | O_CLOEXEC);
		if (*fd < 0)
			return cv_error_errno(err, "write %s \"%s\"", file, line);
	}
	size_t len = strlen(line);
	if (write(*fd, line, len) != (ssize_t)len)
		return cv_error_errno(err, "write %s \"%s\"", file, line);
	cv_debug("cgroup: %s/%s = %s", d->path, file, line);
	return 0;
}

static int device_rule(struct cv_cg_dir *d, struct device_files *f, const oci_device_cgroup *r, cv_error_t *err)
{
	char line[64];

	if (cv_cg_fmt_device_rule(r, line, sizeof(line), err) < 0)
		return -1;
	return device_write(d, f, r->allow, line, err);
}

static int devices(struct cv_cgroup *cg, const oci_resources *r, cv_error_t *err)
{
	struct cv_cg_dir *d = cv_cg_find(cg, "devices");

	if (!d) {
		char why[256];
		/* Without the hierarchy (not mounted, or left out by the
		 * annotation) the default rules have nowhere to go. */
		if (r && r->devices_len)
			return cv_error_plain(err, ENOENT, "linux.resources.devices: %s",
					      cv_cg_missing_why(cg, "devices", why, sizeof(why)));
		return 0;
	}
	__attribute__((cleanup(device_files_close))) struct device_files f = { { -1, -1 } };
	/* Deny everything, then the container's rules in order (later ones
	 * win), then the nodes every container needs. */
	if (device_write(d, &f, false, "a", err) < 0)
		return -1;
	for (size_t i = 0; r && i < r->devices_len; i++)
		if (device_rule(d, &f, &r->devices[i], err) < 0)
			return -1;
	for (size_t i = 0; i < cv_cg_default_device_rules_len; i++)
		if (device_rule(d, &f, &cv_cg_default_device_rules[i], err) < 0)
			return -1;
	if (cg->n_node_devices) {
		cleanup_free oci_device_cgroup *nodes = NULL;
		size_t n;
		if (cv_cg_node_device_rules(cg->node_devices, cg->n_node_devices, &nodes, &n, err) < 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (device_rule(d, &f, &nodes[i], err) < 0)
				return -1;
	}
	return 0;
}

int cv_cg_node_device_rules(const oci_device *d, size_t n, oci_device_cgroup **out, size_t *nout, cv_error_t *err)
{
	oci_device_cgroup *v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return cv_error(err, ENOMEM, "device rules");
	for (size_t i = 0; i < n; i++) {
		const char *t = d[i].type;
		if (!t || strcmp(t, "p") == 0)
			continue;
		v[k] = (oci_device_cgroup){ .allow = true,
					    .type = strcmp(t, "b") == 0 ? "b" : "c",
					    .major = { true, d[i].major },
					    .minor = { true, d[i].minor },
					    .access = "rwm" };
		k++;
	}
	*out = v;
	*nout = k;
	return 0;
}

int cv_cg_v1_apply(struct cv_cgroup *cg, const oci_resources *res, bool update, cv_error_t *err)
{
	int r = 0;

	if (!update && !cg->rootless)
		r = devices(cg, res, err);
	if (!res || r < 0)
		return r;
	if (cv_cg_memory_set(res->memory))
		r = memory(cg, res->memory, update, err);
	if (r == 0 && res->cpu)
		r = cpu(cg, res->cpu, err);
	if (r == 0 && res->has_pids && res->pids_limit.set) {
		struct cv_cg_dir *d = need(cg, "pids", "linux.resources.pids", err);
		char v[32];
		cv_cg_fmt_pids(res->pids_limit.v, v, sizeof(v));
		r = d ? cv_cg_write(d, "pids.max", v, err) : -1;
	}
	if (r == 0 && cv_cg_blkio_set(res->block_io))
		r = blkio(cg, res->block_io, err);
	if (r == 0 && res->hugepage_limits_len)
		r = hugetlb(cg, res, err);
	if (r == 0 && res->network)
		r = network(cg, res->network, err);
	if (r == 0 && res->rdma_len)
		r = rdma(cg, res, err);
	if (r == 0 && res->unified.len) {
		struct cv_cg_dir *u = cg->layout == CV_CGROUP_HYBRID ? cv_cg_find(cg, "unified") : NULL;
		if (!u && cg->filter)
			return cv_error_plain(err, ENOENT,
					      "linux.resources.unified: the container has no cgroup v2 "
					      "directory (annotation %s \"%s\")",
					      CV_CGROUP_ANNOTATION_CONTROLLERS, cg->filter);
		if (!u)
			return cv_error(err, ENOTSUP, "linux.resources.unified requires cgroup v2");
		r = cv_cg_v2_write_unified(u, &res->unified, err);
	}
	return r;
}
