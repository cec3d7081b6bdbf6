/* Container-level cgroup verbs of the public API: update, stats, events.
 * Each loads the container's saved cgroup (state.json cgroup_paths) and
 * works through the cgroups module. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cgroups/cgroups.h"
#include "cleanup.h"
#include "clock.h"
#include "cvisor.h"
#include "lifecycle/abi.h"
#include "log.h"
#include "oci/resources.h"
#include "oci/stats.h"
#include "lifecycle/create.h"
#include "lifecycle/status.h"

/* The container, live (not stopped), with its cgroup loaded. */
static int load_live(const struct cvisor_context *ctx, const char *id, struct cv_container **out, const char **status,
		     cv_error_t *err)
{
	cleanup_container struct cv_container *c = NULL;
	int r = cv_container_load(ctx, id, &c, err);
	if (r < 0)
		return r;
	if ((r = cv_container_status(c, status, err)) < 0)
		return r;
	if (strcmp(*status, "stopped") == 0)
		return cv_error_plain(err, ESRCH, "container not running");
	if (!c->state->cgroup_paths.len)
		return cv_error(err, ENOENT, "container \"%s\" has no cgroup", id);
	*out = steal_pointer(&c);
	return 0;
}

/* runc's memory sizes: "-1" (unlimited), or a number with an optional
 * binary unit b, k, m, g, t, p (also "kb", "MiB"...; case does not matter). */
static int parse_size(const char *flag, const char *s, int64_t *out, cv_error_t *err)
{
	if (strcmp(s, "-1") == 0) {
		*out = -1;
		return 0;
	}
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v < 0 || !isdigit((unsigned char)s[0]))
		goto bad;
	static const char units[] = "bkmgtp";
	const char *u = *end ? strchr(units, tolower((unsigned char)*end)) : units;
	if (!u)
		goto bad;
	if (*end) {
		end++;
		if (u != units && (strcasecmp(end, "b") == 0 || strcasecmp(end, "ib") == 0))
			end += strlen(end);
		if (*end)
			goto bad;
	}
	for (const char *p = units; p < u; p++)
		v *= 1024;
	if (v >= 9223372036854775807.0)
		goto bad;
	*out = (int64_t)v;
	return 0;
bad:
	return cv_error_plain(err, EINVAL, "update: --%s: invalid size \"%s\" (e.g. 128m, 1g, -1)", flag, s);
}

static int parse_num(const char *flag, const char *s, bool sign, int64_t *i, uint64_t *u, cv_error_t *err)
{
	char *end;
	errno = 0;
	if (sign)
		*i = strtoll(s, &end, 10);
	else
		*u = strtoull(s, &end, 10);
	if (!*s || *end || errno || (!sign && s[0] == '-'))
		return cv_error_plain(err, EINVAL, "update: --%s: invalid %s \"%s\"", flag,
				      sign ? "integer" : "non-negative integer", s);
	return 0;
}

#define SIZE(flag, field, dst)                                                                                         \
	do {                                                                                                           \
		if (o->field) {                                                                                        \
			if (parse_size(flag, o->field, &(dst).v, err) < 0)                                             \
				return -1;                                                                             \
			(dst).set = true;                                                                              \
		}                                                                                                      \
	} while (0)
#define I64(flag, field, dst)                                                                                          \
	do {                                                                                                           \
		if (o->field) {                                                                                        \
			if (parse_num(flag, o->field, true, &(dst).v, NULL, err) < 0)                                  \
				return -1;                                                                             \
			(dst).set = true;                                                                              \
		}                                                                                                      \
	} while (0)
#define U64(flag, field, dst)                                                                                          \
	do {                                                                                                           \
		if (o->field) {                                                                                        \
			if (parse_num(flag, o->field, false, NULL, &(dst).v, err) < 0)                                 \
				return -1;                                                                             \
			(dst).set = true;                                                                              \
		}                                                                                                      \
	} while (0)

/* runc update's flags as a linux.resources object (only the flags given). */
static int resources_from_flags(const struct cvisor_update_options *o, oci_resources *r, cv_error_t *err)
{
	if (o->memory || o->memory_swap || o->memory_reservation || o->kernel_memory || o->kernel_memory_tcp) {
		if (!(r->memory = calloc(1, sizeof(*r->memory))))
			return cv_error(err, ENOMEM, "update");
		SIZE("memory", memory, r->memory->limit);
		SIZE("memory-swap", memory_swap, r->memory->swap);
		SIZE("memory-reservation", memory_reservation, r->memory->reservation);
		SIZE("kernel-memory", kernel_memory, r->memory->kernel);
		SIZE("kernel-memory-tcp", kernel_memory_tcp, r->memory->kernel_tcp);
	}
	if (o->cpu_shares || o->cpu_quota || o->cpu_period || o->cpu_rt_period || o->cpu_rt_runtime || o->cpuset_cpus ||
	    o->cpuset_mems) {
		if (!(r->cpu = calloc(1, sizeof(*r->cpu))))
			return cv_error(err, ENOMEM, "update");
		U64("cpu-share", cpu_shares, r->cpu->shares);
		I64("cpu-quota", cpu_quota, r->cpu->quota);
		U64("cpu-period", cpu_period, r->cpu->period);
		U64("cpu-rt-period", cpu_rt_period, r->cpu->realtime_period);
		I64("cpu-rt-runtime", cpu_rt_runtime, r->cpu->realtime_runtime);
		if ((o->cpuset_cpus && !(r->cpu->cpus = strdup(o->cpuset_cpus))) ||
		    (o->cpuset_mems && !(r->cpu->mems = strdup(o->cpuset_mems))))
			return cv_error(err, ENOMEM, "update");
	}
	if (o->pids_limit) {
		I64("pids-limit", pids_limit, r->pids_limit);
		r->has_pids = true;
	}
	if (o->blkio_weight) {
		oci_opt_u64 w = { 0 };
		U64("blkio-weight", blkio_weight, w);
		if (w.v > 1000 || (w.v && w.v < 10))
			return cv_error_plain(err, EINVAL, "update: --blkio-weight: %s is out of range (10..1000)",
					      o->blkio_weight);
		if (!(r->block_io = calloc(1, sizeof(*r->block_io))))
			return cv_error(err, ENOMEM, "update");
		r->block_io->weight.set = true;
		r->block_io->weight.v = (uint32_t)w.v;
	}
	return 0;
}

int cvisor_update(const struct cvisor_context *ctx, const char *id, const struct cvisor_update_options *given,
		  cvisor_error **err)
{
	cleanup_container struct cv_container *c = NULL;
	cleanup_oci_resources oci_resources *res = NULL;
	struct cvisor_update_options o, *opts = &o;
	struct cv_cgroup *cg;
	const char *status;
	int r;

	if (!given)
		return cv_error_plain(err, EINVAL, "update: no options given");
	if ((r = cv_abi_update_options(given, &o, err)) < 0)
		return r;
	if (opts->resources_json) {
		const char *name = opts->resources_name ? opts->resources_name : "resources";
		r = oci_resources_parse(opts->resources_json, opts->resources_json_len, name, &res, err);
		if (r < 0)
			return r;
	} else {
		if (!(res = calloc(1, sizeof(*res))))
			return cv_error(err, ENOMEM, "update");
		if ((r = resources_from_flags(opts, res, err)) < 0)
			return r;
		if ((r = oci_resources_validate(res, "update", err)) < 0)
			return r;
	}
	if ((r = load_live(ctx, id, &c, &status, err)) < 0)
		return r;
	if ((r = cv_container_cgroup(c, &cg, err)) < 0)
		return r;
	r = cv_cgroup_update(cg, res, err);
	if (r < 0)
		return cv_error_prefix(err, "update container \"%s\"", id);
	return 0;
}

static int stats_event(struct cv_cgroup *cg, const char *id, char **json, cv_error_t *err)
{
	oci_stats s;
	size_t len;
	int r = cv_cgroup_stats(cg, &s, err);
	if (r < 0)
		return r;
	r = oci_event_emit("stats", id, &s, false, json, &len, err);
	oci_stats_clear(&s);
	return r;
}

int cvisor_stats(const struct cvisor_context *ctx, const char *id, char **json, cvisor_error **err)
{
	cleanup_container struct cv_container *c = NULL;
	struct cv_cgroup *cg;
	const char *status;
	int r = load_live(ctx, id, &c, &status, err);
	if (r < 0)
		return r;
	if ((r = cv_container_cgroup(c, &cg, err)) < 0)
		return r;
	return stats_event(cg, id, json, err);
}

int cvisor_events(const struct cvisor_context *ctx, const char *id, const struct cvisor_events_options *opts,
		  cvisor_event_cb cb, void *userdata, cvisor_error **err)
{
	cleanup_cgroup struct cv_cgroup *cg = NULL;
	cleanup_cgroup_oom struct cv_cgroup_oom *oom = NULL;
	cleanup_close int pidfd = -1;
	cleanup_free char *cid = NULL;
	struct cvisor_events_options o;
	int r;

	if ((r = cv_abi_events_options(opts, &o, err)) < 0)
		return r;
	if (!cb)
		return cv_error(err, EINVAL, "events: a callback is required");
	if (o.cancel_fd > 0 && fcntl(o.cancel_fd, F_GETFD) < 0)
		return cv_error(err, EBADF, "events: cancel_fd %d is not open", o.cancel_fd);
	uint64_t interval = o.interval_ms ? o.interval_ms : 5000;
	if (!(cid = strdup(id ? id : "")))
		return cv_error(err, ENOMEM, "events");
	{
		/* Take what the loop needs, then drop the container's lock so
		 * other commands (kill, delete) proceed while events stream. */
		cleanup_container struct cv_container *c = NULL;
		const char *status;
		if ((r = load_live(ctx, id, &c, &status, err)) < 0)
			return r;
		r = cv_pidfd_open_verified(c->state->pid, c->state->pid_start, &pidfd, err);
		if (r == -ESRCH)
			return cv_error_plain(err, ESRCH, "container not running");
		if (r < 0)
			return r;
		if ((r = cv_cgroup_load(&c->state->cgroup_paths, &cg, err)) < 0)
			return r;
	}
	{
		cleanup_error cv_error_t e = NULL;
		if (cv_cgroup_oom_open(cg, &oom, &e) < 0)
			cv_warn("events: no OOM notifications: %s", e->msg);
	}

	uint64_t next = cv_now_ms() + interval;
	for (;;) {
		struct pollfd p[3] = { { .fd = pidfd, .events = POLLIN },
				       { .fd = -1, .events = POLLIN },
				       { .fd = o.cancel_fd > 0 ? o.cancel_fd : -1, .events = POLLIN } };
		if (oom)
			p[1].fd = cv_cgroup_oom_fd(oom);
		uint64_t now = cv_now_ms(), wait = next > now ? next - now : 0;
		int n = poll(p, 3, wait > 1000000000 ? 1000000000 : (int)wait);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return cv_error_errno(err, "events: poll");
		}
		if (p[2].revents)
			return cv_error_plain(err, ECANCELED, "events: cancelled");
		if (oom && (p[1].revents & POLLIN)) {
			uint64_t count;
			if (cv_cgroup_oom_read(oom, &count, err) < 0)
				return -1;
			for (uint64_t i = 0; i < count; i++) {
				cleanup_free char *json = NULL;
				size_t len;
				if (oci_event_emit("oom", cid, NULL, false, &json, &len, err) < 0)
					return -1;
				if ((r = cb(json, userdata)) < 0)
					return r;
			}
		}
		if (p[0].revents & (POLLIN | POLLHUP))
			return 0; /* the container stopped */
		if (cv_now_ms() >= next) {
			cleanup_free char *json = NULL;
			if (stats_event(cg, cid, &json, err) < 0)
				return -1;
			if ((r = cb(json, userdata)) < 0)
				return r;
			next += interval;
			if (next < cv_now_ms())
				next = cv_now_ms() + interval;
		}
	}
}
