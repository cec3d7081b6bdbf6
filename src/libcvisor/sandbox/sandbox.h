/* Sandbox policy -> OCI spec: the thin translation under `cvisor do` and
 * `cvisor spec --policy`. Everything the sandbox enforces is expressed as an
 * ordinary config.json, run by the ordinary lifecycle code; nothing here
 * touches the kernel beyond reading the host (mount table, rlimits, paths).
 *
 * What a policy becomes (documented once here; cvisor-do(1) "THE SANDBOX"
 * and "SECURITY MODEL" say it for users):
 *  - root: the policy's rootfs or, by default, the host's "/" as root.path,
 *    read-only, with annotation CV_ROOTFS_ANNOTATION_FLAGS "nosuid,nodev":
 *    the runtime clones that tree recursively, so every mount below it
 *    (/home, /work, ...) is read-only, nosuid and nodev too, in one step;
 *    CV_ROOTFS_ANNOTATION_HIDE leaves out what the host has mounted below
 *    the directories the sandbox mounts its own over; rootfsPropagation
 *    "rprivate": nothing mounted on the host later reaches the sandbox;
 *  - /proc (own), /dev (tmpfs: null zero full random urandom tty, pts, shm),
 *    /sys read-only, /tmp and /run private tmpfs (host sockets under /run,
 *    such as a Docker socket, stay out of reach: read-only mounts do not stop
 *    connect(2)); /tmp and a private workspace of tmp_size bytes each
 *    (default: the memory limit, else CV_SANDBOX_TMP_SIZE or half the RAM
 *    if less), /run, /dev and /dev/shm of CV_SANDBOX_SMALL_TMPFS;
 *  - workspace: bound read-write at its own path and the cwd; absent, a
 *    private tmpfs at /tmp/workspace owned by the program's user;
 *  - writable: bound read-write; deny_write: bound read-only over them;
 *    the workspace and writable paths are resolved first and refused when
 *    they lie in or hold a path of CV_SANDBOX_DEFAULT_DENY_READ (the
 *    credential list always wins); every directory between a writable one
 *    and a deny_write or deny_read path below it is bound onto itself, so
 *    that the program cannot rename it (EBUSY) to move the denied path;
 *  - deny_read and CV_SANDBOX_DEFAULT_DENY_READ: masked (maskedPaths);
 *  - namespaces: pid, mount, ipc, uts, cgroup, network unless "host", and
 *    user, mapping only the program's uid and gid: to the caller's own ids,
 *    or for a root caller to an unprivileged host identity
 *    (cv_sandbox_host.sandbox_uid/gid); then the writable binds are
 *    idmapped, each directory's owner to that identity;
 *  - a minimal init as PID 1 (annotation CV_INIT_ANNOTATION, see init.h):
 *    the program is never its pid namespace's init;
 *  - the program runs as the policy's user (default: the caller's uid/gid),
 *    with no capabilities, noNewPrivileges, RLIMIT_CORE 0 and the seccomp
 *    profile of cv_sandbox_seccomp() (deny_listen: listen(2) fails with
 *    EPERM);
 *  - persistent_root (set by libcvisor's keeper only): the root is
 *    mounted read-write (the keeper's overlay takes the writes) and the
 *    workspace, absent, is CV_SANDBOX_PERSISTENT_WORKSPACE in it;
 *  - cgroup v1 hierarchies (CV_CGROUP_ANNOTATION_CONTROLLERS): memory, and
 *    pids and cpu,cpuacct when limited;
 *  - memory -> memory limit; cpus -> cpu quota over a 100 ms period;
 *    processes -> pids limit; cpu_seconds -> RLIMIT_CPU (SIGXCPU at the
 *    limit, SIGKILL a second later); max_file_size -> RLIMIT_FSIZE;
 *    open_files -> RLIMIT_NOFILE. Limits above this process's hard rlimits
 *    are errors (raising a hard limit needs CAP_SYS_RESOURCE);
 *  - timeout, max_output_bytes and require_limits are enforced by the
 *    supervisor of `cvisor do`; `spec --policy` records them as annotations
 *    (CV_SANDBOX_ANNOTATION_*).
 */
#ifndef CVISOR_SANDBOX_H
#define CVISOR_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "sandbox/policy.h"
#include "oci/spec.h"

/* The credential stores masked by default: ONE list, used by the code and
 * quoted by the documentation. "~/" is the caller's home. */
#define CV_SANDBOX_DEFAULT_DENY_READ                                                                                   \
	"~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.kube", "~/.docker/config.json",            \
		"~/.netrc", "~/.git-credentials", "~/.npmrc", "~/.pypirc", "~/.config/gh", "~/.password-store",        \
		"~/.local/share/keyrings", "/etc/shadow", "/etc/gshadow", "/etc/ssh", "/root"

/* The caller's variables that reach the program by default ("X*" is a
 * prefix). Everything else needs the policy's env. */
#define CV_SANDBOX_DEFAULT_ENV                                                                                         \
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", \
		"LC_COLLATE", "LC_MONETARY", "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",       \
		"LC_MEASUREMENT", "LC_IDENTIFICATION", "TERM", "COLORTERM", "NO_COLOR", "TZ"

/* Where the private workspace lives inside the sandbox. */
#define CV_SANDBOX_PRIVATE_WORKSPACE "/tmp/workspace"
/* The workspace of a library sandbox (sandbox/keeper.h): in its overlay,
 * kept from run to run. */
#define CV_SANDBOX_PERSISTENT_WORKSPACE "/workspace"

/* The default size of /tmp and of the private workspace without a memory
 * limit (half the RAM when that is less), and the size of /run, /dev and
 * /dev/shm. */
#define CV_SANDBOX_TMP_SIZE (1ull << 30)
#define CV_SANDBOX_SMALL_TMPFS "65536k"

/* The host identity of a root caller's program when /etc/subuid (subgid)
 * gives root no range: nobody's. */
#define CV_SANDBOX_NOBODY 65534

/* Every v1 controller whose hierarchy a sandbox may join (its annotation
 * CV_CGROUP_ANNOTATION_CONTROLLERS is a subset): where the gc looks. */
#define CV_SANDBOX_CGROUP_CONTROLLERS "memory,pids,cpu,cpuacct"

#define CV_SANDBOX_ANNOTATION_TIMEOUT "org.cvisor.sandbox.timeout-ms"
#define CV_SANDBOX_ANNOTATION_MAX_OUTPUT "org.cvisor.sandbox.max-output-bytes"
#define CV_SANDBOX_ANNOTATION_NETWORK "org.cvisor.sandbox.network"
#define CV_SANDBOX_ANNOTATION_REQUIRE_LIMITS "org.cvisor.sandbox.require-limits"

/* What the translation needs to know about the caller and this machine.
 * cv_sandbox_host_init() fills it from the running process; tests may
 * override fields afterwards. */
struct cv_sandbox_host {
	char *const *environ; /* the caller's environment */
	const char *home;     /* for "~/"; NULL when unknown */
	uid_t uid;            /* effective ids of the caller */
	gid_t gid;
	/* a root caller's program runs as these host ids (never as root): the
	 * first of root's subordinate ids in /etc/subuid and /etc/subgid,
	 * else CV_SANDBOX_NOBODY */
	uid_t sandbox_uid;
	gid_t sandbox_gid;
	uint64_t ram; /* bytes of RAM, 0 when unknown (the default tmp_size) */
	/* current hard limits (RLIM_INFINITY = unlimited) */
	uint64_t hard_cpu, hard_fsize, hard_nofile;
	/* hook program for network "outbound" (NULL: CV_SANDBOX_SLIRP_HOOK;
	 * cv_sandbox_host_init() takes $CVISOR_SLIRP_HOOK, which the test
	 * harness points at the build tree) */
	const char *slirp_hook;
	/* absolute path of slirp4netns (found in $PATH); NULL: not installed */
	const char *slirp4netns;
	char slirp4netns_buf[4096];
	char home_buf[4096]; /* home from /etc/passwd when HOME is not set */
};

/* The installed hook of network "outbound" (hooks/cvisor-slirp.c). */
#define CV_SANDBOX_SLIRP_HOOK CVISOR_LIBEXECDIR "/cvisor-slirp"
/* Seconds the runtime gives it to bring the interface up. */
#define CV_SANDBOX_SLIRP_TIMEOUT 30

/* FIND_SLIRP: look slirp4netns up in $PATH (only network "outbound" and
 * `do --check` need it). */
int cv_sandbox_host_init(struct cv_sandbox_host *host, bool find_slirp, cv_error_t *err);
/* Network "outbound"'s hooks into SPEC (which has none yet): a
 * createRuntime hook giving slirp4netns to the network namespace of the
 * state's "pid". */
int cv_sandbox_network_hook(const cv_policy *policy, const struct cv_sandbox_host *host, oci_spec *spec,
			    cv_error_t *err);

/* Builds the spec running ARGS (NULL-terminated, may be NULL for `spec
 * --policy`, which then runs "sh") under POLICY. Errors name the policy key
 * ("policy: writable: `/nope`: No such file or directory"). */
int cv_sandbox_spec(const cv_policy *policy, const struct cv_sandbox_host *host, char *const *args, oci_spec **out,
		    cv_error_t *err);

/* The writable bind of SPEC (workspace or writable path, bound at its host
 * path) that holds the host path PATH, or NULL. */
const char *cv_sandbox_writable_holding(const oci_spec *spec, const char *path);

/* The keys set in P that only the supervisor of `cvisor do` enforces
 * (timeout, max_output_bytes, require_limits): `spec --policy` records them
 * as annotations, which `cvisor run` does not act on. Writes them to BUF as
 * "timeout, max_output_bytes", or "" when none is set. */
void cv_sandbox_do_only_keys(const cv_policy *p, char *buf, size_t size);

/* The default seccomp profile for untrusted code (a deny-list on top of
 * allow, see sandbox.c for each entry and why). Unless NET is "host", unix
 * sockets are refused but for stream and seqpacket pairs. */
int cv_sandbox_seccomp(enum cv_policy_network net, bool deny_listen, oci_seccomp **out, cv_error_t *err);

#endif
