/* Semantic checks of a spec, whether parsed or built by a program: enum
 * values, absolute paths and the ranges the runtime-spec states. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "spec.h"
#include "resources-internal.h"

static const char *const namespace_types[] = {
	"pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time", NULL
};
static const char *const propagations[] = { "private", "shared", "slave",       "unbindable", "rprivate",
					    "rshared", "rslave", "runbindable", NULL };
static const char *const seccomp_actions[] = {
	"SCMP_ACT_KILL",  "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",   "SCMP_ACT_ERRNO",
	"SCMP_ACT_TRACE", "SCMP_ACT_ALLOW",        "SCMP_ACT_LOG",         "SCMP_ACT_NOTIFY", NULL
};
static const char *const seccomp_ops[] = { "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",        "SCMP_CMP_EQ",
					   "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ", NULL };
static const char *const seccomp_arches[] = { "SCMP_ARCH_X86",      "SCMP_ARCH_X86_64",      "SCMP_ARCH_X32",
					      "SCMP_ARCH_ARM",      "SCMP_ARCH_AARCH64",     "SCMP_ARCH_MIPS",
					      "SCMP_ARCH_MIPS64",   "SCMP_ARCH_MIPS64N32",   "SCMP_ARCH_MIPSEL",
					      "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
					      "SCMP_ARCH_PPC64",    "SCMP_ARCH_PPC64LE",     "SCMP_ARCH_S390",
					      "SCMP_ARCH_S390X",    "SCMP_ARCH_PARISC",      "SCMP_ARCH_PARISC64",
					      "SCMP_ARCH_RISCV64",  "SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",
					      "SCMP_ARCH_SH",       "SCMP_ARCH_SHEB",        NULL };
static const char *const seccomp_flags[] = { "SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
					     "SECCOMP_FILTER_FLAG_SPEC_ALLOW", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV",
					     NULL };
static const char *const rlimit_types[] = { "RLIMIT_AS",
					    "RLIMIT_CORE",
					    "RLIMIT_CPU",
					    "RLIMIT_DATA",
					    "RLIMIT_FSIZE",
					    "RLIMIT_LOCKS",
					    "RLIMIT_MEMLOCK",
					    "RLIMIT_MSGQUEUE",
					    "RLIMIT_NICE",
					    "RLIMIT_NOFILE",
					    "RLIMIT_NPROC",
					    "RLIMIT_RSS",
					    "RLIMIT_RTPRIO",
					    "RLIMIT_RTTIME",
					    "RLIMIT_SIGPENDING",
					    "RLIMIT_STACK",
					    NULL };
static const char *const sched_policies[] = { "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR",       "SCHED_BATCH",
					      "SCHED_ISO",   "SCHED_IDLE", "SCHED_DEADLINE", NULL };
static const char *const sched_flags[] = { "SCHED_FLAG_RESET_ON_FORK",  "SCHED_FLAG_RECLAIM",
					   "SCHED_FLAG_DL_OVERRUN",     "SCHED_FLAG_KEEP_POLICY",
					   "SCHED_FLAG_KEEP_PARAMS",    "SCHED_FLAG_UTIL_CLAMP_MIN",
					   "SCHED_FLAG_UTIL_CLAMP_MAX", NULL };
static const char *const ioprio_classes[] = { "IOPRIO_CLASS_RT", "IOPRIO_CLASS_BE", "IOPRIO_CLASS_IDLE", NULL };
static const char *const personality_domains[] = { "LINUX", "LINUX32", NULL };
const char *const oci_mpol_modes[] = { "MPOL_DEFAULT",    "MPOL_BIND",
				       "MPOL_INTERLEAVE", "MPOL_WEIGHTED_INTERLEAVE",
				       "MPOL_PREFERRED",  "MPOL_PREFERRED_MANY",
				       "MPOL_LOCAL",      NULL };
const char *const oci_mpol_flags[] = { "MPOL_F_NUMA_BALANCING", "MPOL_F_RELATIVE_NODES", "MPOL_F_STATIC_NODES", NULL };
static const char *const device_types[] = { "c", "b", "u", "p", NULL };
static const char *const cgroup_device_types[] = { "a", "c", "b", NULL };
static const char *const time_clocks[] = { "monotonic", "boottime", NULL };

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* "NAME: PATH: message"; PATH is a printf format too. */
static int vfail(const char *name, cv_error_t *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int vfail(const char *name, cv_error_t *err, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	int r = cv_error(err, 0, "%s: %s", name, msg ? msg : "invalid value");
	free(msg);
	return r;
}

#define Q(s) oci_quote((s), (char[OCI_QUOTE_MAX]){ 0 }, OCI_QUOTE_MAX)

static int check_enum(const char *name, cv_error_t *err, const char *path, const char *what, const char *const *list,
		      const char *value)
{
	if (in_list(list, value))
		return 0;
	return vfail(name, err, "%s: unknown %s %s", path, what, Q(value));
}

static int check_enum_list(const char *name, cv_error_t *err, const char *path, const char *what,
			   const char *const *list, const oci_strv *v)
{
	for (size_t i = 0; i < v->len; i++)
		if (!in_list(list, v->v[i]))
			return vfail(name, err, "%s[%zu]: unknown %s %s", path, i, what, Q(v->v[i]));
	return 0;
}

static int check_abs(const char *name, cv_error_t *err, const char *path, const char *value)
{
	if (value[0] == '/')
		return 0;
	return vfail(name, err, "%s: must be an absolute path, got %s", path, Q(value));
}

static int check_abs_list(const char *name, cv_error_t *err, const char *path, const oci_strv *v)
{
	for (size_t i = 0; i < v->len; i++)
		if (v->v[i][0] != '/')
			return vfail(name, err, "%s[%zu]: must be an absolute path, got %s", path, i, Q(v->v[i]));
	return 0;
}

static int missing(const char *name, cv_error_t *err, const char *path, const char *key)
{
	if (path && *path)
		return vfail(name, err, "%s: missing required property \"%s\"", path, key);
	return vfail(name, err, "missing required property \"%s\"", key);
}

/* ociVersion: SemVer with major version 1. */
static int check_version(const char *name, cv_error_t *err, const char *v)
{
	const char *p = v;
	uint64_t major = 0;
	size_t digits = 0;
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		major = major < 1000 ? major * 10 + (uint64_t)(*p - '0') : major;
	if (digits == 0 || *p != '.' || p[1] < '0' || p[1] > '9')
		return vfail(name, err, "ociVersion: not a version: %s", Q(v));
	if (major != 1)
		return vfail(name, err, "ociVersion: unsupported major version %s (want 1.x)", Q(v));
	return 0;
}

static int check_weight(const char *name, cv_error_t *err, const char *path, oci_opt_u32 w)
{
	if (w.set && (w.v < 10 || w.v > 1000))
		return vfail(name, err, "%s: %" PRIu32 " is out of range (10..1000)", path, w.v);
	return 0;
}

int oci_process_validate(const oci_process *p, const char *name, const char *prefix, cv_error_t *err)
{
	char path[128];
	const char *dot = *prefix ? "." : "";
	int r;

#define P(...) (snprintf(path, sizeof(path), __VA_ARGS__), path)
	if (!p->args.v || p->args.len == 0) {
		if (!p->args.set)
			return missing(name, err, prefix, "args");
		return vfail(name, err, "%s: must contain at least one entry", P("%s%sargs", prefix, dot));
	}
	if (!p->cwd)
		return missing(name, err, prefix, "cwd");
	if ((r = check_abs(name, err, P("%s%scwd", prefix, dot), p->cwd)) < 0)
		return r;
	if (p->user.umask.set && p->user.umask.v > 0777)
		return vfail(name, err, "%s: %" PRIu32 " is out of range (0..511)", P("%s%suser.umask", prefix, dot),
			     p->user.umask.v);
	for (size_t i = 0; i < p->rlimits_len; i++) {
		const oci_rlimit *rl = &p->rlimits[i];
		if (!rl->type)
			return missing(name, err, P("%s%srlimits[%zu]", prefix, dot, i), "type");
		if ((r = check_enum(name, err, P("%s%srlimits[%zu].type", prefix, dot, i), "rlimit type", rlimit_types,
				    rl->type)) < 0)
			return r;
		if (rl->soft > rl->hard)
			return vfail(name, err, "%s: soft limit %" PRIu64 " exceeds hard limit %" PRIu64,
				     P("%s%srlimits[%zu]", prefix, dot, i), rl->soft, rl->hard);
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->rlimits[j].type, rl->type) == 0)
				return vfail(name, err, "%s: duplicate rlimit type %s",
					     P("%s%srlimits[%zu].type", prefix, dot, i), Q(rl->type));
	}
	if (p->oom_score_adj.set && (p->oom_score_adj.v < -1000 || p->oom_score_adj.v > 1000))
		return vfail(name, err, "%s: %" PRId64 " is out of range (-1000..1000)",
			     P("%s%soomScoreAdj", prefix, dot), p->oom_score_adj.v);
	if (p->scheduler) {
		const oci_scheduler *s = p->scheduler;
		if (!s->policy)
			return missing(name, err, P("%s%sscheduler", prefix, dot), "policy");
		if ((r = check_enum(name, err, P("%s%sscheduler.policy", prefix, dot), "scheduler policy",
				    sched_policies, s->policy)) < 0)
			return r;
		if ((r = check_enum_list(name, err, P("%s%sscheduler.flags", prefix, dot), "scheduler flag",
					 sched_flags, &s->flags)) < 0)
			return r;
		if (s->nice.set && (s->nice.v < -20 || s->nice.v > 19))
			return vfail(name, err, "%s: %" PRId64 " is out of range (-20..19)",
				     P("%s%sscheduler.nice", prefix, dot), s->nice.v);
		if (s->priority.set && (s->priority.v < 0 || s->priority.v > 99))
			return vfail(name, err, "%s: %" PRId64 " is out of range (0..99)",
				     P("%s%sscheduler.priority", prefix, dot), s->priority.v);
	}
	if (p->io_priority) {
		if (!p->io_priority->class_)
			return missing(name, err, P("%s%sioPriority", prefix, dot), "class");
		if ((r = check_enum(name, err, P("%s%sioPriority.class", prefix, dot), "I/O priority class",
				    ioprio_classes, p->io_priority->class_)) < 0)
			return r;
		if (p->io_priority->priority < 0 || p->io_priority->priority > 7)
			return vfail(name, err, "%s: %" PRId64 " is out of range (0..7)",
				     P("%s%sioPriority.priority", prefix, dot), p->io_priority->priority);
	}
	for (size_t i = 0; i < p->env.len; i++)
		if (!strchr(p->env.v[i], '='))
			return vfail(name, err, "%s: expected KEY=VALUE, got %s", P("%s%senv[%zu]", prefix, dot, i),
				     Q(p->env.v[i]));
#undef P
	return 0;
}

static int check_hooks(const char *name, cv_error_t *err, const char *kind, const oci_hook_list *l)
{
	char path[96];
	for (size_t i = 0; i < l->len; i++) {
		snprintf(path, sizeof(path), "hooks.%s[%zu]", kind, i);
		if (!l->v[i].path)
			return missing(name, err, path, "path");
		snprintf(path, sizeof(path), "hooks.%s[%zu].path", kind, i);
		int r = check_abs(name, err, path, l->v[i].path);
		if (r < 0)
			return r;
		if (l->v[i].timeout.set && l->v[i].timeout.v <= 0)
			return vfail(name, err, "hooks.%s[%zu].timeout: must be greater than zero, got %" PRId64, kind,
				     i, l->v[i].timeout.v);
	}
	return 0;
}

static int check_resources(const char *name, cv_error_t *err, const oci_resources *res)
{
	char path[96];
	int r;
	for (size_t i = 0; i < res->devices_len; i++) {
		const oci_device_cgroup *d = &res->devices[i];
		if (d->type) {
			snprintf(path, sizeof(path), "linux.resources.devices[%zu].type", i);
			if ((r = check_enum(name, err, path, "device type", cgroup_device_types, d->type)) < 0)
				return r;
		}
		if (d->access && strspn(d->access, "rwm") != strlen(d->access))
			return vfail(
				name, err,
				"linux.resources.devices[%zu].access: expected a combination of r, w and m, got %s", i,
				Q(d->access));
	}
	if (res->block_io) {
		const oci_block_io *b = res->block_io;
		if ((r = check_weight(name, err, "linux.resources.blockIO.weight", b->weight)) < 0 ||
		    (r = check_weight(name, err, "linux.resources.blockIO.leafWeight", b->leaf_weight)) < 0)
			return r;
		for (size_t i = 0; i < b->weight_device_len; i++) {
			snprintf(path, sizeof(path), "linux.resources.blockIO.weightDevice[%zu].weight", i);
			if ((r = check_weight(name, err, path, b->weight_device[i].weight)) < 0)
				return r;
			snprintf(path, sizeof(path), "linux.resources.blockIO.weightDevice[%zu].leafWeight", i);
			if ((r = check_weight(name, err, path, b->weight_device[i].leaf_weight)) < 0)
				return r;
		}
	}
	for (size_t i = 0; i < res->hugepage_limits_len; i++)
		if (!res->hugepage_limits[i].page_size)
			return vfail(name, err,
				     "linux.resources.hugepageLimits[%zu]: missing required property \"pageSize\"", i);
	if (res->memory && res->memory->swappiness.set && res->memory->swappiness.v > 100)
		return vfail(name, err, "linux.resources.memory.swappiness: %" PRIu64 " is out of range (0..100)",
			     res->memory->swappiness.v);
	return 0;
}

static int check_seccomp(const char *name, cv_error_t *err, const oci_seccomp *s)
{
	char path[96];
	int r;
	if (!s->default_action)
		return missing(name, err, "linux.seccomp", "defaultAction");
	if ((r = check_enum(name, err, "linux.seccomp.defaultAction", "seccomp action", seccomp_actions,
			    s->default_action)) < 0)
		return r;
	if ((r = check_enum_list(name, err, "linux.seccomp.architectures", "seccomp architecture", seccomp_arches,
				 &s->architectures)) < 0)
		return r;
	if ((r = check_enum_list(name, err, "linux.seccomp.flags", "seccomp flag", seccomp_flags, &s->flags)) < 0)
		return r;
	for (size_t i = 0; i < s->syscalls_len; i++) {
		const oci_seccomp_syscall *sc = &s->syscalls[i];
		if (!sc->action) {
			snprintf(path, sizeof(path), "linux.seccomp.syscalls[%zu]", i);
			return missing(name, err, path, "action");
		}
		snprintf(path, sizeof(path), "linux.seccomp.syscalls[%zu].action", i);
		if ((r = check_enum(name, err, path, "seccomp action", seccomp_actions, sc->action)) < 0)
			return r;
		if (sc->names.len == 0)
			return vfail(name, err, "linux.seccomp.syscalls[%zu].names: must contain at least one entry",
				     i);
		for (size_t j = 0; j < sc->args_len; j++) {
			if (!sc->args[j].op) {
				snprintf(path, sizeof(path), "linux.seccomp.syscalls[%zu].args[%zu]", i, j);
				return missing(name, err, path, "op");
			}
			snprintf(path, sizeof(path), "linux.seccomp.syscalls[%zu].args[%zu].op", i, j);
			if ((r = check_enum(name, err, path, "seccomp operator", seccomp_ops, sc->args[j].op)) < 0)
				return r;
			if (sc->args[j].index > 5)
				return vfail(name, err,
					     "linux.seccomp.syscalls[%zu].args[%zu].index: %" PRIu32
					     " is out of range (0..5)",
					     i, j, sc->args[j].index);
		}
	}
	return 0;
}

static int check_linux(const char *name, cv_error_t *err, const oci_linux *l)
{
	char path[96];
	int r;
	for (size_t i = 0; i < l->namespaces_len; i++) {
		const oci_namespace *ns = &l->namespaces[i];
		snprintf(path, sizeof(path), "linux.namespaces[%zu]", i);
		if (!ns->type)
			return missing(name, err, path, "type");
		if (!in_list(namespace_types, ns->type))
			return vfail(name, err, "linux.namespaces[%zu].type: unknown namespace type %s", i,
				     Q(ns->type));
		for (size_t j = 0; j < i; j++)
			if (strcmp(l->namespaces[j].type, ns->type) == 0)
				return vfail(name, err, "linux.namespaces[%zu].type: duplicate namespace type %s", i,
					     Q(ns->type));
		if (ns->path) {
			snprintf(path, sizeof(path), "linux.namespaces[%zu].path", i);
			if ((r = check_abs(name, err, path, ns->path)) < 0)
				return r;
		}
	}
	for (size_t i = 0; i < l->time_offsets_len; i++) {
		const oci_time_offset *t = &l->time_offsets[i];
		snprintf(path, sizeof(path), "linux.timeOffsets.%s", t->clock);
		if (!in_list(time_clocks, t->clock))
			return vfail(name, err, "linux.timeOffsets: unknown clock %s", Q(t->clock));
		if (t->nanosecs >= 1000000000u)
			return vfail(name, err, "%s.nanosecs: %" PRIu32 " is out of range (0..999999999)", path,
				     t->nanosecs);
	}
	for (size_t i = 0; i < l->devices_len; i++) {
		const oci_device *d = &l->devices[i];
		snprintf(path, sizeof(path), "linux.devices[%zu]", i);
		if (!d->type)
			return missing(name, err, path, "type");
		if (!d->path)
			return missing(name, err, path, "path");
		snprintf(path, sizeof(path), "linux.devices[%zu].type", i);
		if ((r = check_enum(name, err, path, "device type", device_types, d->type)) < 0)
			return r;
		snprintf(path, sizeof(path), "linux.devices[%zu].path", i);
		if ((r = check_abs(name, err, path, d->path)) < 0)
			return r;
	}
	if (l->resources && (r = check_resources(name, err, l->resources)) < 0)
		return r;
	if (l->seccomp && (r = check_seccomp(name, err, l->seccomp)) < 0)
		return r;
	if (l->rootfs_propagation && *l->rootfs_propagation &&
	    (r = check_enum(name, err, "linux.rootfsPropagation", "rootfs propagation", propagations,
			    l->rootfs_propagation)) < 0)
		return r;
	if ((r = check_abs_list(name, err, "linux.maskedPaths", &l->masked_paths)) < 0 ||
	    (r = check_abs_list(name, err, "linux.readonlyPaths", &l->readonly_paths)) < 0)
		return r;
	if (l->personality) {
		if (!l->personality->domain)
			return missing(name, err, "linux.personality", "domain");
		if ((r = check_enum(name, err, "linux.personality.domain", "personality domain", personality_domains,
				    l->personality->domain)) < 0)
			return r;
		/* The runtime-spec defines no personality flags yet. */
		if (l->personality->flags.len > 0)
			return vfail(name, err, "linux.personality.flags[0]: unknown personality flag %s",
				     Q(l->personality->flags.v[0]));
	}
	if (l->memory_policy) {
		if (!l->memory_policy->mode)
			return missing(name, err, "linux.memoryPolicy", "mode");
		if ((r = check_enum(name, err, "linux.memoryPolicy.mode", "memory policy mode", oci_mpol_modes,
				    l->memory_policy->mode)) < 0)
			return r;
		if ((r = check_enum_list(name, err, "linux.memoryPolicy.flags", "memory policy flag", oci_mpol_flags,
					 &l->memory_policy->flags)) < 0)
			return r;
	}
	for (size_t i = 0; i < l->net_devices_len; i++)
		if (!l->net_devices[i].host_name[0] || strchr(l->net_devices[i].host_name, '/'))
			return vfail(name, err, "linux.netDevices: invalid interface name %s",
				     Q(l->net_devices[i].host_name));
	for (size_t i = 0; i < l->sysctl.len; i++)
		if (!l->sysctl.v[i].key[0])
			return vfail(name, err, "linux.sysctl: empty key");
	return 0;
}

int oci_spec_validate(const oci_spec *s, const char *name, cv_error_t *err)
{
	char path[64];
	int r;
	if (!s->oci_version)
		return missing(name, err, NULL, "ociVersion");
	if ((r = check_version(name, err, s->oci_version)) < 0)
		return r;
	if (s->root && (!s->root->path || !*s->root->path)) {
		if (!s->root->path)
			return missing(name, err, "root", "path");
		return vfail(name, err, "root.path: must not be empty");
	}
	for (size_t i = 0; i < s->mounts_len; i++) {
		snprintf(path, sizeof(path), "mounts[%zu]", i);
		if (!s->mounts[i].destination)
			return missing(name, err, path, "destination");
		snprintf(path, sizeof(path), "mounts[%zu].destination", i);
		if ((r = check_abs(name, err, path, s->mounts[i].destination)) < 0)
			return r;
	}
	if (s->process && (r = oci_process_validate(s->process, name, "process", err)) < 0)
		return r;
	if (s->hooks) {
		const oci_hooks *h = s->hooks;
		if ((r = check_hooks(name, err, "prestart", &h->prestart)) < 0 ||
		    (r = check_hooks(name, err, "createRuntime", &h->create_runtime)) < 0 ||
		    (r = check_hooks(name, err, "createContainer", &h->create_container)) < 0 ||
		    (r = check_hooks(name, err, "startContainer", &h->start_container)) < 0 ||
		    (r = check_hooks(name, err, "poststart", &h->poststart)) < 0 ||
		    (r = check_hooks(name, err, "poststop", &h->poststop)) < 0)
			return r;
	}
	if (s->linux_ && (r = check_linux(name, err, s->linux_)) < 0)
		return r;
	return 0;
}

/* For oci/resources.c (update --resources): the same checks. */
int oci_resources_validate_(const char *name, cv_error_t *err, const oci_resources *res)
{
	return check_resources(name, err, res);
}
