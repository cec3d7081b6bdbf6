#include "config.h"

#include <errno.h>
#include <linux/magic.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/statfs.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "process/process-attrs.h"
#include "fs/safe-path.h"

static const struct {
	const char *name;
	int res;
} rlimit_names[] = {
	{ "RLIMIT_AS", RLIMIT_AS },
	{ "RLIMIT_CORE", RLIMIT_CORE },
	{ "RLIMIT_CPU", RLIMIT_CPU },
	{ "RLIMIT_DATA", RLIMIT_DATA },
	{ "RLIMIT_FSIZE", RLIMIT_FSIZE },
	{ "RLIMIT_LOCKS", RLIMIT_LOCKS },
	{ "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK },
	{ "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE },
	{ "RLIMIT_NICE", RLIMIT_NICE },
	{ "RLIMIT_NOFILE", RLIMIT_NOFILE },
	{ "RLIMIT_NPROC", RLIMIT_NPROC },
	{ "RLIMIT_RSS", RLIMIT_RSS },
	{ "RLIMIT_RTPRIO", RLIMIT_RTPRIO },
	{ "RLIMIT_RTTIME", RLIMIT_RTTIME },
	{ "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING },
	{ "RLIMIT_STACK", RLIMIT_STACK },
};

static int rlimit_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(rlimit_names) / sizeof(rlimit_names[0]); i++)
		if (name && strcmp(name, rlimit_names[i].name) == 0)
			return rlimit_names[i].res;
	return -1;
}

static const struct {
	const char *name;
	int policy;
} sched_names[] = {
	{ "SCHED_OTHER", SCHED_OTHER },
	{ "SCHED_FIFO", SCHED_FIFO },
	{ "SCHED_RR", SCHED_RR },
	{ "SCHED_BATCH", SCHED_BATCH },
	{ "SCHED_ISO", 4 },
	{ "SCHED_IDLE", SCHED_IDLE },
	{ "SCHED_DEADLINE", 6 /* SCHED_DEADLINE */ },
};

static int sched_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(sched_names) / sizeof(sched_names[0]); i++)
		if (name && strcmp(name, sched_names[i].name) == 0)
			return sched_names[i].policy;
	return -1;
}

/* glibc has no wrapper nor struct for sched_setattr(2). */
struct cv_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

static const struct {
	const char *name;
	uint64_t flag;
} sched_flag_names[] = {
	{ "SCHED_FLAG_RESET_ON_FORK", 0x01 },  { "SCHED_FLAG_RECLAIM", 0x02 },
	{ "SCHED_FLAG_DL_OVERRUN", 0x04 },     { "SCHED_FLAG_KEEP_POLICY", 0x08 },
	{ "SCHED_FLAG_KEEP_PARAMS", 0x10 },    { "SCHED_FLAG_UTIL_CLAMP_MIN", 0x20 },
	{ "SCHED_FLAG_UTIL_CLAMP_MAX", 0x40 },
};

static int sched_flags_from_names(const oci_strv *names, uint64_t *out, cv_error_t *err)
{
	uint64_t f = 0;
	for (size_t i = 0; i < names->len; i++) {
		size_t j = 0, n = sizeof(sched_flag_names) / sizeof(sched_flag_names[0]);
		while (j < n && strcmp(names->v[i], sched_flag_names[j].name) != 0)
			j++;
		if (j == n)
			return cv_error(err, EINVAL, "process.scheduler.flags[%zu]: unknown flag \"%s\"", i,
					names->v[i]);
		f |= sched_flag_names[j].flag;
	}
	*out = f;
	return 0;
}

/* "0-3,7": a kernel-style cpu list. NULL or "" gives *set NULL (no change). */
/* A list of numbers and ranges ("0-3,7") into a CPU_ALLOC'd set; WHAT
 * ("cpu", "node") names the list's kind in errors. */
static int id_list_parse(const char *list, const char *field, const char *what, cpu_set_t **set, size_t *size,
			 cv_error_t *err)
{
	unsigned long max = 0;
	*set = NULL;
	*size = 0;
	if (!list || !*list)
		return 0;
	/* Two passes: the highest cpu sizes the set, then the bits. */
	for (int pass = 0; pass < 2; pass++) {
		const char *s = list;
		for (;;) {
			char *end;
			if (*s < '0' || *s > '9')
				goto bad;
			errno = 0;
			unsigned long a = strtoul(s, &end, 10), b = a;
			if (errno || a > 65535)
				goto bad;
			s = end;
			if (*s == '-') {
				s++;
				if (*s < '0' || *s > '9')
					goto bad;
				b = strtoul(s, &end, 10);
				if (errno || b > 65535 || b < a)
					goto bad;
				s = end;
			}
			for (unsigned long c = a; c <= b; c++) {
				if (pass == 0 && c > max)
					max = c;
				if (pass == 1)
					CPU_SET_S(c, *size, *set);
			}
			if (!*s)
				break;
			if (*s != ',')
				goto bad;
			s++;
		}
		if (pass == 0) {
			*set = CPU_ALLOC(max + 1);
			if (!*set)
				return cv_error(err, ENOMEM, "%s", field);
			*size = CPU_ALLOC_SIZE(max + 1);
			CPU_ZERO_S(*size, *set);
		}
	}
	return 0;
bad:
	if (*set) {
		CPU_FREE(*set);
		*set = NULL;
	}
	return cv_error(err, EINVAL, "%s: invalid %s list \"%s\" (expected e.g. \"0-3,7\")", field, what, list);
}

int cv_cpu_list_parse(const char *list, const char *field, cpu_set_t **set, size_t *size, cv_error_t *err)
{
	return id_list_parse(list, field, "cpu", set, size, err);
}

int cv_node_list_parse(const char *list, const char *field, cpu_set_t **set, size_t *size, cv_error_t *err)
{
	return id_list_parse(list, field, "node", set, size, err);
}

int cv_cpu_affinity_apply(const char *list, const char *field, cv_error_t *err)
{
	cleanup_cpuset cpu_set_t *set = NULL;
	size_t size;
	if (cv_cpu_list_parse(list, field, &set, &size, err) < 0)
		return -1;
	if (set && sched_setaffinity(0, size, set) < 0)
		return cv_error_errno(err, "%s: sched_setaffinity `%s`", field, list);
	return 0;
}

#define IOPRIO_CLASS_SHIFT 13
static int ioprio_class_from_name(const char *name)
{
	if (!name)
		return -1;
	if (strcmp(name, "IOPRIO_CLASS_RT") == 0)
		return 1;
	if (strcmp(name, "IOPRIO_CLASS_BE") == 0)
		return 2;
	if (strcmp(name, "IOPRIO_CLASS_IDLE") == 0)
		return 3;
	return -1;
}

int cv_lsm_apply(const oci_process *p, cv_error_t *err)
{
	int r;
	if (p->apparmor_profile && *p->apparmor_profile) {
		cleanup_free char *v = NULL;
		if (asprintf(&v, "exec %s", p->apparmor_profile) < 0)
			return cv_error(err, ENOMEM, "process.apparmorProfile");
		/* AppArmor's own attr directory since Linux 5.8, the shared one before */
		cleanup_close int dfd = cv_procfs_open("self/attr/apparmor", O_PATH | O_DIRECTORY, err);
		cv_error_release(err);
		r = cv_procfs_write(dfd >= 0 ? "self/attr/apparmor/exec" : "self/attr/exec", v, strlen(v), err);
		if (r < 0)
			return cv_error_prefix(err, "process.apparmorProfile \"%s\"", p->apparmor_profile);
	}
	if (p->selinux_label && *p->selinux_label) {
		r = cv_procfs_write("self/attr/exec", p->selinux_label, strlen(p->selinux_label), err);
		if (r < 0)
			return cv_error_prefix(err, "process.selinuxLabel \"%s\"", p->selinux_label);
	}
	return 0;
}

/* As runc decides: AppArmor is on when its module says so, SELinux when
 * selinuxfs is mounted. */
static bool apparmor_enabled(void)
{
	char c = 0;
	cleanup_close int fd = open("/sys/module/apparmor/parameters/enabled", O_RDONLY | O_CLOEXEC);
	return fd >= 0 && read(fd, &c, 1) == 1 && c == 'Y';
}

static bool selinux_enabled(void)
{
	struct statfs sf;
	return statfs("/sys/fs/selinux", &sf) == 0 && sf.f_type == SELINUX_MAGIC;
}

int cv_attrs_validate(const oci_process *p, const oci_linux *linux_, cv_error_t *err)
{
	if (p) {
		/* A profile or label the host cannot apply is an error, never a
		 * silent skip (runc's rule). */
		if (p->apparmor_profile && *p->apparmor_profile && !apparmor_enabled())
			return cv_error(err, EINVAL,
					"process.apparmorProfile \"%s\": AppArmor is not enabled on this host",
					p->apparmor_profile);
		if (p->selinux_label && *p->selinux_label && !selinux_enabled())
			return cv_error(err, EINVAL, "process.selinuxLabel \"%s\": SELinux is not enabled on this host",
					p->selinux_label);
		for (size_t i = 0; i < p->rlimits_len; i++)
			if (rlimit_from_name(p->rlimits[i].type) < 0)
				return cv_error(err, EINVAL, "process.rlimits[%zu].type: unknown rlimit \"%s\"", i,
						p->rlimits[i].type ? p->rlimits[i].type : "");
		if (p->scheduler && sched_from_name(p->scheduler->policy) < 0)
			return cv_error(err, EINVAL, "process.scheduler.policy: unknown policy \"%s\"",
					p->scheduler->policy ? p->scheduler->policy : "");
		uint64_t sf;
		if (p->scheduler && sched_flags_from_names(&p->scheduler->flags, &sf, err) < 0)
			return -1;
		if (p->io_priority && ioprio_class_from_name(p->io_priority->class_) < 0)
			return cv_error(err, EINVAL, "process.ioPriority.class: unknown class \"%s\"",
					p->io_priority->class_ ? p->io_priority->class_ : "");
		if (p->exec_cpu_affinity) {
			cleanup_cpuset cpu_set_t *set = NULL;
			size_t size;
			if (cv_cpu_list_parse(p->exec_cpu_affinity->initial, "process.execCPUAffinity.initial", &set,
					      &size, err) < 0)
				return -1;
			CPU_FREE(set);
			set = NULL;
			if (cv_cpu_list_parse(p->exec_cpu_affinity->final, "process.execCPUAffinity.final", &set, &size,
					      err) < 0)
				return -1;
		}
	}
	if (linux_ && linux_->personality) {
		const oci_personality *pe = linux_->personality;
		if (!pe->domain || (strcmp(pe->domain, "LINUX") && strcmp(pe->domain, "LINUX32")))
			return cv_error(err, EINVAL, "linux.personality.domain: unknown domain \"%s\"",
					pe->domain ? pe->domain : "");
		if (pe->flags.len)
			return cv_error(err, ENOTSUP, "linux.personality.flags: not supported");
	}
	return 0;
}

int cv_rlimits_apply(const oci_process *p, bool nofile, cv_error_t *err)
{
	for (size_t i = 0; p && i < p->rlimits_len; i++) {
		const oci_rlimit *l = &p->rlimits[i];
		struct rlimit rl = { .rlim_cur = l->soft, .rlim_max = l->hard };
		int res = rlimit_from_name(l->type);
		if (res < 0)
			return cv_error(err, EINVAL, "unknown rlimit \"%s\"", l->type);
		if ((res == RLIMIT_NOFILE) != nofile)
			continue;
		if (setrlimit(res, &rl) < 0)
			return cv_error_errno(err, "setrlimit %s (soft %llu, hard %llu)", l->type,
					      (unsigned long long)l->soft, (unsigned long long)l->hard);
	}
	return 0;
}

int cv_oom_score_adj_apply(const oci_process *p, cv_error_t *err)
{
	char buf[32];
	if (!p || !p->oom_score_adj.set)
		return 0;
	int n = snprintf(buf, sizeof(buf), "%lld", (long long)p->oom_score_adj.v);
	int r = cv_procfs_write("self/oom_score_adj", buf, (size_t)n, err);
	if (r < 0)
		return cv_error_prefix(err, "process.oomScoreAdj %s", buf);
	return 0;
}

int cv_scheduler_apply(const oci_process *p, cv_error_t *err)
{
	struct cv_sched_attr a;
	if (!p || !p->scheduler)
		return 0;
	const oci_scheduler *s = p->scheduler;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = (uint32_t)sched_from_name(s->policy);
	a.sched_nice = s->nice.set ? (int32_t)s->nice.v : 0;
	a.sched_priority = s->priority.set ? (uint32_t)s->priority.v : 0;
	a.sched_runtime = s->runtime.set ? s->runtime.v : 0;
	a.sched_deadline = s->deadline.set ? s->deadline.v : 0;
	a.sched_period = s->period.set ? s->period.v : 0;
	int r = sched_flags_from_names(&s->flags, &a.sched_flags, err);
	if (r < 0)
		return r;
	if (syscall(SYS_sched_setattr, 0, &a, 0) < 0)
		return cv_error_errno(err, "process.scheduler: sched_setattr %s", s->policy);
	return 0;
}

int cv_io_priority_apply(const oci_process *p, cv_error_t *err)
{
	if (!p || !p->io_priority)
		return 0;
	int cls = ioprio_class_from_name(p->io_priority->class_);
	int prio = (cls << IOPRIO_CLASS_SHIFT) | (int)p->io_priority->priority;
	if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, prio) < 0)
		return cv_error_errno(err, "process.ioPriority: ioprio_set %s %lld", p->io_priority->class_,
				      (long long)p->io_priority->priority);
	return 0;
}

int cv_cwd_apply(const char *cwd, const char *field, cv_error_t *err)
{
	if (!cwd)
		return 0;
	cleanup_close int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return cv_error_errno(err, "%s: open `/`", field);
	cleanup_close int fd = cv_open_in_root(root, cwd, O_PATH | O_DIRECTORY, 0, err);
	if (fd < 0)
		return cv_error_prefix(err, "%s", field);
	if (fchdir(fd) < 0)
		return cv_error_errno(err, "%s: chdir `%s`", field, cwd);
	return 0;
}

int cv_personality_apply(const oci_linux *linux_, cv_error_t *err)
{
	if (!linux_ || !linux_->personality)
		return 0;
	unsigned long pers = strcmp(linux_->personality->domain, "LINUX32") == 0 ? PER_LINUX32 : PER_LINUX;
	if (personality(pers) < 0)
		return cv_error_errno(err, "linux.personality: %s", linux_->personality->domain);
	return 0;
}

static bool prefixed(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

int cv_sysctl_apply(const oci_linux *linux_, int new_flags, cv_error_t *err)
{
	if (!linux_)
		return 0;
	for (size_t i = 0; i < linux_->sysctl.len; i++) {
		const char *key = linux_->sysctl.v[i].key, *val = linux_->sysctl.v[i].value;
		int need = 0;
		const char *ns = NULL;
		if (prefixed(key, "net.")) {
			need = CLONE_NEWNET;
			ns = "network";
		} else if (prefixed(key, "kernel.msg") || prefixed(key, "kernel.sem") || prefixed(key, "kernel.shm") ||
			   prefixed(key, "fs.mqueue.")) {
			need = CLONE_NEWIPC;
			ns = "ipc";
		} else if (strcmp(key, "kernel.hostname") == 0 || strcmp(key, "kernel.domainname") == 0) {
			need = CLONE_NEWUTS;
			ns = "uts";
		} else
			return cv_error(err, EPERM,
					"linux.sysctl: \"%s\" is not namespaced and cannot be set in a container", key);
		if (!(new_flags & need))
			return cv_error(err, EPERM,
					"linux.sysctl: \"%s\" needs the container to have its own %s namespace", key,
					ns);
		cleanup_free char *path = NULL;
		if (asprintf(&path, "sys/%s", key) < 0)
			return cv_error(err, ENOMEM, "sysctl");
		for (char *c = path + 4; *c; c++)
			if (*c == '.')
				*c = '/';
		int r = cv_procfs_write(path, val, strlen(val), err);
		if (r < 0)
			return cv_error_prefix(err, "linux.sysctl \"%s\"", key);
	}
	return 0;
}
