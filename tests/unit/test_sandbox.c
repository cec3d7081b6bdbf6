/* Unit tests for src/libcvisor/sandbox/sandbox.c: policy -> OCI spec. The host is
 * described by a struct (environment, home, ids, hard limits),
 * so every case is deterministic. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "sandbox/policy.h"
#include "oci/spec.h"
#include "cgroups/cgroups.h"
#include "fs/mounts.h"
#include "process/init.h"
#include "sandbox/sandbox.h"
#include "tap.h"

static char tmpdir[] = "/tmp/cvisor-test-sandbox-XXXXXX";
static char home[256], workspace[256];

static char *env_fixture[] = {
	"PATH=/usr/bin:/bin", "SECRET_TOKEN=hunter2", "LC_ALL=C.UTF-8", "HOME=/home/u",        "FOO=1",
	"TERMINAL_SECRET=x",  "TERM=xterm",           "LC_TOKEN=x",     "LC_IDENTIFICATION=C", NULL
};

static struct cv_sandbox_host host(uid_t uid)
{
	struct cv_sandbox_host h = { .environ = env_fixture,
				     .home = home,
				     .uid = uid,
				     .gid = uid,
				     .sandbox_uid = 100000,
				     .sandbox_gid = 100001,
				     .ram = 8ull << 30,
				     .hard_cpu = RLIM_INFINITY,
				     .hard_fsize = RLIM_INFINITY,
				     .hard_nofile = 4096 };
	return h;
}

static cv_policy *policy(const char *json)
{
	cv_error_t err = NULL;
	cv_policy *p = NULL;
	if (cv_policy_parse(json, strlen(json), "policy.json", &p, &err) < 0) {
		tap_diag("policy: %s", err->msg);
		cv_error_release(&err);
		return NULL;
	}
	return p;
}

/* Converts JSON for a host with UID; NULL and *msg on failure. */
static oci_spec *convert(const char *json, uid_t uid, char **msg)
{
	cleanup_policy cv_policy *p = policy(json);
	struct cv_sandbox_host h = host(uid);
	char *args[] = { "/bin/true", NULL };
	oci_spec *s = NULL;
	cv_error_t err = NULL;
	if (msg)
		*msg = NULL;
	if (!p || cv_sandbox_spec(p, &h, args, &s, &err) < 0) {
		if (msg && err)
			*msg = strdup(err->msg);
		cv_error_release(&err);
		return NULL;
	}
	return s;
}

static const oci_mount *mount_at(const oci_spec *s, const char *dest)
{
	const oci_mount *found = NULL;
	for (size_t i = 0; i < s->mounts_len; i++)
		if (!strcmp(s->mounts[i].destination, dest))
			found = &s->mounts[i];
	return found;
}

static bool has(const oci_strv *l, const char *v)
{
	for (size_t i = 0; i < l->len; i++)
		if (!strcmp(l->v[i], v))
			return true;
	return false;
}

static bool has_ns(const oci_spec *s, const char *type)
{
	for (size_t i = 0; i < s->linux_->namespaces_len; i++)
		if (!strcmp(s->linux_->namespaces[i].type, type))
			return true;
	return false;
}

static const oci_rlimit *rlimit(const oci_spec *s, const char *type)
{
	for (size_t i = 0; i < s->process->rlimits_len; i++)
		if (!strcmp(s->process->rlimits[i].type, type))
			return &s->process->rlimits[i];
	return NULL;
}

static bool env_has_name(const oci_spec *s, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < s->process->env.len; i++)
		if (!strncmp(s->process->env.v[i], name, n) && s->process->env.v[i][n] == '=')
			return true;
	return false;
}

/* The syscall rule with NAME and no argument condition. */
static const oci_seccomp_syscall *rule(const oci_seccomp *sc, const char *name, bool with_args)
{
	for (size_t i = 0; i < sc->syscalls_len; i++)
		if (has(&sc->syscalls[i].names, name) && (sc->syscalls[i].args_len > 0) == with_args)
			return &sc->syscalls[i];
	return NULL;
}

static void setup(void)
{
	if (!mkdtemp(tmpdir))
		abort();
	snprintf(home, sizeof(home), "%s/home", tmpdir);
	snprintf(workspace, sizeof(workspace), "%s/ws", tmpdir);
	char p[512];
	if (mkdir(home, 0700) < 0 || mkdir(workspace, 0700) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/.ssh", home);
	if (mkdir(p, 0700) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/ws/.git", tmpdir);
	if (mkdir(p, 0700) < 0)
		abort();
	const char *const dirs[] = { "ws/a", "ws/a/b", "ws/a/b/c", "ws/a/b/c/d", "extra" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, dirs[i]);
		if (mkdir(p, 0700) < 0)
			abort();
	}
	char target[512];
	snprintf(target, sizeof(target), "%s/.ssh", home);
	snprintf(p, sizeof(p), "%s/ws/link", tmpdir);
	if (symlink(target, p) < 0)
		abort();
}

static void cleanup(void)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", tmpdir);
}

static const char *annotation(const oci_spec *s, const char *key)
{
	for (size_t i = 0; s && i < s->annotations.len; i++)
		if (!strcmp(s->annotations.v[i].key, key))
			return s->annotations.v[i].value;
	return NULL;
}

static void test_defaults(void)
{
	cleanup_free char *msg = NULL;
	cleanup_spec oci_spec *s = convert("{}", 0, &msg);
	if (!ok(s != NULL, "empty policy converts")) {
		tap_diag("%s", msg);
		return;
	}
	ok(s->root && !strcmp(s->root->path, "/") && s->root->readonly, "root: the host's \"/\", read-only");
	is_str(annotation(s, CV_ROOTFS_ANNOTATION_FLAGS), "nosuid,nodev",
	       "the whole root tree nosuid and nodev (annotation)");
	is_str(annotation(s, CV_INIT_ANNOTATION), "true", "a minimal init is PID 1, not the program (annotation)");
	ok(!mount_at(s, "/usr") && !mount_at(s, "/etc") && !mount_at(s, "/"),
	   "no bind per host entry or submount: the runtime clones the tree");
	ok(has_ns(s, "pid") && has_ns(s, "mount") && has_ns(s, "ipc") && has_ns(s, "uts") && has_ns(s, "network") &&
		   has_ns(s, "cgroup"),
	   "pid, mount, ipc, uts, network and cgroup namespaces");
	const oci_linux *lx = s->linux_;
	ok(has_ns(s, "user") && lx->uid_mappings.len == 1 && lx->uid_mappings.v[0].container_id == 0 &&
		   lx->uid_mappings.v[0].host_id == 100000 && lx->uid_mappings.v[0].size == 1 &&
		   lx->gid_mappings.len == 1 && lx->gid_mappings.v[0].host_id == 100001,
	   "root caller: a user namespace mapping 0 to the unprivileged host ids, nothing else");
	ok(s->process->user.uid == 0 && s->process->user.gid == 0, "runs as the caller's uid inside");
	is_str(lx->rootfs_propagation, "rprivate", "no host mount propagates in");
	is_str(s->process->cwd, CV_SANDBOX_PRIVATE_WORKSPACE, "cwd: the private workspace");
	const oci_mount *ws = mount_at(s, CV_SANDBOX_PRIVATE_WORKSPACE);
	ok(ws && !strcmp(ws->type, "tmpfs") && has(&ws->options, "uid=0") && has(&ws->options, "mode=700"),
	   "private workspace: a tmpfs owned by the program's user");
	const oci_mount *tmp = mount_at(s, "/tmp"), *run = mount_at(s, "/run");
	ok(tmp && !strcmp(tmp->type, "tmpfs") && run && !strcmp(run->type, "tmpfs"), "private /tmp and /run");
	ok(tmp && has(&tmp->options, "size=1073741824") && has(&ws->options, "size=1073741824") &&
		   has(&run->options, "size=65536k"),
	   "/tmp and the private workspace: 1 GiB each, /run 64 MiB");
	ok(tmp < ws, "/tmp is mounted before the workspace inside it");
	const oci_mount *proc = mount_at(s, "/proc"), *dev = mount_at(s, "/dev"), *sys = mount_at(s, "/sys");
	ok(proc && !strcmp(proc->type, "proc"), "own /proc");
	ok(dev && !strcmp(dev->type, "tmpfs") && mount_at(s, "/dev/pts") && mount_at(s, "/dev/shm"), "minimal /dev");
	ok(sys && !strcmp(sys->type, "sysfs") && has(&sys->options, "ro"), "read-only sysfs");

	const oci_process *p = s->process;
	ok(p->no_new_privileges, "noNewPrivileges");
	ok(p->capabilities && p->capabilities->bounding.set && p->capabilities->bounding.len == 0 &&
		   p->capabilities->effective.set && p->capabilities->effective.len == 0 &&
		   p->capabilities->permitted.set && p->capabilities->permitted.len == 0 &&
		   p->capabilities->ambient.set && p->capabilities->inheritable.set,
	   "no capabilities at all");
	const oci_rlimit *core = rlimit(s, "RLIMIT_CORE");
	ok(core && core->soft == 0 && core->hard == 0, "no core files");
	ok(!rlimit(s, "RLIMIT_CPU") && !rlimit(s, "RLIMIT_NOFILE") && !s->linux_->resources, "no limits unless asked");
	is_str(annotation(s, CV_CGROUP_ANNOTATION_CONTROLLERS), "memory",
	       "cgroup hierarchies: only memory (peak and OOM kills for the report)");

	ok(env_has_name(s, "PATH") && env_has_name(s, "LC_ALL") && env_has_name(s, "HOME") && env_has_name(s, "TERM"),
	   "default allowlist passes PATH, LC_*, HOME, TERM");
	ok(!env_has_name(s, "SECRET_TOKEN") && !env_has_name(s, "FOO") && !env_has_name(s, "TERMINAL_SECRET"),
	   "anything else stays out (TERM is not a prefix)");
	ok(env_has_name(s, "LC_IDENTIFICATION") && !env_has_name(s, "LC_TOKEN"),
	   "the locale variables, not any LC_ name");

	/* masks: runc's defaults, the credential stores that exist */
	const oci_linux *l = s->linux_;
	char ssh[512], aws[512];
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	snprintf(aws, sizeof(aws), "%s/.aws", home);
	ok(has(&l->masked_paths, ssh), "~/.ssh is masked");
	ok(!has(&l->masked_paths, aws), "a missing default credential store is skipped");
	ok(has(&l->masked_paths, "/etc/shadow") && has(&l->masked_paths, "/proc/kcore"), "/etc/shadow, /proc/kcore");
	ok(has(&l->masked_paths, "/sys/kernel/vmcoreinfo") && !has(&l->masked_paths, "/sys/fs/cgroup"),
	   "/sys/kernel/vmcoreinfo (an own sysfs has no cgroup filesystem to hide)");
	ok(has(&l->readonly_paths, "/proc/sys"), "/proc/sys read-only");

	const oci_seccomp *sc = l->seccomp;
	ok(sc && !strcmp(sc->default_action, "SCMP_ACT_ALLOW"), "seccomp: allow by default");
	const oci_seccomp_syscall *r = sc ? rule(sc, "ptrace", false) : NULL;
	ok(r && !strcmp(r->action, "SCMP_ACT_ERRNO") && r->errno_ret.set && r->errno_ret.v == EPERM, "ptrace -> EPERM");
	const char *const denied[] = { "mount",           "unshare",    "setns",       "bpf",
				       "perf_event_open", "keyctl",     "userfaultfd", "open_by_handle_at",
				       "kexec_load",      "init_module" };
	bool all = sc != NULL;
	for (size_t i = 0; all && i < sizeof(denied) / sizeof(denied[0]); i++)
		all = rule(sc, denied[i], false) != NULL;
	ok(all, "mount, unshare, setns, bpf, perf_event_open, keyctl, userfaultfd, ... denied");
	r = sc ? rule(sc, "clone3", false) : NULL;
	ok(r && r->errno_ret.v == ENOSYS, "clone3 -> ENOSYS (libc falls back to clone)");
	size_t clone_rules = 0;
	bool newuser = false;
	for (size_t i = 0; sc && i < sc->syscalls_len; i++) {
		const oci_seccomp_syscall *c = &sc->syscalls[i];
		if (!has(&c->names, "clone") || c->args_len != 1)
			continue;
		clone_rules++;
		newuser = newuser ||
			  (c->args[0].index == 0 && c->args[0].value == 0x10000000 &&
			   c->args[0].value_two.v == 0x10000000 && !strcmp(c->args[0].op, "SCMP_CMP_MASKED_EQ"));
	}
	ok(clone_rules == 7 && newuser, "clone with any namespace flag (CLONE_NEWUSER, ...) -> EPERM");
	r = sc ? rule(sc, "ioctl", true) : NULL;
	ok(r && r->args[0].index == 1 && r->args[0].value_two.v == 0x5412, "ioctl TIOCSTI refused");
	/* set-id modes: per call, S_ISUID and S_ISGID, and for open only with
	 * O_CREAT or O_TMPFILE */
	size_t setid = 0, open_rules = 0;
	for (size_t i = 0; sc && i < sc->syscalls_len; i++) {
		const oci_seccomp_syscall *c = &sc->syscalls[i];
		if (c->args_len == 0 || c->errno_ret.v != EPERM)
			continue;
		if (has(&c->names, "fchmodat") && c->args[0].index == 2 &&
		    (c->args[0].value == S_ISUID || c->args[0].value == S_ISGID))
			setid++;
		if (has(&c->names, "openat") && c->args_len == 2 && c->args[0].index == 3 && c->args[1].index == 2)
			open_rules++;
	}
	ok(setid == 2 && open_rules == 4, "set-id modes refused (fchmodat: 2 rules; creating openat: 4)");
	r = sc ? rule(sc, "openat2", false) : NULL;
	ok(r && r->errno_ret.v == ENOSYS, "openat2 -> ENOSYS (its mode is out of a filter's sight)");
	r = sc ? rule(sc, "socket", true) : NULL;
	ok(r && r->errno_ret.v == EAFNOSUPPORT && r->args[0].index == 0 && r->args[0].value_two.v == 1,
	   "network none: socket(AF_UNIX) -> EAFNOSUPPORT");
	r = sc ? rule(sc, "socketpair", true) : NULL;
	ok(r && r->args_len == 2 && r->args[1].index == 1 && r->args[1].value == 0xf && r->args[1].value_two.v == 2,
	   "network none: only datagram socket pairs refused");

	/* the result is a valid config.json */
	cleanup_free char *json = NULL;
	cv_error_t err = NULL;
	ok(oci_spec_emit(s, true, &json, NULL, &err) == 0, "emits");
	cleanup_spec oci_spec *back = NULL;
	int pr = json ? oci_spec_parse(json, strlen(json), "config.json", &back, &err) : -1;
	if (!ok(pr == 0, "the emitted config.json parses and validates"))
		tap_diag("%s", err ? err->msg : "?");
	cv_error_release(&err);
}

static void test_limits(void)
{
	cleanup_free char *msg = NULL;
	cleanup_spec oci_spec *s = convert(
		"{\"memory\": \"512MB\", \"cpus\": 1.5, \"processes\": 64, \"cpu_seconds\": 10,"
		" \"max_file_size\": \"1MB\", \"open_files\": 100, \"timeout\": 2.5, \"max_output_bytes\": 10}",
		0, &msg);
	if (!ok(s != NULL, "limits convert")) {
		tap_diag("%s", msg);
		return;
	}
	const oci_resources *r = s->linux_->resources;
	ok(r && r->memory && r->memory->limit.set && r->memory->limit.v == 512 << 20, "memory limit");
	ok(r && r->cpu && r->cpu->quota.v == 150000 && r->cpu->period.v == 100000, "cpus 1.5 -> 150 ms per 100 ms");
	ok(r && r->has_pids && r->pids_limit.v == 64, "pids limit");
	is_str(annotation(s, CV_CGROUP_ANNOTATION_CONTROLLERS), "memory,pids,cpu,cpuacct",
	       "cgroup hierarchies: memory, pids and cpu when limited");
	const oci_rlimit *cpu = rlimit(s, "RLIMIT_CPU"), *fsz = rlimit(s, "RLIMIT_FSIZE"),
			 *nof = rlimit(s, "RLIMIT_NOFILE");
	ok(cpu && cpu->soft == 10 && cpu->hard == 11, "RLIMIT_CPU: SIGXCPU at 10 s, SIGKILL at 11 s");
	ok(fsz && fsz->soft == 1 << 20 && fsz->hard == 1 << 20, "RLIMIT_FSIZE");
	ok(nof && nof->soft == 100 && nof->hard == 100, "RLIMIT_NOFILE");
	bool timeout = false, output = false;
	for (size_t i = 0; i < s->annotations.len; i++) {
		timeout = timeout || (!strcmp(s->annotations.v[i].key, CV_SANDBOX_ANNOTATION_TIMEOUT) &&
				      !strcmp(s->annotations.v[i].value, "2500"));
		output = output || (!strcmp(s->annotations.v[i].key, CV_SANDBOX_ANNOTATION_MAX_OUTPUT) &&
				    !strcmp(s->annotations.v[i].value, "10"));
	}
	ok(timeout && output, "timeout and max_output_bytes recorded as annotations");
	ok(!annotation(s, CV_SANDBOX_ANNOTATION_REQUIRE_LIMITS), "require_limits: no annotation unless set");

	cleanup_policy cv_policy *req = policy("{\"timeout\": 1, \"require_limits\": true}");
	char only[64];
	cv_sandbox_do_only_keys(req, only, sizeof(only));
	is_str(only, "timeout, require_limits", "the keys only cvisor do enforces, require_limits among them");
	cleanup_free char *m3 = NULL;
	cleanup_spec oci_spec *rs = convert("{\"require_limits\": true}", 0, &m3);
	is_str(annotation(rs, CV_SANDBOX_ANNOTATION_REQUIRE_LIMITS), "true",
	       "require_limits recorded as an annotation");

	cleanup_free char *m2 = NULL;
	oci_spec *bad = convert("{\"open_files\": 5000}", 0, &m2);
	ok(!bad, "open_files above the hard limit is refused");
	oci_spec_free(bad);
	is_str(m2,
	       "policy: open_files: 5000 is above this process's hard limit 4096 (raising a hard limit needs "
	       "CAP_SYS_RESOURCE)",
	       "message names the key and the hard limit");
}

static void test_rootless_and_user(void)
{
	cleanup_free char *msg = NULL;
	cleanup_spec oci_spec *s = convert("{}", 1000, &msg);
	ok(s && has_ns(s, "user"), "non-root caller: user namespace");
	ok(s && s->linux_->uid_mappings.len == 1 && s->linux_->uid_mappings.v[0].container_id == 1000 &&
		   s->linux_->uid_mappings.v[0].host_id == 1000 && s->linux_->uid_mappings.v[0].size == 1,
	   "only the caller's uid is mapped");
	cleanup_spec oci_spec *u = convert("{\"user\": \"0:0\"}", 1000, &msg);
	ok(u && u->process->user.uid == 0 && u->linux_->uid_mappings.v[0].container_id == 0 &&
		   u->linux_->uid_mappings.v[0].host_id == 1000,
	   "user 0 inside maps to the caller");
	cleanup_spec oci_spec *h = convert("{\"network\": \"host\"}", 1000, &msg);
	const oci_mount *sys = h ? mount_at(h, "/sys") : NULL;
	ok(h && !has_ns(h, "network") && sys && !strcmp(sys->type, "sysfs") && has(&sys->options, "ro") &&
		   has(&h->linux_->masked_paths, "/sys/fs/cgroup"),
	   "host network: no netns, read-only sysfs (the host's: its cgroup filesystems masked)");
	ok(h && !rule(h->linux_->seccomp, "socket", true), "host network: unix sockets allowed");
	cleanup_spec oci_spec *r = convert("{\"user\": 1234}", 0, &msg);
	const oci_mount *ws = r ? mount_at(r, CV_SANDBOX_PRIVATE_WORKSPACE) : NULL;
	ok(r && r->process->user.uid == 1234 && ws && has(&ws->options, "uid=1234") &&
		   r->linux_->uid_mappings.v[0].container_id == 1234 && r->linux_->uid_mappings.v[0].host_id == 100000,
	   "root caller, user 1234: 1234 inside is the unprivileged host uid, owns the workspace");
}

/* JSON for a host with UID is refused with exactly WANT. */
static void refused(const char *json, uid_t uid, const char *want, const char *name)
{
	cleanup_free char *msg = NULL;
	oci_spec *s = convert(json, uid, &msg);
	oci_spec_free(s);
	is_str(msg, want, "%s", name);
}

static void test_paths(void)
{
	char json[2048], want[1024];
	cleanup_free char *msg = NULL;
	snprintf(json, sizeof(json),
		 "{\"workspace\": \"%s\", \"writable\": [\"%s/extra\"], \"deny_write\": [\"%s/.git\", \"%s/nope\"],"
		 " \"deny_read\": [\"~/secret.txt\"], \"env\": [\"FOO\", \"HOME=/elsewhere\", \"NEW=1\"]}",
		 workspace, tmpdir, workspace, workspace);
	cleanup_spec oci_spec *s = convert(json, 0, &msg);
	if (!ok(s != NULL, "paths convert")) {
		tap_diag("%s", msg);
		return;
	}
	const oci_mount *ws = mount_at(s, workspace);
	ok(ws && !strcmp(ws->type, "bind") && has(&ws->options, "rw") && !strcmp(ws->source, workspace),
	   "workspace bound read-write at its own path");
	is_str(s->process->cwd, workspace, "cwd is the workspace");
	ok(!mount_at(s, CV_SANDBOX_PRIVATE_WORKSPACE), "no private workspace then");
	char extra[512];
	snprintf(extra, sizeof(extra), "%s/extra", tmpdir);
	const oci_mount *xm = mount_at(s, extra);
	ok(xm && has(&xm->options, "rw") && has(&xm->options, "nosuid") && has(&xm->options, "nodev"),
	   "writable: bound read-write, nosuid, nodev");
	char git[512];
	snprintf(git, sizeof(git), "%s/.git", workspace);
	const oci_mount *g = mount_at(s, git);
	ok(g && has(&g->options, "ro") && g > ws, "deny_write: read-only bind after the writable one");
	/* a root caller: the writable binds idmapped, their owner on disk to
	 * the program's unprivileged host uid */
	ok(ws && has(&ws->options, "idmap") && ws->uid_mappings.len == 1 &&
		   ws->uid_mappings.v[0].container_id == getuid() && ws->uid_mappings.v[0].host_id == 100000 &&
		   ws->gid_mappings.len == 1 && ws->gid_mappings.v[0].container_id == getgid() &&
		   ws->gid_mappings.v[0].host_id == 100001,
	   "root caller: the workspace idmapped from its owner to the program");
	ok(g && has(&g->options, "idmap") && g->uid_mappings.v[0].host_id == 100000,
	   "a deny_write inside it is seen as the workspace shows it");
	char secret[512];
	snprintf(secret, sizeof(secret), "%s/secret.txt", home);
	ok(has(&s->linux_->masked_paths, secret), "deny_read masks even a path that does not exist yet");
	ok(env_has_name(s, "FOO") && env_has_name(s, "NEW"), "env allowlist and NAME=value");
	size_t homes = 0;
	for (size_t i = 0; i < s->process->env.len; i++)
		if (!strncmp(s->process->env.v[i], "HOME=", 5)) {
			homes++;
			ok(!strcmp(s->process->env.v[i], "HOME=/elsewhere"), "NAME=value overrides the caller's");
		}
	ok(homes == 1, "HOME appears once");

	snprintf(json, sizeof(json), "{\"writable\": [\"%s/missing\"]}", tmpdir);
	snprintf(want, sizeof(want), "policy: writable: `%s/missing`: No such file or directory", tmpdir);
	refused(json, 0, want, "a missing writable directory is an error naming it");

	/* the credential list always wins over writable directories */
	char ssh[512];
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	static const char wins[] = "the credential list always wins over writable directories";
	snprintf(want, sizeof(want), "policy: workspace: `%s` is in `~/.ssh` of the credential list: %s", ssh, wins);
	refused("{\"workspace\": \"~/.ssh\"}", 0, want, "a workspace in a credential store is refused");
	snprintf(json, sizeof(json), "{\"writable\": [\"%s/link\"]}", workspace);
	snprintf(want, sizeof(want),
		 "policy: writable: `%s/link` resolves to `%s`, in `~/.ssh` of the credential list: %s", workspace, ssh,
		 wins);
	refused(json, 1000, want, "a writable symlink into a credential store is refused (non-root caller too)");
	snprintf(json, sizeof(json), "{\"writable\": [\"%s\"]}", tmpdir);
	snprintf(want, sizeof(want), "policy: writable: `%s` holds `%s` (`~/.ssh` of the credential list): %s", tmpdir,
		 ssh, wins);
	refused(json, 0, want, "a writable directory holding a credential store is refused");
	snprintf(want, sizeof(want),
		 "policy: writable: `/etc` holds `/etc/shadow` (`/etc/shadow` of the credential list): %s", wins);
	refused("{\"writable\": [\"/etc\"]}", 0, want, "/etc holds /etc/shadow");
	struct cv_sandbox_host h = host(0);
	char elsewhere[512];
	snprintf(elsewhere, sizeof(elsewhere), "%s/extra/home", tmpdir);
	h.home = elsewhere; /* no credential store in it exists */
	snprintf(json, sizeof(json), "{\"writable\": [\"%s/extra\"]}", tmpdir);
	cleanup_policy cv_policy *pe = policy(json);
	oci_spec *se = NULL;
	cv_error_t e8 = NULL;
	ok(pe && cv_sandbox_spec(pe, &h, NULL, &se, &e8) < 0 && e8 && strstr(e8->msg, "holds") &&
		   strstr(e8->msg, "extra/home/.ssh"),
	   "even a credential store that does not exist yet (the program could make it)");
	oci_spec_free(se);
	cv_error_release(&e8);
}

/* Every directory between a writable one and a denied path is bound onto
 * itself (a mount point cannot be renamed): parents first. */
static void test_ancestors(void)
{
	char json[2048], p[8][512];
	snprintf(json, sizeof(json),
		 "{\"workspace\": \"%s\", \"deny_write\": [\"%s/a/b/c\"], \"deny_read\": [\"%s/a/b/c/d\", "
		 "\"%s/.git/x\"]}",
		 workspace, workspace, workspace, workspace);
	cleanup_free char *msg = NULL;
	cleanup_spec oci_spec *s = convert(json, 1000, &msg);
	if (!ok(s != NULL, "deny paths convert")) {
		tap_diag("%s", msg);
		return;
	}
	snprintf(p[0], sizeof(p[0]), "%s/a", workspace);
	snprintf(p[1], sizeof(p[1]), "%s/a/b", workspace);
	snprintf(p[2], sizeof(p[2]), "%s/a/b/c", workspace);
	snprintf(p[3], sizeof(p[3]), "%s/a/b/c/d", workspace);
	snprintf(p[4], sizeof(p[4]), "%s/.git", workspace);
	const oci_mount *ws = mount_at(s, workspace), *a = mount_at(s, p[0]), *b = mount_at(s, p[1]),
			*c = mount_at(s, p[2]);
	ok(a && b && has(&a->options, "rw") && has(&b->options, "rw") && !strcmp(a->source, p[0]) && ws < a && a < b,
	   "the directories between the workspace and a deny_write path: self binds, read-write, parents first");
	ok(c && has(&c->options, "ro") && b < c, "the deny_write path itself: read-only, after them");
	ok(!mount_at(s, p[3]), "nothing between a read-only path and a deny_read below it");
	ok(has(&s->linux_->masked_paths, p[3]), "the deny_read below it is masked");
	ok(!mount_at(s, p[4]), "a deny_read path that does not exist protects nothing");
	ok(!has(&ws->options, "idmap") && !a->uid_mappings.len, "a non-root caller's binds: not idmapped");
}

/* Converts JSON with the outbound hook at HOOK and slirp4netns at SLIRP. */
static oci_spec *convert_net(const char *json, const char *hook, const char *slirp, char **msg)
{
	cleanup_policy cv_policy *p = policy(json);
	struct cv_sandbox_host h = host(0);
	h.slirp_hook = hook;
	h.slirp4netns = slirp;
	char *args[] = { "/bin/true", NULL };
	oci_spec *s = NULL;
	cv_error_t err = NULL;
	*msg = NULL;
	if (!p || cv_sandbox_spec(p, &h, args, &s, &err) < 0) {
		if (err)
			*msg = strdup(err->msg);
		cv_error_release(&err);
		return NULL;
	}
	return s;
}

static void test_network(void)
{
	char *msg = NULL;
	oci_spec *s = convert_net("{\"network\": \"outbound\"}", "/bin/true", "/usr/bin/slirp4netns", &msg);
	const oci_hook *hk = s && s->hooks && s->hooks->create_runtime.len == 1 ? &s->hooks->create_runtime.v[0] : NULL;
	ok(hk != NULL, "outbound: one createRuntime hook");
	ok(hk && !strcmp(hk->path, "/bin/true") && hk->args.len == 3 && !strcmp(hk->args.v[0], "true") &&
		   !strcmp(hk->args.v[1], "--slirp4netns") && !strcmp(hk->args.v[2], "/usr/bin/slirp4netns"),
	   "outbound: the hook gets slirp4netns's path, host loopback not allowed");
	ok(hk && hk->timeout.set && hk->timeout.v == CV_SANDBOX_SLIRP_TIMEOUT, "outbound: the hook has a timeout");
	ok(hk && hk->env.len == 1 && !strncmp(hk->env.v[0], "PATH=", 5), "outbound: the hook gets only PATH");
	ok(s && has_ns(s, "network"), "outbound: a new network namespace");
	ok(s && !s->hooks->prestart.len && !s->hooks->create_container.len, "outbound: no other hook");
	oci_spec_free(s);
	free(msg);

	s = convert_net("{\"network\": \"outbound\", \"allow_host_loopback\": true}", "/bin/true", "/usr/bin/x", &msg);
	hk = s && s->hooks ? &s->hooks->create_runtime.v[0] : NULL;
	ok(hk && hk->args.len == 4 && !strcmp(hk->args.v[3], "--allow-host-loopback"),
	   "allow_host_loopback: passed to the hook");
	oci_spec_free(s);
	free(msg);

	s = convert_net("{\"network\": \"none\"}", "/bin/true", "/usr/bin/x", &msg);
	ok(s && !s->hooks && has_ns(s, "network"), "none: no hook, a network namespace");
	oci_spec_free(s);
	free(msg);

	s = convert_net("{\"allow_host_loopback\": true}", "/bin/true", "/usr/bin/x", &msg);
	ok(!s, "allow_host_loopback without outbound fails");
	is_str(msg, "policy: allow_host_loopback: only meaningful with network \"outbound\"", "its message");
	oci_spec_free(s);
	free(msg);

	s = convert_net("{\"network\": \"outbound\"}", "/nonexistent/cvisor-slirp", "/usr/bin/x", &msg);
	ok(!s, "outbound with a missing hook fails");
	is_str(msg,
	       "policy: network: \"outbound\" needs the hook program `/nonexistent/cvisor-slirp`: "
	       "No such file or directory",
	       "its message");
	oci_spec_free(s);
	free(msg);

	s = convert_net("{\"network\": \"outbound\"}", "/bin/true", NULL, &msg);
	ok(!s, "outbound without slirp4netns fails");
	is_str(msg,
	       "policy: network: \"outbound\" needs slirp4netns, which is not in PATH (Debian package slirp4netns)",
	       "its message");
	oci_spec_free(s);
	free(msg);
}

static void test_mask_dedup(void)
{
	char json[512], ssh[512];
	snprintf(json, sizeof(json), "{\"deny_read\": [\"%s\"]}", home);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	cleanup_free char *msg = NULL;
	cleanup_spec oci_spec *s = convert(json, 0, &msg);
	const oci_strv *m = s ? &s->linux_->masked_paths : NULL;
	ok(m && has(m, home) && !has(m, ssh), "a path under a masked directory is not masked again");
	ok(m && has(m, "/etc/shadow") && has(m, "/proc/kcore"), "the others stay");
}

static void test_rootfs(void)
{
	char json[512];
	snprintf(json, sizeof(json), "{\"rootfs\": \"%s\"}", workspace);
	cleanup_free char *msg = NULL;
	cleanup_spec oci_spec *s = convert(json, 0, &msg);
	ok(s && !strcmp(s->root->path, workspace) && s->root->readonly,
	   "rootfs: that directory as root.path, read-only");
	is_str(annotation(s, CV_ROOTFS_ANNOTATION_FLAGS), "nosuid,nodev",
	       "rootfs: nosuid and nodev throughout, as for the host's root");
	cleanup_free char *msg2 = NULL;
	cleanup_spec oci_spec *bad = convert("{\"rootfs\": \"/nonexistent-cvisor-rootfs\"}", 0, &msg2);
	ok(!bad && msg2 && strstr(msg2, "rootfs") && strstr(msg2, "/nonexistent-cvisor-rootfs"),
	   "rootfs: a missing directory is an error naming it");
}

int main(void)
{
	setup();
	test_defaults();
	test_limits();
	test_rootless_and_user();
	test_paths();
	test_ancestors();
	test_network();
	test_rootfs();
	test_mask_dedup();
	cleanup();
	return tap_done();
}
