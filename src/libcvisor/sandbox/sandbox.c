/* Sandbox policy -> OCI spec (see sandbox.h for the whole mapping). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "cgroups/cgroups.h"
#include "cleanup.h"
#include "find-program.h"
#include "process/init.h"
#include "log.h"
#include "fs/mounts.h"
#include "process/passwd.h"
#include "sandbox/sandbox.h"

#define DEFAULT_PATH CV_DEFAULT_PATH
#define CPU_PERIOD_US 100000ull

/* Namespace flags a sandboxed program may not pass to clone(2). */
#define NS_CLONE_FLAGS                                                                                                 \
	{                                                                                                              \
		0x00020000 /* NEWNS */, 0x02000000 /* NEWCGROUP */, 0x04000000 /* NEWUTS */, 0x08000000 /* NEWIPC */,  \
			0x10000000 /* NEWUSER */, 0x20000000 /* NEWPID */, 0x40000000 /* NEWNET */                     \
	}

/* ---- small builders ---- */

static int strv_add(oci_strv *l, const char *s, cv_error_t *err)
{
	char *d = strdup(s);
	char **nv = d ? realloc(l->v, (l->len + 2) * sizeof(*nv)) : NULL;
	if (!nv) {
		free(d);
		return cv_error(err, ENOMEM, "sandbox spec");
	}
	nv[l->len++] = d;
	nv[l->len] = NULL;
	l->v = nv;
	l->set = true;
	return 0;
}

static int strv_addv(oci_strv *l, const char *const *v, cv_error_t *err)
{
	for (; v && *v; v++)
		if (strv_add(l, *v, err) < 0)
			return -1;
	return 0;
}

static bool strv_has(const oci_strv *l, const char *s)
{
	for (size_t i = 0; i < l->len; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

static int add_mount(oci_spec *s, const char *dest, const char *type, const char *src, const char *const *opts,
		     cv_error_t *err)
{
	oci_mount *nm = realloc(s->mounts, (s->mounts_len + 1) * sizeof(*nm));
	if (!nm)
		return cv_error(err, ENOMEM, "sandbox spec");
	s->mounts = nm;
	oci_mount *m = &nm[s->mounts_len];
	memset(m, 0, sizeof(*m));
	s->mounts_len++;
	m->destination = strdup(dest);
	m->type = strdup(type);
	m->source = strdup(src);
	if (!m->destination || !m->type || !m->source)
		return cv_error(err, ENOMEM, "sandbox spec");
	return strv_addv(&m->options, opts, err);
}

/* A new namespace of TYPE, or the one at PATH. */
static int add_namespace(oci_linux *l, const char *type, const char *path, cv_error_t *err)
{
	oci_namespace *nn = realloc(l->namespaces, (l->namespaces_len + 1) * sizeof(*nn));
	if (!nn)
		return cv_error(err, ENOMEM, "sandbox spec");
	l->namespaces = nn;
	nn[l->namespaces_len] = (oci_namespace){ .type = strdup(type), .path = path ? strdup(path) : NULL };
	oci_namespace *n = &nn[l->namespaces_len++];
	if (!n->type || (path && !n->path))
		return cv_error(err, ENOMEM, "sandbox spec");
	return 0;
}

static int add_rlimit(oci_process *p, const char *type, uint64_t soft, uint64_t hard, cv_error_t *err)
{
	oci_rlimit *nr = realloc(p->rlimits, (p->rlimits_len + 1) * sizeof(*nr));
	if (!nr)
		return cv_error(err, ENOMEM, "sandbox spec");
	p->rlimits = nr;
	nr[p->rlimits_len] = (oci_rlimit){ .type = strdup(type), .soft = soft, .hard = hard };
	if (!nr[p->rlimits_len++].type)
		return cv_error(err, ENOMEM, "sandbox spec");
	return 0;
}

static int add_annotation(oci_spec *s, const char *key, const char *value, cv_error_t *err)
{
	oci_kv *nk = realloc(s->annotations.v, (s->annotations.len + 1) * sizeof(*nk));
	if (!nk)
		return cv_error(err, ENOMEM, "sandbox spec");
	s->annotations.v = nk;
	nk[s->annotations.len] = (oci_kv){ .key = strdup(key), .value = strdup(value) };
	s->annotations.len++;
	if (!nk[s->annotations.len - 1].key || !nk[s->annotations.len - 1].value)
		return cv_error(err, ENOMEM, "sandbox spec");
	return 0;
}

/* "~/x" -> "$HOME/x"; other paths are copied. */
static int expand(const char *path, const struct cv_sandbox_host *h, const char *key, char **out, cv_error_t *err)
{
	if (path[0] == '~') {
		if (!h->home || h->home[0] != '/')
			return cv_error(err, 0,
					"policy: %s: `%s`: the caller's home directory is unknown (HOME is not set)",
					key, path);
		size_t hl = strlen(h->home);
		while (hl > 1 && h->home[hl - 1] == '/')
			hl--;
		if (asprintf(out, "%.*s%s", (int)hl, h->home, path + 1) < 0)
			return cv_error(err, ENOMEM, "policy: %s", key);
		return 0;
	}
	*out = strdup(path);
	return *out ? 0 : cv_error(err, ENOMEM, "policy: %s", key);
}

/* An existing host directory, canonical (binds follow symlinks anyway; the
 * canonical path is what the program sees); its stat in *st when not NULL. */
static int host_dir(const char *path, const char *key, char **out, struct stat *st, cv_error_t *err)
{
	cleanup_free char *r = realpath(path, NULL);
	if (!r)
		return cv_error_errno(err, "policy: %s: `%s`", key, path);
	struct stat sb;
	if (stat(r, &sb) < 0)
		return cv_error_errno(err, "policy: %s: `%s`", key, path);
	if (!S_ISDIR(sb.st_mode))
		return cv_error(err, ENOTDIR, "policy: %s: `%s`", key, path);
	if (st)
		*st = sb;
	*out = steal_pointer(&r);
	return 0;
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

const char *cv_sandbox_writable_holding(const oci_spec *spec, const char *path)
{
	for (size_t i = 0; i < spec->mounts_len; i++) {
		const oci_mount *m = &spec->mounts[i];
		bool ro = false;
		if (!m->type || strcmp(m->type, "bind") != 0 || !m->destination)
			continue;
		for (size_t k = 0; k < m->options.len; k++)
			ro = ro || strcmp(m->options.v[k], "ro") == 0;
		/* a bind at its own host path: the destination is the host path */
		if (!ro && under(path, m->destination))
			return m->destination;
	}
	return NULL;
}

/* ---- environment ---- */

static bool name_matches(const char *pattern, const char *entry)
{
	size_t pl = strlen(pattern);
	size_t nl = strcspn(entry, "=");
	if (pl > 0 && pattern[pl - 1] == '*')
		return nl >= pl - 1 && strncmp(entry, pattern, pl - 1) == 0;
	return nl == pl && strncmp(entry, pattern, pl) == 0;
}

static int build_env(const cv_policy *p, const struct cv_sandbox_host *h, oci_strv *env, cv_error_t *err)
{
	static const char *const defaults[] = { CV_SANDBOX_DEFAULT_ENV };
	bool have_path = false;
	for (char *const *e = h->environ; e && *e; e++) {
		if (!strchr(*e, '='))
			continue;
		bool allowed = false, overridden = false;
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]) && !allowed; i++)
			allowed = name_matches(defaults[i], *e);
		for (size_t i = 0; i < p->env.len; i++) {
			const char *pe = p->env.v[i];
			const char *eq = strchr(pe, '=');
			if (!eq) {
				allowed = allowed || name_matches(pe, *e);
			} else if ((size_t)(eq - pe) == strcspn(*e, "=") && strncmp(pe, *e, (size_t)(eq - pe)) == 0) {
				overridden = true;
			}
		}
		if (!allowed || overridden)
			continue;
		/* the same variable twice in environ: the first one wins, as getenv */
		bool dup = false;
		for (size_t i = 0; i < env->len && !dup; i++)
			dup = strcspn(env->v[i], "=") == strcspn(*e, "=") &&
			      strncmp(env->v[i], *e, strcspn(*e, "=")) == 0;
		if (dup)
			continue;
		have_path = have_path || strncmp(*e, "PATH=", 5) == 0;
		if (strv_add(env, *e, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < p->env.len; i++) {
		if (!strchr(p->env.v[i], '='))
			continue;
		/* a later NAME=value replaces an earlier one */
		size_t nl = strcspn(p->env.v[i], "=");
		for (size_t j = 0; j < env->len; j++) {
			if (strcspn(env->v[j], "=") == nl && strncmp(env->v[j], p->env.v[i], nl) == 0) {
				free(env->v[j]);
				memmove(&env->v[j], &env->v[j + 1], (env->len - j) * sizeof(char *));
				env->len--;
				break;
			}
		}
		have_path = have_path || strncmp(p->env.v[i], "PATH=", 5) == 0;
		if (strv_add(env, p->env.v[i], err) < 0)
			return -1;
	}
	if (!have_path && strv_add(env, "PATH=" DEFAULT_PATH, err) < 0)
		return -1;
	env->set = true;
	return 0;
}

/* ---- seccomp ---- */

/* Refused with EPERM. The sandbox runs without capabilities, so most of
 * these would fail anyway; the point is to keep kernel code that untrusted
 * programs have used to escalate out of reach altogether. */
static const char *const deny_syscalls[] = {
	/* the filesystem view is fixed: no mount API, no chroot games */
	"mount",
	"umount",
	"umount2",
	"pivot_root",
	"chroot",
	"move_mount",
	"open_tree",
	"fsopen",
	"fsconfig",
	"fsmount",
	"fspick",
	"mount_setattr",
	/* new namespaces, user namespaces above all, expose kernel code meant
	 * for root to unprivileged users (many local root exploits start with
	 * unshare(CLONE_NEWUSER)); clone(2) with namespace flags is refused by
	 * the argument rules below */
	"unshare",
	"setns",
	/* kernel code loading and replacement */
	"init_module",
	"finit_module",
	"delete_module",
	"kexec_load",
	"kexec_file_load",
	/* large, frequently exploited interfaces ordinary programs do without */
	"bpf",
	"perf_event_open",
	"userfaultfd",
	"io_uring_setup",
	"io_uring_enter",
	"io_uring_register",
	/* other processes' memory (even inside the sandbox) */
	"ptrace",
	"process_vm_readv",
	"process_vm_writev",
	/* the kernel keyring is not namespaced */
	"keyctl",
	"add_key",
	"request_key",
	/* file handles bypass path-based confinement (the "shocker" escape) */
	"open_by_handle_at",
	"name_to_handle_at",
	/* host administration */
	"reboot",
	"swapon",
	"swapoff",
	"acct",
	"quotactl",
	"quotactl_fd",
	"syslog",
	"settimeofday",
	"clock_settime",
	"clock_adjtime",
	"vhangup",
	"iopl",
	"ioperm",
	"lookup_dcookie",
	"nfsservctl",
	"uselib",
	"fanotify_init",
};

/* ioctls injecting input into the caller's terminal (stdin passes through). */
static const uint64_t deny_ioctls[] = { 0x5412 /* TIOCSTI */, 0x541C /* TIOCLINUX */ };

static int add_rule(oci_seccomp *sc, const char *const *names, size_t n, uint32_t errnum, oci_seccomp_syscall **out,
		    cv_error_t *err)
{
	oci_seccomp_syscall *nv = realloc(sc->syscalls, (sc->syscalls_len + 1) * sizeof(*nv));
	if (!nv)
		return cv_error(err, ENOMEM, "sandbox seccomp");
	sc->syscalls = nv;
	oci_seccomp_syscall *r = &nv[sc->syscalls_len++];
	memset(r, 0, sizeof(*r));
	r->action = strdup("SCMP_ACT_ERRNO");
	if (!r->action)
		return cv_error(err, ENOMEM, "sandbox seccomp");
	r->errno_ret = (oci_opt_u32){ .set = true, .v = errnum };
	for (size_t i = 0; i < n; i++)
		if (strv_add(&r->names, names[i], err) < 0)
			return -1;
	if (out)
		*out = r;
	return 0;
}

/* One more condition on rule R (all of a rule's conditions must hold):
 * argument INDEX masked by MASK equals VALUE. */
static int add_arg(oci_seccomp_syscall *r, uint32_t index, uint64_t mask, uint64_t value, cv_error_t *err)
{
	oci_seccomp_arg *na = realloc(r->args, (r->args_len + 1) * sizeof(*na));
	if (!na)
		return cv_error(err, ENOMEM, "sandbox seccomp");
	r->args = na;
	na[r->args_len] = (oci_seccomp_arg){ .index = index,
					     .value = mask,
					     .value_two = { .set = true, .v = value },
					     .op = strdup("SCMP_CMP_MASKED_EQ") };
	return na[r->args_len++].op ? 0 : cv_error(err, ENOMEM, "sandbox seccomp");
}

/* Calls that give a file its mode, and the index of the mode argument. */
static const struct {
	const char *name;
	uint32_t mode_arg;
	int flags_arg; /* the open flags: only a creating open takes a mode; -1: always */
} mode_syscalls[] = {
	{ "chmod", 1, -1 },   { "fchmod", 1, -1 }, { "fchmodat", 2, -1 }, { "fchmodat2", 2, -1 },
	{ "creat", 1, -1 },   { "open", 2, 1 },    { "openat", 3, 2 },    { "mknod", 1, -1 },
	{ "mknodat", 2, -1 }, { "mkdir", 1, -1 },  { "mkdirat", 2, -1 },
};

/* No set-user-ID or set-group-ID file: the workspace takes the run's files
 * back to the host (owned by its owner, root for a root caller), where
 * anyone able to reach it could run them. Refused with EPERM; openat2 takes
 * its mode in memory a filter cannot read: ENOSYS makes libc fall back. */
static int add_setid_rules(oci_seccomp *sc, cv_error_t *err)
{
	static const uint64_t setid[] = { S_ISUID, S_ISGID };
	static const uint64_t creating[] = { O_CREAT, O_TMPFILE & ~O_DIRECTORY };
	static const char *const openat2[] = { "openat2" };
	if (add_rule(sc, openat2, 1, ENOSYS, NULL, err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(mode_syscalls) / sizeof(mode_syscalls[0]); i++) {
		const char *name[] = { mode_syscalls[i].name };
		for (size_t b = 0; b < 2; b++) {
			for (size_t f = 0; f < (mode_syscalls[i].flags_arg < 0 ? 1 : 2); f++) {
				oci_seccomp_syscall *r;
				if (add_rule(sc, name, 1, EPERM, &r, err) < 0 ||
				    add_arg(r, mode_syscalls[i].mode_arg, setid[b], setid[b], err) < 0)
					return -1;
				if (mode_syscalls[i].flags_arg >= 0 &&
				    add_arg(r, (uint32_t)mode_syscalls[i].flags_arg, creating[f], creating[f], err) < 0)
					return -1;
			}
		}
	}
	return 0;
}

/* Unless the network is the host's: no unix socket of the host may be
 * reached, and a path or an abstract name is all it takes (connect(2) is
 * not stopped by a read-only mount). So no AF_UNIX socket(2) at all, and of
 * socketpair(2) only stream and seqpacket pairs: those are connected for
 * good, while a datagram socket may send to any path (sendto, connect).
 * EAFNOSUPPORT: what programs meet where a family is missing. */
static int add_unix_socket_rules(oci_seccomp *sc, cv_error_t *err)
{
	static const char *const sock[] = { "socket" };
	static const char *const pair[] = { "socketpair" };
	oci_seccomp_syscall *r;
	if (add_rule(sc, sock, 1, EAFNOSUPPORT, &r, err) < 0 || add_arg(r, 0, 0xffffffffull, AF_UNIX, err) < 0)
		return -1;
	/* the type's low bits (SOCK_NONBLOCK and SOCK_CLOEXEC above them) */
	if (add_rule(sc, pair, 1, EAFNOSUPPORT, &r, err) < 0 || add_arg(r, 0, 0xffffffffull, AF_UNIX, err) < 0 ||
	    add_arg(r, 1, 0xf, SOCK_DGRAM, err) < 0)
		return -1;
	return 0;
}

int cv_sandbox_seccomp(enum cv_policy_network net, bool deny_listen, oci_seccomp **out, cv_error_t *err)
{
	oci_seccomp *sc = calloc(1, sizeof(*sc));
	cleanup_spec oci_spec *holder = calloc(1, sizeof(*holder)); /* frees sc on failure */
	if (!sc || !holder || !(holder->linux_ = calloc(1, sizeof(*holder->linux_)))) {
		free(sc);
		return cv_error(err, ENOMEM, "sandbox seccomp");
	}
	holder->linux_->seccomp = sc;
	sc->default_action = strdup("SCMP_ACT_ALLOW");
	if (!sc->default_action)
		return cv_error(err, ENOMEM, "sandbox seccomp");
	if (add_rule(sc, deny_syscalls, sizeof(deny_syscalls) / sizeof(deny_syscalls[0]), EPERM, NULL, err) < 0)
		return -1;
	/* clone3 passes its flags in memory a filter cannot read: ENOSYS makes
	 * libc fall back to clone(2), whose flags it can */
	static const char *const clone3[] = { "clone3" };
	if (add_rule(sc, clone3, 1, ENOSYS, NULL, err) < 0)
		return -1;
	static const uint64_t ns_flags[] = NS_CLONE_FLAGS;
	static const char *const clone[] = { "clone" };
	for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
		oci_seccomp_syscall *r;
		if (add_rule(sc, clone, 1, EPERM, &r, err) < 0 || add_arg(r, 0, ns_flags[i], ns_flags[i], err) < 0)
			return -1;
	}
	static const char *const ioctl[] = { "ioctl" };
	for (size_t i = 0; i < sizeof(deny_ioctls) / sizeof(deny_ioctls[0]); i++) {
		oci_seccomp_syscall *r;
		/* compare the low 32 bits: the kernel truncates the request to int */
		if (add_rule(sc, ioctl, 1, EPERM, &r, err) < 0 || add_arg(r, 1, 0xffffffffull, deny_ioctls[i], err) < 0)
			return -1;
	}
	if (add_setid_rules(sc, err) < 0)
		return -1;
	if (net != CV_POLICY_NET_HOST && add_unix_socket_rules(sc, err) < 0)
		return -1;
	/* listen(2) takes only an fd: no filter can tell a TCP socket from a
	 * UNIX one, so servers of every kind are refused (io_uring, which
	 * could listen too, is denied above) */
	static const char *const listen_[] = { "listen" };
	if (deny_listen && add_rule(sc, listen_, 1, EPERM, NULL, err) < 0)
		return -1;
	holder->linux_->seccomp = NULL;
	*out = sc;
	return 0;
}

/* ---- the spec ---- */

/* The first id of root's first range in FILE (/etc/subuid, /etc/subgid:
 * "root:START:COUNT" or "0:START:COUNT"); false when it has none. */
static bool root_subid(const char *file, uint32_t *out)
{
	cleanup_fclose FILE *f = fopen(file, "re");
	char line[256];
	while (f && fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long long start, count;
		if (sscanf(line, "%63[^:]:%llu:%llu", name, &start, &count) == 3 &&
		    (!strcmp(name, "root") || !strcmp(name, "0")) && start > 0 && count > 0 && start < UINT32_MAX) {
			*out = (uint32_t)start;
			return true;
		}
	}
	return false;
}

int cv_sandbox_host_init(struct cv_sandbox_host *h, bool find_slirp, cv_error_t *err)
{
	extern char **environ;
	memset(h, 0, sizeof(*h));
	h->environ = environ;
	h->uid = geteuid();
	h->gid = getegid();
	/* ids the administrator set aside for root's containers are the
	 * natural home of its sandboxes; nobody owns nothing otherwise */
	uint32_t id;
	h->sandbox_uid = h->uid == 0 && root_subid("/etc/subuid", &id) ? id : CV_SANDBOX_NOBODY;
	h->sandbox_gid = h->uid == 0 && root_subid("/etc/subgid", &id) ? id : CV_SANDBOX_NOBODY;
	struct sysinfo si;
	h->ram = sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : 0;
	h->home = getenv("HOME");
	if (!h->home || h->home[0] != '/') {
		cleanup_free char *home = NULL;
		h->home = NULL;
		if (cv_passwd_by_uid(NULL, h->uid, NULL, &home) < 0)
			return cv_error(err, ENOMEM, "sandbox: home directory");
		if (home && home[0] == '/' && strlen(home) < sizeof(h->home_buf))
			h->home = strcpy(h->home_buf, home);
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_CPU, &rl) < 0)
		return cv_error_errno(err, "getrlimit RLIMIT_CPU");
	h->hard_cpu = rl.rlim_max;
	if (getrlimit(RLIMIT_FSIZE, &rl) < 0)
		return cv_error_errno(err, "getrlimit RLIMIT_FSIZE");
	h->hard_fsize = rl.rlim_max;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return cv_error_errno(err, "getrlimit RLIMIT_NOFILE");
	h->hard_nofile = rl.rlim_max;
	/* the build tree's hook for tests; the installed one otherwise */
	const char *hook = getenv("CVISOR_SLIRP_HOOK");
	h->slirp_hook = hook && hook[0] == '/' ? hook : NULL;
	h->slirp4netns = find_slirp && cv_find_program("slirp4netns", h->slirp4netns_buf, sizeof(h->slirp4netns_buf))
				 ? h->slirp4netns_buf
				 : NULL;
	return 0;
}

static int check_hard(const char *key, uint64_t want, uint64_t hard, cv_error_t *err)
{
	if (hard == (uint64_t)RLIM_INFINITY || want <= hard)
		return 0;
	return cv_error(err, 0,
			"policy: %s: %llu is above this process's hard limit %llu (raising a hard limit needs "
			"CAP_SYS_RESOURCE)",
			key, (unsigned long long)want, (unsigned long long)hard);
}

static int build_limits(const cv_policy *p, const struct cv_sandbox_host *h, oci_spec *s, cv_error_t *err)
{
	oci_process *proc = s->process;
	/* no core files of untrusted programs (lowering a limit needs no privilege) */
	if (add_rlimit(proc, "RLIMIT_CORE", 0, 0, err) < 0)
		return -1;
	if (p->cpu_seconds.set) {
		uint64_t n = p->cpu_seconds.v;
		if (check_hard("cpu_seconds", n, h->hard_cpu, err) < 0)
			return -1;
		/* SIGXCPU at the limit, SIGKILL one second later if ignored */
		uint64_t hard = h->hard_cpu == (uint64_t)RLIM_INFINITY || n + 1 <= h->hard_cpu ? n + 1 : n;
		if (add_rlimit(proc, "RLIMIT_CPU", n, hard, err) < 0)
			return -1;
	}
	if (p->max_file_size.set) {
		if (check_hard("max_file_size", p->max_file_size.v, h->hard_fsize, err) < 0 ||
		    add_rlimit(proc, "RLIMIT_FSIZE", p->max_file_size.v, p->max_file_size.v, err) < 0)
			return -1;
	}
	if (p->open_files.set) {
		if (check_hard("open_files", p->open_files.v, h->hard_nofile, err) < 0 ||
		    add_rlimit(proc, "RLIMIT_NOFILE", p->open_files.v, p->open_files.v, err) < 0)
			return -1;
	}
	if (!p->memory.set && !p->cpus_milli.set && !p->processes.set)
		return 0;
	oci_resources *r = calloc(1, sizeof(*r));
	if (!r)
		return cv_error(err, ENOMEM, "sandbox spec");
	s->linux_->resources = r;
	if (p->memory.set) {
		if (!(r->memory = calloc(1, sizeof(*r->memory))))
			return cv_error(err, ENOMEM, "sandbox spec");
		r->memory->limit = (oci_opt_i64){ .set = true, .v = (int64_t)p->memory.v };
	}
	if (p->cpus_milli.set) {
		if (!(r->cpu = calloc(1, sizeof(*r->cpu))))
			return cv_error(err, ENOMEM, "sandbox spec");
		r->cpu->period = (oci_opt_u64){ .set = true, .v = CPU_PERIOD_US };
		r->cpu->quota = (oci_opt_i64){ .set = true, .v = (int64_t)(p->cpus_milli.v * CPU_PERIOD_US / 1000) };
	}
	if (p->processes.set) {
		r->has_pids = true;
		r->pids_limit = (oci_opt_i64){ .set = true, .v = (int64_t)p->processes.v };
	}
	return 0;
}

/* ---- writable areas ---- */

/* A host directory bound at its own path: the workspace, a writable or a
 * deny_write path, or a directory between a writable one and a denied path
 * below it (bound onto itself: a mount point cannot be renamed or removed,
 * EBUSY, so the denied path stays where the policy names it). */
struct area {
	char *path; /* canonical */
	bool rw;
	/* a root caller's: idmapped, the directory's owner on disk being the
	 * program's host identity (so the program may write there as owner) */
	bool mapped;
	uint32_t owner_uid, owner_gid;
};

struct areas {
	struct area *v;
	size_t len;
};

static void areas_free(struct areas *a)
{
	for (size_t i = 0; i < a->len; i++)
		free(a->v[i].path);
	free(a->v);
}

/* Takes PATH. */
static int area_add(struct areas *a, char *path, bool rw, bool mapped, uint32_t uid, uint32_t gid, cv_error_t *err)
{
	struct area *nv = realloc(a->v, (a->len + 1) * sizeof(*nv));
	if (!nv) {
		free(path);
		return cv_error(err, ENOMEM, "sandbox spec");
	}
	a->v = nv;
	nv[a->len++] = (struct area){ .path = path, .rw = rw, .mapped = mapped, .owner_uid = uid, .owner_gid = gid };
	return 0;
}

/* The deepest area holding PATH strictly below it (the later of two at
 * one path: a deny_write over a writable one), or NULL. */
static const struct area *innermost(const struct areas *a, const char *path)
{
	const struct area *best = NULL;
	for (size_t i = 0; i < a->len; i++)
		if (strcmp(a->v[i].path, path) != 0 && under(path, a->v[i].path) &&
		    (!best || strlen(a->v[i].path) >= strlen(best->path)))
			best = &a->v[i];
	return best;
}

/* The credential list always wins over writable directories: REAL (what
 * GIVEN resolves to) may neither lie in one of its paths nor hold one, even
 * one that does not exist yet (the program could create it there, as
 * ~/.ssh/authorized_keys). Checked on the resolved path: a symlink planted
 * by an earlier run leads nowhere the list names. */
static int check_credentials(const struct cv_sandbox_host *h, const char *key, const char *given, const char *real,
			     cv_error_t *err)
{
	static const char *const creds[] = { CV_SANDBOX_DEFAULT_DENY_READ };
	for (size_t i = 0; i < sizeof(creds) / sizeof(creds[0]); i++) {
		if (creds[i][0] == '~' && !h->home)
			continue;
		cleanup_free char *e = NULL;
		if (expand(creds[i], h, "deny_read", &e, err) < 0)
			return -1;
		cleanup_free char *r = realpath(e, NULL);
		const char *forms[] = { e, r };
		for (size_t k = 0; k < 2; k++) {
			if (!forms[k])
				continue;
			if (under(real, forms[k]) && strcmp(given, real) != 0)
				return cv_error(
					err, 0,
					"policy: %s: `%s` resolves to `%s`, in `%s` of the credential list: the "
					"credential list always wins over writable directories",
					key, given, real, creds[i]);
			if (under(real, forms[k]))
				return cv_error(
					err, 0,
					"policy: %s: `%s` is in `%s` of the credential list: the credential list "
					"always wins over writable directories",
					key, given, creds[i]);
			if (under(forms[k], real))
				return cv_error(
					err, 0,
					"policy: %s: `%s` holds `%s` (`%s` of the credential list): the credential "
					"list always wins over writable directories",
					key, given, forms[k], creds[i]);
		}
	}
	return 0;
}

/* The workspace or a writable directory: resolved, checked, then an area
 * (its canonical path in *real when REAL is not NULL). */
static int writable_area(const char *path, const char *key, const struct cv_sandbox_host *h, struct areas *a,
			 char **real, cv_error_t *err)
{
	cleanup_free char *e = NULL, *dir = NULL;
	struct stat st;
	if (expand(path, h, key, &e, err) < 0 || host_dir(e, key, &dir, &st, err) < 0 ||
	    check_credentials(h, key, e, dir, err) < 0)
		return -1;
	if (real && !(*real = strdup(dir)))
		return cv_error(err, ENOMEM, "sandbox spec");
	return area_add(a, steal_pointer(&dir), true, h->uid == 0, (uint32_t)st.st_uid, (uint32_t)st.st_gid, err);
}

/* Every directory strictly between the innermost writable area holding
 * DENIED and DENIED becomes an area too (see struct area). */
static int protect_ancestors(struct areas *a, const char *denied, cv_error_t *err)
{
	const struct area *in = innermost(a, denied);
	if (!in || !in->rw)
		return 0;    /* out of the program's reach already */
	struct area w = *in; /* a->v moves as areas are added */
	const char *slash = denied + strlen(w.path);
	while ((slash = strchr(slash + 1, '/'))) {
		cleanup_free char *dir = strndup(denied, (size_t)(slash - denied));
		if (!dir)
			return cv_error(err, ENOMEM, "sandbox spec");
		bool have = false;
		for (size_t i = 0; i < a->len && !have; i++)
			have = strcmp(a->v[i].path, dir) == 0;
		if (!have && area_add(a, steal_pointer(&dir), true, w.mapped, w.owner_uid, w.owner_gid, err) < 0)
			return -1;
	}
	return 0;
}

static size_t depth(const char *path)
{
	size_t d = 0;
	for (; *path; path++)
		d += *path == '/';
	return d;
}

static int add_areas(struct areas *a, const struct cv_sandbox_host *h, oci_spec *s, cv_error_t *err)
{
	/* parents first, whatever order the policy named them in (stable:
	 * a deny_write at a writable one's path comes after it) */
	for (size_t i = 1; i < a->len; i++)
		for (size_t j = i; j > 0 && depth(a->v[j - 1].path) > depth(a->v[j].path); j--) {
			struct area t = a->v[j];
			a->v[j] = a->v[j - 1];
			a->v[j - 1] = t;
		}
	for (size_t i = 0; i < a->len; i++) {
		const struct area *ar = &a->v[i];
		const char *const o[] = { "rbind", ar->rw ? "rw" : "ro",        "nosuid",
					  "nodev", ar->mapped ? "idmap" : NULL, NULL };
		if (add_mount(s, ar->path, "bind", ar->path, o, err) < 0)
			return -1;
		if (!ar->mapped)
			continue;
		oci_mount *m = &s->mounts[s->mounts_len - 1];
		m->uid_mappings.v = malloc(sizeof(oci_id_mapping));
		m->gid_mappings.v = malloc(sizeof(oci_id_mapping));
		if (!m->uid_mappings.v || !m->gid_mappings.v)
			return cv_error(err, ENOMEM, "sandbox spec");
		m->uid_mappings.v[0] = (oci_id_mapping){ .container_id = ar->owner_uid,
							 .host_id = (uint32_t)h->sandbox_uid,
							 .size = 1 };
		m->gid_mappings.v[0] = (oci_id_mapping){ .container_id = ar->owner_gid,
							 .host_id = (uint32_t)h->sandbox_gid,
							 .size = 1 };
		m->uid_mappings.len = m->gid_mappings.len = 1;
	}
	return 0;
}

/* The size option of /tmp and of the private workspace. */
static void tmp_size_opt(const cv_policy *p, const struct cv_sandbox_host *h, char *buf, size_t size)
{
	uint64_t v = CV_SANDBOX_TMP_SIZE;
	if (p->tmp_size.set)
		v = p->tmp_size.v;
	else if (p->memory.set) /* tmpfs pages count against it anyway */
		v = p->memory.v;
	else if (h->ram && h->ram / 2 < v)
		v = h->ram / 2;
	snprintf(buf, size, "size=%llu", (unsigned long long)v);
}

static int build_mounts(const cv_policy *p, const struct cv_sandbox_host *h, uint32_t uid, uint32_t gid, oci_spec *s,
			cv_error_t *err)
{
	char size[40];
	tmp_size_opt(p, h, size, sizeof(size));
	static const char *const proc_o[] = { "nosuid", "noexec", "nodev", NULL };
	static const char *const dev_o[] = { "nosuid", "strictatime", "mode=755", "size=" CV_SANDBOX_SMALL_TMPFS,
					     NULL };
	static const char *const pts_o[] = { "nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", NULL };
	static const char *const shm_o[] = { "nosuid", "noexec", "nodev", "mode=1777", "size=" CV_SANDBOX_SMALL_TMPFS,
					     NULL };
	static const char *const sys_o[] = { "nosuid", "noexec", "nodev", "ro", NULL };
	const char *const tmp_o[] = { "nosuid", "nodev", "mode=1777", size, NULL };
	static const char *const run_o[] = { "nosuid", "nodev", "mode=755", "size=" CV_SANDBOX_SMALL_TMPFS, NULL };
	if (add_mount(s, "/proc", "proc", "proc", proc_o, err) < 0 ||
	    add_mount(s, "/dev", "tmpfs", "tmpfs", dev_o, err) < 0 ||
	    add_mount(s, "/dev/pts", "devpts", "devpts", pts_o, err) < 0 ||
	    add_mount(s, "/dev/shm", "tmpfs", "shm", shm_o, err) < 0)
		return -1;
	if (add_mount(s, "/tmp", "tmpfs", "tmpfs", tmp_o, err) < 0 ||
	    add_mount(s, "/run", "tmpfs", "tmpfs", run_o, err) < 0)
		return -1;

	__attribute__((cleanup(areas_free))) struct areas a = { 0 };
	if (p->workspace) {
		if (writable_area(p->workspace, "workspace", h, &a, &s->process->cwd, err) < 0)
			return -1;
	} else if (p->persistent_root) {
		/* the keeper made it in the overlay, the program's own */
		if (!(s->process->cwd = strdup(CV_SANDBOX_PERSISTENT_WORKSPACE)))
			return cv_error(err, ENOMEM, "sandbox spec");
	} else {
		char uidopt[32], gidopt[32];
		snprintf(uidopt, sizeof(uidopt), "uid=%u", uid);
		snprintf(gidopt, sizeof(gidopt), "gid=%u", gid);
		const char *const ws_o[] = { "nosuid", "nodev", "mode=700", uidopt, gidopt, size, NULL };
		if (add_mount(s, CV_SANDBOX_PRIVATE_WORKSPACE, "tmpfs", "tmpfs", ws_o, err) < 0)
			return -1;
		if (!(s->process->cwd = strdup(CV_SANDBOX_PRIVATE_WORKSPACE)))
			return cv_error(err, ENOMEM, "sandbox spec");
	}
	/* sysfs can be mounted only by the owner of the network namespace: with
	 * the host's network the runtime binds the host's /sys instead, and in
	 * a user namespace only with what is mounted below it (build_masks
	 * hides the cgroup filesystems then); in a keeper's kept namespace, the
	 * run binds the sysfs the keeper mounted for it. Last of the
	 * filesystems: a new network namespace is made while the ones above
	 * are mounted (cv_netns_maker), and sysfs waits for it. */
	static const char *const sys_bind_o[] = { "rbind", "nosuid", "noexec", "nodev", "ro", NULL };
	bool kept_net = p->network == CV_POLICY_NET_OUTBOUND && p->netns_path && p->netns_sysfs;
	if ((kept_net ? add_mount(s, "/sys", "bind", p->netns_sysfs, sys_bind_o, err)
		      : add_mount(s, "/sys", "sysfs", "sysfs", sys_o, err)) < 0)
		return -1;
	for (size_t i = 0; i < p->writable.len; i++)
		if (writable_area(p->writable.v[i], "writable", h, &a, NULL, err) < 0)
			return -1;
	size_t nrw = a.len;
	for (size_t i = 0; i < p->deny_write.len; i++) {
		cleanup_free char *e = NULL;
		if (expand(p->deny_write.v[i], h, "deny_write", &e, err) < 0)
			return -1;
		char *real = realpath(e, NULL);
		if (!real) {
			if (errno != ENOENT)
				return cv_error_errno(err, "policy: deny_write: `%s`", e);
			/* nothing to protect yet; the program may create it
			 * only if its parent is writable, which the user chose */
			cv_warn("policy: deny_write: `%s` does not exist, nothing to bind read-only", e);
			continue;
		}
		/* seen as the writable area around it shows it */
		const struct area *in = innermost(&a, real);
		bool mapped = in && in->rw && in->mapped;
		if (area_add(&a, real, false, mapped, mapped ? in->owner_uid : 0, mapped ? in->owner_gid : 0, err) < 0)
			return -1;
	}
	/* what the program must not move: the deny_write paths (the areas
	 * from nrw on) and the deny_read ones that exist */
	for (size_t i = nrw, n = a.len; i < n; i++) {
		cleanup_free char *denied = strdup(a.v[i].path);
		if (!denied)
			return cv_error(err, ENOMEM, "sandbox spec");
		if (protect_ancestors(&a, denied, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < p->deny_read.len; i++) {
		cleanup_free char *e = NULL;
		if (expand(p->deny_read.v[i], h, "deny_read", &e, err) < 0)
			return -1;
		cleanup_free char *real = realpath(e, NULL);
		if (real && protect_ancestors(&a, real, err) < 0)
			return -1;
	}
	return add_areas(&a, h, s, err);
}

static int build_masks(const cv_policy *p, const struct cv_sandbox_host *h, const char *root, oci_spec *s,
		       cv_error_t *err)
{
	oci_linux *l = s->linux_;
	/* kernel interfaces no sandbox needs (runc's defaults) */
	static const char *const masked[] = { "/proc/acpi", "/proc/asound", "/proc/interrupts", "/proc/kcore",
					      "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
					      "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware",
					      "/sys/devices/virtual/powercap",
					      /* the physical address of the kernel's crash notes */
					      "/sys/kernel/vmcoreinfo", NULL };
	static const char *const readonly[] = { "/proc/bus",           "/proc/fs", "/proc/irq", "/proc/sys",
						"/proc/sysrq-trigger", NULL };
	static const char *const defaults[] = { CV_SANDBOX_DEFAULT_DENY_READ };
	if (strv_addv(&l->masked_paths, masked, err) < 0 || strv_addv(&l->readonly_paths, readonly, err) < 0)
		return -1;
	/* the host's /sys with the host's network: its cgroup filesystems show
	 * the host's whole tree (a sandbox's own sysfs has none) */
	if (p->network == CV_POLICY_NET_HOST && strv_add(&l->masked_paths, "/sys/fs/cgroup", err) < 0)
		return -1;
	size_t nd = sizeof(defaults) / sizeof(defaults[0]);
	for (size_t i = 0; i < nd + p->deny_read.len; i++) {
		bool is_default = i < nd;
		const char *path = is_default ? defaults[i] : p->deny_read.v[i - nd];
		cleanup_free char *e = NULL;
		if (path[0] == '~' && is_default && !h->home)
			continue; /* no home, no credential stores in it */
		if (expand(path, h, "deny_read", &e, err) < 0)
			return -1;
		/* mask what the path leads to, so a symlink to the secret is no
		 * way around it; a missing default is skipped, a missing
		 * deny_read is said and masked anyway (the runtime ignores it
		 * if it still does not exist when the sandbox starts) */
		cleanup_free char *inside = NULL;
		struct stat lst;
		/* most defaults do not exist: one lstat, not realpath's walk */
		if (is_default && strcmp(root, "/") == 0 && lstat(e, &lst) < 0 && errno == ENOENT)
			continue;
		if (strcmp(root, "/") == 0)
			inside = realpath(e, NULL);
		if (!inside) {
			cleanup_free char *in_root = NULL;
			struct stat st;
			if (asprintf(&in_root, "%s%s", strcmp(root, "/") == 0 ? "" : root, e) < 0)
				return cv_error(err, ENOMEM, "sandbox spec");
			if (lstat(in_root, &st) < 0) {
				if (is_default)
					continue;
				cv_warn("policy: deny_read: `%s` does not exist, nothing to hide (what the program "
					"makes there is not hidden)",
					e);
			}
			inside = steal_pointer(&e);
		}
		if (!strv_has(&l->masked_paths, inside) && strv_add(&l->masked_paths, inside, err) < 0)
			return -1;
	}
	/* a path under another masked one is hidden already (~/.ssh under
	 * /root): one mount less each */
	size_t n = l->masked_paths.len, kept = 0;
	cleanup_free bool *covered = calloc(n + 1, sizeof(*covered));
	if (!covered)
		return cv_error(err, ENOMEM, "sandbox spec");
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n && !covered[i]; j++)
			covered[i] = strcmp(l->masked_paths.v[j], l->masked_paths.v[i]) != 0 &&
				     under(l->masked_paths.v[i], l->masked_paths.v[j]);
	for (size_t i = 0; i < n; i++) {
		if (covered[i])
			free(l->masked_paths.v[i]);
		else
			l->masked_paths.v[kept++] = l->masked_paths.v[i];
	}
	l->masked_paths.len = kept;
	l->masked_paths.v[kept] = NULL;
	return 0;
}

/* "outbound": a createRuntime hook (run by the runtime once the namespaces
 * exist, before the program starts) gives the new network namespace
 * slirp4netns; see hooks/cvisor-slirp.c. */
int cv_sandbox_network_hook(const cv_policy *p, const struct cv_sandbox_host *h, oci_spec *s, cv_error_t *err)
{
	const char *hook = h->slirp_hook ? h->slirp_hook : CV_SANDBOX_SLIRP_HOOK;
	if (access(hook, X_OK) < 0)
		return cv_error_errno(err, "policy: network: \"outbound\" needs the hook program `%s`", hook);
	if (!h->slirp4netns)
		return cv_error(err, 0,
				"policy: network: \"outbound\" needs slirp4netns, which is not in PATH (Debian package "
				"slirp4netns)");
	if (!(s->hooks = calloc(1, sizeof(*s->hooks))) || !(s->hooks->create_runtime.v = calloc(1, sizeof(oci_hook))))
		return cv_error(err, ENOMEM, "sandbox spec");
	s->hooks->create_runtime.len = 1;
	oci_hook *hk = &s->hooks->create_runtime.v[0];
	if (!(hk->path = strdup(hook)))
		return cv_error(err, ENOMEM, "sandbox spec");
	hk->timeout = (oci_opt_i64){ .set = true, .v = CV_SANDBOX_SLIRP_TIMEOUT };
	const char *base = strrchr(hook, '/') ? strrchr(hook, '/') + 1 : hook;
	if (strv_add(&hk->args, base, err) < 0 || strv_add(&hk->args, "--slirp4netns", err) < 0 ||
	    strv_add(&hk->args, h->slirp4netns, err) < 0)
		return -1;
	if (p->allow_host_loopback.set && p->allow_host_loopback.v &&
	    strv_add(&hk->args, "--allow-host-loopback", err) < 0)
		return -1;
	/* the hook gets exactly this environment, nothing of the caller's */
	return strv_add(&hk->env, "PATH=" DEFAULT_PATH, err);
}

static int build_network_hook(const cv_policy *p, const struct cv_sandbox_host *h, oci_spec *s, cv_error_t *err)
{
	if (p->network != CV_POLICY_NET_OUTBOUND) {
		if (p->allow_host_loopback.set && p->allow_host_loopback.v)
			return cv_error(err, 0,
					"policy: allow_host_loopback: only meaningful with network \"outbound\"");
		return 0;
	}
	/* a keeper's namespace has its slirp4netns already */
	if (p->netns_path)
		return 0;
	return cv_sandbox_network_hook(p, h, s, err);
}

void cv_sandbox_do_only_keys(const cv_policy *p, char *buf, size_t size)
{
	const char *keys[] = { p->timeout_ms.set ? "timeout" : NULL,
			       p->max_output_bytes.set ? "max_output_bytes" : NULL,
			       p->require_limits.set && p->require_limits.v ? "require_limits" : NULL };
	buf[0] = '\0';
	for (size_t i = 0, n = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i])
			n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? ", " : "", keys[i]);
}

int cv_sandbox_spec(const cv_policy *p, const struct cv_sandbox_host *h, char *const *args, oci_spec **out,
		    cv_error_t *err)
{
	cleanup_spec oci_spec *s = calloc(1, sizeof(*s));
	if (!s || !(s->oci_version = strdup(OCI_VERSION)) || !(s->root = calloc(1, sizeof(*s->root))) ||
	    !(s->process = calloc(1, sizeof(*s->process))) || !(s->linux_ = calloc(1, sizeof(*s->linux_))) ||
	    !(s->hostname = strdup("sandbox")))
		return cv_error(err, ENOMEM, "sandbox spec");

	cleanup_free char *root = NULL;
	if (p->rootfs) {
		cleanup_free char *e = NULL;
		if (expand(p->rootfs, h, "rootfs", &e, err) < 0 || host_dir(e, "rootfs", &root, NULL, err) < 0)
			return -1;
	} else if (!(root = strdup("/"))) {
		return cv_error(err, ENOMEM, "sandbox spec");
	}
	/* the root, with every mount below it, read-only, nosuid and nodev
	 * (the runtime's recursive clone of root.path, see rootfs.c) */
	if (!(s->root->path = strdup(root)))
		return cv_error(err, ENOMEM, "sandbox spec");
	/* a keeper's overlay takes the writes (policy.h, persistent_root) */
	s->root->readonly = !p->persistent_root;
	if (add_annotation(s, CV_ROOTFS_ANNOTATION_FLAGS, "nosuid,nodev", err) < 0)
		return -1;
	/* what the host has mounted there stays out of the mount table: the
	 * sandbox mounts its own filesystems on each (build_mounts) */
	if (add_annotation(s, CV_ROOTFS_ANNOTATION_HIDE, "/dev,/proc,/sys,/run,/tmp", err) < 0)
		return -1;

	oci_process *proc = s->process;
	uint32_t uid = p->user_set ? p->uid : (uint32_t)h->uid;
	uint32_t gid = p->user_set ? p->gid : (uint32_t)h->gid;
	proc->user.uid = uid;
	proc->user.gid = gid;
	static const char *const sh[] = { "sh", NULL };
	if (strv_addv(&proc->args, args ? (const char *const *)args : sh, err) < 0)
		return -1;
	if (proc->args.len == 0)
		return cv_error(err, EINVAL, "sandbox: no program to run");
	if (build_env(p, h, &proc->env, err) < 0)
		return -1;
	/* every capability set present and empty: none at all */
	if (!(proc->capabilities = calloc(1, sizeof(*proc->capabilities))))
		return cv_error(err, ENOMEM, "sandbox spec");
	proc->capabilities->bounding.set = proc->capabilities->effective.set = true;
	proc->capabilities->inheritable.set = proc->capabilities->permitted.set = true;
	proc->capabilities->ambient.set = true;
	proc->no_new_privileges = true;
	if (build_limits(p, h, s, err) < 0)
		return -1;
	/* Only the v1 hierarchies the sandbox uses: memory (limit, peak and
	 * OOM kills for the report), pids and cpu when limited. Each other one
	 * costs a mkdir and an rmdir (~0.15 ms) and adds nothing: the pid
	 * namespace kills everything, and the mounts are nodev. */
	char controllers[sizeof(CV_SANDBOX_CGROUP_CONTROLLERS)];
	snprintf(controllers, sizeof(controllers), "memory%s%s", p->processes.set ? ",pids" : "",
		 p->cpus_milli.set ? ",cpu,cpuacct" : "");
	if (add_annotation(s, CV_CGROUP_ANNOTATION_CONTROLLERS, controllers, err) < 0)
		return -1;

	oci_linux *l = s->linux_;
	static const char *const ns[] = { "pid", "mount", "ipc", "uts", "cgroup" };
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (add_namespace(l, ns[i], NULL, err) < 0)
			return -1;
	const char *netns = p->network == CV_POLICY_NET_OUTBOUND ? p->netns_path : NULL;
	if (p->network != CV_POLICY_NET_HOST && add_namespace(l, "network", netns, err) < 0)
		return -1;
	/* A user namespace mapping only the program's ids: to the caller's own,
	 * or for a root caller to an unprivileged host identity (untrusted code
	 * never holds host root); nothing else of the host's ids exists inside. */
	if (add_namespace(l, "user", NULL, err) < 0)
		return -1;
	l->uid_mappings.v = malloc(sizeof(oci_id_mapping));
	l->gid_mappings.v = malloc(sizeof(oci_id_mapping));
	if (!l->uid_mappings.v || !l->gid_mappings.v)
		return cv_error(err, ENOMEM, "sandbox spec");
	uint32_t host_uid = (uint32_t)(h->uid == 0 ? h->sandbox_uid : h->uid);
	uint32_t host_gid = (uint32_t)(h->uid == 0 ? h->sandbox_gid : h->gid);
	l->uid_mappings.v[0] = (oci_id_mapping){ .container_id = uid, .host_id = host_uid, .size = 1 };
	l->gid_mappings.v[0] = (oci_id_mapping){ .container_id = gid, .host_id = host_gid, .size = 1 };
	l->uid_mappings.len = l->gid_mappings.len = 1;
	/* private from the start: a mount made on the host during the run
	 * (an automount, a FUSE or overlay mount, a bind of "/") never
	 * reaches the sandbox, read-write or not */
	if (!(l->rootfs_propagation = strdup("rprivate")))
		return cv_error(err, ENOMEM, "sandbox spec");
	if (build_mounts(p, h, uid, gid, s, err) < 0 || build_masks(p, h, root, s, err) < 0)
		return -1;
	if (p->run_cwd) {
		if (p->run_cwd[0] != '/')
			return cv_error(err, EINVAL, "sandbox: cwd `%s`: not an absolute path", p->run_cwd);
		free(s->process->cwd);
		if (!(s->process->cwd = strdup(p->run_cwd)))
			return cv_error(err, ENOMEM, "sandbox spec");
	}
	if (cv_sandbox_seccomp(p->network, p->deny_listen.set && p->deny_listen.v, &l->seccomp, err) < 0 ||
	    build_network_hook(p, h, s, err) < 0)
		return -1;

	char buf[32];
	if (p->timeout_ms.set) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)p->timeout_ms.v);
		if (add_annotation(s, CV_SANDBOX_ANNOTATION_TIMEOUT, buf, err) < 0)
			return -1;
	}
	if (p->max_output_bytes.set) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)p->max_output_bytes.v);
		if (add_annotation(s, CV_SANDBOX_ANNOTATION_MAX_OUTPUT, buf, err) < 0)
			return -1;
	}
	if (p->require_limits.set && p->require_limits.v &&
	    add_annotation(s, CV_SANDBOX_ANNOTATION_REQUIRE_LIMITS, "true", err) < 0)
		return -1;
	if (add_annotation(s, CV_SANDBOX_ANNOTATION_NETWORK, cv_policy_network_name(p->network), err) < 0)
		return -1;
	/* the program is never PID 1 (init.h) */
	if (add_annotation(s, CV_INIT_ANNOTATION, "true", err) < 0)
		return -1;
	*out = steal_pointer(&s);
	return 0;
}
