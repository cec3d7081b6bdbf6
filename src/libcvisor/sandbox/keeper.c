/* The keeper of a library sandbox and its file agent (see keeper.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "fs/mounts.h"
#include "fs/safe-path.h"
#include "io.h"
#include "lifecycle/helper.h"
#include "lifecycle/hooks.h"
#include "log.h"
#include "process/namespaces.h"
#include "process/sync.h"
#include "sandbox/keeper.h"
#include "sandbox/policy.h"
#include "sandbox/sandbox.h"
#include "sandbox/supervisor.h"
#include "unix-socket.h"

/* What each run gets of its own instead of the host's. */
static const char *const own_mounts[] = { "/proc", "/sys", "/dev", "/run", "/tmp" };

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' || strcmp(dir, "/") == 0);
}

/* ---- the root ---- */

struct layers {
	const char *top; /* the tmpfs */
	unsigned next;   /* upper/work directory number */
	uid_t uid;       /* the program's host identity */
	gid_t gid;
	bool userns; /* mounted in a user namespace of ours (not root) */
};

/* An overlay of the host mount at MP on TARGET, its upper and work
 * directories numbered in the tmpfs. */
static int overlay(struct layers *l, const char *mp, const char *target, bool workspace, cv_error_t *err)
{
	char upper[PATH_MAX], work[PATH_MAX], opts[3 * PATH_MAX];
	unsigned n = l->next++;
	snprintf(upper, sizeof(upper), "%s/u%u", l->top, n);
	snprintf(work, sizeof(work), "%s/w%u", l->top, n);
	if (mkdir(upper, 0755) < 0 || mkdir(work, 0700) < 0)
		return cv_error_errno(err, "sandbox root: mkdir in `%s`", l->top);
	/* an overlay's root takes its owner and mode from the upper layer's:
	 * the lower's then (/var/tmp stays 1777, /etc root's). In a user
	 * namespace an owner it does not map cannot be given: the root is
	 * then the caller's, with only the rights the host gives others */
	struct stat lst;
	if (stat(mp, &lst) < 0)
		return cv_error_errno(err, "sandbox root: stat `%s`", mp);
	mode_t mode = lst.st_mode & 07777;
	/* an owner not mapped shows as the overflow id, nobody's: nobody
	 * cannot tell its own files from those */
	if (l->userns && (lst.st_uid != l->uid || l->uid == CV_SANDBOX_NOBODY))
		mode = (mode & 07000) | (mode & 07) * 0111;
	if (chmod(upper, mode) < 0 || (!l->userns && chown(upper, lst.st_uid, lst.st_gid) < 0))
		return cv_error_errno(err, "sandbox root: the upper layer of `%s`", mp);
	if (workspace) {
		/* made before the overlay is mounted: its layers are not to be
		 * changed under it */
		char ws[PATH_MAX + sizeof(CV_SANDBOX_PERSISTENT_WORKSPACE)];
		snprintf(ws, sizeof(ws), "%s%s", upper, CV_SANDBOX_PERSISTENT_WORKSPACE);
		if (mkdir(ws, 0700) < 0 || (!l->userns && chown(ws, l->uid, l->gid) < 0))
			return cv_error_errno(err, "sandbox root: make the workspace `%s`", ws);
	}
	/* the separators of the option string cannot be escaped everywhere */
	if (strpbrk(mp, ",:\\"))
		return cv_error(err, EINVAL, "sandbox root: `%s`: a name overlayfs cannot take", mp);
	/* in a user namespace overlayfs keeps its metadata in user.* xattrs */
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s%s", mp, upper, work,
		 l->userns ? ",userxattr" : "");
	if (mount("overlay", target, "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
		return cv_error_errno(err, "sandbox root: overlay of `%s` on `%s`", mp, target);
	return 0;
}

/* The host mount at MP, read-only, on TARGET: what cannot be overlaid. */
static int bind_ro(const char *mp, const char *target, cv_error_t *err)
{
	if (mount(mp, target, NULL, MS_BIND, NULL) < 0)
		return cv_error_errno(err, "sandbox root: bind `%s`", mp);
	if (mount(NULL, target, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0) {
		int e = errno;
		(void)umount2(target, MNT_DETACH);
		return cv_error(err, e, "sandbox root: bind `%s` read-only", mp);
	}
	return 0;
}

/* The mount points of this namespace, in mountinfo's order (a parent before
 * what is mounted on it), NULL-terminated. */
static int mount_points(char ***out, cv_error_t *err)
{
	cleanup_free char *mi = NULL;
	size_t len = 0, n = 0;
	if (cv_read_file_at(AT_FDCWD, "/proc/self/mountinfo", 16u << 20, 0, &mi, &len, err) < 0)
		return -1;
	cleanup_strv char **v = calloc(1, sizeof(*v));
	if (!v)
		return cv_error(err, ENOMEM, "sandbox root");
	for (char *line = mi, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *save = NULL, *f = strtok_r(line, " ", &save);
		for (int i = 0; f && i < 4; i++)
			f = strtok_r(NULL, " ", &save);
		if (!f)
			continue;
		cv_mountinfo_unescape(f);
		char **nv = realloc(v, (n + 2) * sizeof(*nv));
		if (!nv || !(nv[n] = strdup(f))) {
			if (nv)
				v = nv;
			return cv_error(err, ENOMEM, "sandbox root");
		}
		v = nv;
		v[++n] = NULL;
	}
	*out = steal_pointer(&v);
	return 0;
}

/* In a user namespace (a caller without root) the host's mounts are
 * locked to each other, and overlayfs takes no lower directory with a
 * locked mount below it: a directory with mounts below becomes a skeleton
 * in the tmpfs (its subdirectories built the same way, its symlinks
 * copied, its files bound read-only), every other directory an overlay. */
static bool has_mount_below(char **mps, const char *dir)
{
	for (char **mp = mps; *mp; mp++)
		if (under(*mp, dir) && strcmp(*mp, dir) != 0)
			return true;
	return false;
}

static int skeleton(struct layers *l, char **mps, const char *path, const char *target, int depth, cv_error_t *err)
{
	if (!has_mount_below(mps, path))
		return overlay(l, path, target, false, err);
	if (depth > 32)
		return cv_error(err, ELOOP, "sandbox root: `%s`: too deep", path);
	cleanup_dir DIR *d = opendir(path);
	if (!d)
		return cv_error_errno(err, "sandbox root: open `%s`", path);
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char from[PATH_MAX], to[PATH_MAX];
		struct stat st;
		if (snprintf(from, sizeof(from), "%s/%s", strcmp(path, "/") ? path : "", e->d_name) >=
			    (int)sizeof(from) ||
		    snprintf(to, sizeof(to), "%s/%s", target, e->d_name) >= (int)sizeof(to))
			continue;
		bool own = false;
		for (size_t i = 0; i < sizeof(own_mounts) / sizeof(own_mounts[0]); i++)
			own |= strcmp(from, own_mounts[i]) == 0;
		if (lstat(from, &st) < 0 || under(l->top, from) || under(from, l->top)) {
			if (!under(from, l->top) && !under(l->top, from))
				cv_debug("sandbox root: `%s` left out: %s", from, strerror(errno));
			/* where the tmpfs hangs: only the path down to it */
			if (under(l->top, from) && S_ISDIR(st.st_mode) && mkdir(to, 0755) < 0)
				return cv_error_errno(err, "sandbox root: mkdir `%s`", to);
			continue;
		}
		cleanup_error cv_error_t sub = NULL;
		int r = 0;
		if (S_ISDIR(st.st_mode)) {
			if (mkdir(to, st.st_mode & 07777) < 0)
				return cv_error_errno(err, "sandbox root: mkdir `%s`", to);
			if (!own)
				r = skeleton(l, mps, from, to, depth + 1, &sub);
		} else if (S_ISLNK(st.st_mode)) {
			char link[PATH_MAX];
			ssize_t n = readlink(from, link, sizeof(link) - 1);
			if (n >= 0) {
				link[n] = '\0';
				if (symlink(link, to) < 0)
					return cv_error_errno(err, "sandbox root: symlink `%s`", to);
			}
		} else if (S_ISREG(st.st_mode)) {
			cleanup_close int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0)
				return cv_error_errno(err, "sandbox root: create `%s`", to);
			r = bind_ro(from, to, &sub);
		}
		if (r < 0)
			cv_debug("%s: left out", sub->msg);
	}
	return 0;
}

static int setup_root(struct layers *l, const char *root, cv_error_t *err)
{
	cleanup_strv char **mps = NULL;
	if (mount_points(&mps, err) < 0)
		return -1;
	if (mkdir(root, 0755) < 0)
		return cv_error_errno(err, "sandbox root: mkdir `%s`", root);
	if (l->userns) {
		/* the workspace in the tmpfs, the skeleton's own */
		char ws[PATH_MAX + sizeof(CV_SANDBOX_PERSISTENT_WORKSPACE)];
		snprintf(ws, sizeof(ws), "%s%s", root, CV_SANDBOX_PERSISTENT_WORKSPACE);
		if (skeleton(l, mps, "/", root, 0, err) < 0)
			return -1;
		if (mkdir(ws, 0700) < 0 && errno != EEXIST)
			return cv_error_errno(err, "sandbox root: make the workspace `%s`", ws);
		return 0;
	}
	if (overlay(l, "/", root, true, err) < 0)
		return -1;
	for (char **mp = mps; *mp; mp++) {
		bool skip = strcmp(*mp, "/") == 0 || under(*mp, l->top) || under(l->top, *mp);
		for (size_t i = 0; !skip && i < sizeof(own_mounts) / sizeof(own_mounts[0]); i++)
			skip = under(*mp, own_mounts[i]);
		if (skip)
			continue;
		char target[PATH_MAX];
		struct stat st;
		if (snprintf(target, sizeof(target), "%s%s", root, *mp) >= (int)sizeof(target))
			continue;
		if (stat(*mp, &st) < 0) {
			cv_debug("sandbox root: `%s` left out: %s", *mp, strerror(errno));
			continue;
		}
		cleanup_error cv_error_t e = NULL;
		if (S_ISDIR(st.st_mode) && overlay(l, *mp, target, false, &e) == 0)
			continue;
		if (e)
			cv_debug("%s; bound read-only instead", e->msg);
		cleanup_error cv_error_t e2 = NULL;
		if (bind_ro(*mp, target, &e2) < 0)
			cv_debug("%s: left out", e2->msg);
	}
	return 0;
}

/* ---- one run ---- */

/* The run's log lines go to its result pipe. */
static void rec_write(int fd, uint32_t type, int32_t value, const char *payload, size_t len)
{
	if (len > CV_KEEPER_REC_MAX)
		len = CV_KEEPER_REC_MAX;
	struct cv_keeper_rec h = { .type = type, .value = value, .len = (uint32_t)len };
	if (cv_write_all(fd, &h, sizeof(h)) == 0 && len)
		(void)cv_write_all(fd, payload, len);
}

static void run_log(int level, const char *msg, void *data)
{
	rec_write(*(int *)data, CV_KEEPER_REC_LOG, level, msg, strlen(msg));
}

struct request {
	struct cv_keeper_req h;
	char *buf; /* the strings */
	size_t len;
	int fds[CV_KEEPER_NFDS];
};

static void request_release(struct request *r)
{
	free(r->buf);
	for (int i = 0; i < CV_KEEPER_NFDS; i++)
		cv_closep(&r->fds[i]);
}

/* The strings of a request: policy, cwd, then nargs arguments. */
static int request_strings(struct request *r, const char **policy, const char **cwd, char ***args, cv_error_t *err)
{
	size_t want = 2 + (size_t)r->h.nargs, n = 0;
	if (r->h.nargs == 0 || r->h.nargs > 4096)
		return cv_error(err, EPROTO, "sandbox run: %u arguments", r->h.nargs);
	char **v = calloc(want + 1, sizeof(*v));
	if (!v)
		return cv_error(err, ENOMEM, "sandbox run");
	for (size_t off = 0; off < r->len && n < want; n++) {
		char *s = r->buf + off;
		char *nul = memchr(s, '\0', r->len - off);
		if (!nul)
			break;
		v[n] = s;
		off += (size_t)(nul - s) + 1;
	}
	if (n != want) {
		free(v);
		return cv_error(err, EPROTO, "sandbox run: a malformed request");
	}
	*policy = v[0];
	*cwd = v[1];
	memmove(v, v + 2, (want - 2) * sizeof(*v));
	v[want - 2] = NULL;
	*args = v;
	return 0;
}

/* ---- the sandbox's network ---- */

/* With network "outbound", every run of a sandbox joins one network
 * namespace, held by a process of the keeper's and given slirp4netns once
 * (its monitor ends slirp4netns when the holder ends, with the keeper):
 * starting slirp4netns for each run cost ~50 ms. One per setting of
 * allow_host_loopback, which slirp4netns takes at its start. The namespace
 * belongs to a user namespace of the holder's, which the keeper's identity
 * owns: slirp4netns, run as that identity, may enter it even without
 * capabilities, and so may each run's runtime. A run, in a user namespace of
 * its own, may not mount that namespace's sysfs: the keeper mounts it once,
 * in its tmpfs, for the runs to bind on /sys. */
struct net_holder {
	pid_t pid;            /* 0: none yet */
	char sysfs[PATH_MAX]; /* its sysfs, in the keeper's tmpfs */
};

struct network {
	const char *top; /* the keeper's tmpfs */
	struct net_holder by_loopback[2];
};

/* A sysfs holds its network namespace: unmounted with the holder. */
static void holder_stop(struct net_holder *n)
{
	if (n->pid <= 0)
		return;
	(void)kill(n->pid, SIGKILL);
	while (waitpid(n->pid, NULL, 0) < 0 && errno == EINTR)
		;
	n->pid = 0;
	if (umount2(n->sysfs, MNT_DETACH) < 0 && errno != EINVAL)
		cv_debug("sandbox network: unmount `%s`: %s", n->sysfs, strerror(errno));
}

/* The holder, on its end SOCK of a socket pair with the keeper: a user
 * namespace of its own (the keeper maps it), so that slirp4netns, run as
 * the keeper's identity even without capabilities, owns it and may enter
 * the network namespace made next; that namespace's loopback up; then
 * nothing until it is killed, or the keeper dies. Reports 0 or an errno at
 * each step. */
static void holder_main(pid_t keeper, int sock)
{
	cleanup_error cv_error_t e = NULL;
	int errnum = 0;
	char go;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != keeper)
		_exit(1);
	/* nothing of the keeper's: a run's pipes held here would never end */
	if ((sock > 3 && syscall(SYS_close_range, 3, sock - 1, 0) < 0) ||
	    syscall(SYS_close_range, sock + 1, ~0U, 0) < 0)
		_exit(1);
	if (unshare(CLONE_NEWUSER) < 0)
		errnum = errno;
	if (write(sock, &errnum, sizeof(errnum)) != sizeof(errnum) || errnum || read(sock, &go, 1) != 1)
		_exit(1);
	if (unshare(CLONE_NEWNET) < 0)
		errnum = errno;
	else if (cv_ns_loopback_up(&e) < 0)
		errnum = e->errnum;
	/* slirp4netns opens /proc/PID/ns/net: this process must be dumpable;
	 * no sandbox can name it (each run has a pid namespace), and it needs
	 * no capability any more */
	struct __user_cap_header_struct ch = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
	if (!errnum && (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0 || syscall(SYS_capset, &ch, none) < 0))
		errnum = errno;
	if (write(sock, &errnum, sizeof(errnum)) != sizeof(errnum) || errnum)
		_exit(1);
	for (;;)
		pause();
}

/* Maps the holder's user namespace: its root is the keeper's identity. */
static int holder_maps(pid_t pid, cv_error_t *err)
{
	static const char *const files[] = { "uid_map", "gid_map" };
	for (int i = 0; i < 2; i++) {
		char path[64], line[64];
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, files[i]);
		int n = snprintf(line, sizeof(line), "0 %u 1\n", i ? (unsigned)getgid() : (unsigned)getuid());
		cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, line, (size_t)n) != n)
			return cv_error_errno(err, "sandbox network: write `%s`", path);
	}
	return 0;
}

/* The holder's network namespace's sysfs, on PATH in the keeper's mount
 * namespace: mounted by a child of the keeper's that enters that network
 * namespace (the keeper, owner of the holder's user namespace, may). */
static int holder_sysfs(pid_t holder, const char *path, cv_error_t *err)
{
	pid_t pid = fork();
	if (pid < 0)
		return cv_error_errno(err, "sandbox network: fork");
	if (pid == 0) {
		char ns[64];
		snprintf(ns, sizeof(ns), "/proc/%d/ns/net", (int)holder);
		int fd = open(ns, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET) < 0 ||
		    mount("sysfs", path, "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			_exit(errno & 0xff ? errno & 0xff : EIO);
		_exit(0);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return cv_error_errno(err, "sandbox network: wait");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return cv_error(err, WIFEXITED(status) ? WEXITSTATUS(status) : EIO,
				"sandbox network: sysfs of its namespace on `%s`", path);
	return 0;
}

static int holder_step(int sock, cv_error_t *err)
{
	int errnum = EIO;
	ssize_t got;
	do
		got = read(sock, &errnum, sizeof(errnum));
	while (got < 0 && errno == EINTR);
	if (got != sizeof(errnum) || errnum != 0)
		return cv_error(err, got == sizeof(errnum) ? errnum : EIO, "sandbox network: a network namespace");
	return 0;
}

static int holder_start(const cv_policy *p, const char *top, size_t i, struct net_holder *n, cv_error_t *err)
{
	struct cv_sandbox_host h;
	if (cv_sandbox_host_init(&h, true, err) < 0)
		return -1;
	cleanup_spec oci_spec *hooks = calloc(1, sizeof(*hooks));
	if (!hooks)
		return cv_error(err, ENOMEM, "sandbox network");
	if (cv_sandbox_network_hook(p, &h, hooks, err) < 0)
		return -1;
	snprintf(n->sysfs, sizeof(n->sysfs), "%s/net-sys-%zu", top, i);
	if (mkdir(n->sysfs, 0755) < 0 && errno != EEXIST)
		return cv_error_errno(err, "sandbox network: mkdir `%s`", n->sysfs);
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return cv_error_errno(err, "sandbox network: socketpair");
	pid_t keeper = getpid(), pid = fork();
	if (pid == 0) {
		close(sp[0]);
		holder_main(keeper, sp[1]);
	}
	close(sp[1]);
	cleanup_close int sock = sp[0];
	if (pid < 0)
		return cv_error_errno(err, "sandbox network: fork");
	n->pid = pid;
	char go = 1;
	if (holder_step(sock, err) < 0 || holder_maps(pid, err) < 0 || write(sock, &go, 1) != 1 ||
	    holder_step(sock, err) < 0 || holder_sysfs(pid, n->sysfs, err) < 0) {
		holder_stop(n);
		return -1;
	}
	char state[256];
	snprintf(state, sizeof(state),
		 "{\"ociVersion\":\"" OCI_VERSION "\",\"id\":\"keeper-%d-network\",\"status\":\"created\","
		 "\"pid\":%d,\"bundle\":\"/\"}",
		 (int)keeper, (int)pid);
	if (cv_hooks_run(&hooks->hooks->create_runtime, "network \"outbound\"", state, err) < 0) {
		holder_stop(n);
		return -1;
	}
	return 0;
}

/* The namespace for a run of POLICY: 0 when it needs none of the keeper's
 * (*pid 0), else made on first use. */
static int network_for(struct network *net, const cv_policy *p, struct net_holder **out, cv_error_t *err)
{
	*out = NULL;
	if (p->network != CV_POLICY_NET_OUTBOUND)
		return 0;
	size_t i = p->allow_host_loopback.set && p->allow_host_loopback.v;
	struct net_holder *n = &net->by_loopback[i];
	if (n->pid <= 0 && holder_start(p, net->top, i, n, err) < 0)
		return -1;
	*out = n;
	return 0;
}

static void network_stop(struct network *net)
{
	for (size_t i = 0; i < sizeof(net->by_loopback) / sizeof(net->by_loopback[0]); i++)
		holder_stop(&net->by_loopback[i]);
}

/* Whether PID, reaped, was a holder (which then is no more). */
static bool network_reaped(struct network *net, pid_t pid)
{
	for (size_t i = 0; i < sizeof(net->by_loopback) / sizeof(net->by_loopback[0]); i++)
		if (net->by_loopback[i].pid == pid) {
			net->by_loopback[i].pid = 0;
			(void)umount2(net->by_loopback[i].sysfs, MNT_DETACH);
			return true;
		}
	return false;
}

/* The policy of a run: JSON's, on the keeper's root, in CWD ("": the
 * workspace), in NETNS (NULL: its own). */
static int run_policy(const char *root, const char *json, const char *cwd, const struct net_holder *netns,
		      cv_policy **out, cv_error_t *err)
{
	cleanup_policy cv_policy *p = NULL;
	if (cv_policy_parse(json, strlen(json), "policy", &p, err) < 0)
		return -1;
	if (p->rootfs)
		return cv_error(err, EINVAL, "policy: rootfs: a library sandbox runs on the host's root");
	if (!(p->rootfs = strdup(root)) || (*cwd && !(p->run_cwd = strdup(cwd))))
		return cv_error(err, ENOMEM, "sandbox run");
	p->persistent_root = true;
	if (netns && (asprintf(&p->netns_path, "/proc/%d/ns/net", (int)netns->pid) < 0 ||
		      !(p->netns_sysfs = strdup(netns->sysfs))))
		return cv_error(err, ENOMEM, "sandbox run");
	*out = steal_pointer(&p);
	return 0;
}

static int run(const struct cvisor_context *ctx, const char *root, struct request *r, const struct net_holder *netns,
	       int *exit_code, char **report, size_t *report_len, cv_error_t *err)
{
	const char *json = NULL, *cwd = NULL;
	cleanup_free char **args = NULL;
	if (request_strings(r, &json, &cwd, &args, err) < 0)
		return -1;
	cleanup_policy cv_policy *p = NULL;
	if (run_policy(root, json, cwd, netns, &p, err) < 0)
		return -1;
	if (r->h.timeout_ms) {
		p->timeout_ms.set = true;
		p->timeout_ms.v = r->h.timeout_ms;
	}
	/* the program's stdio, and for a terminal its controlling one (the
	 * supervisor follows its size on SIGWINCH) */
	for (int i = 0; i < 3; i++)
		if (dup2(r->fds[i], i) < 0)
			return cv_error_errno(err, "sandbox run: stdio");
	if (r->h.flags & CV_KEEPER_FLAG_PTY && (setsid() < 0 || ioctl(0, TIOCSCTTY, 0) < 0))
		return cv_error_errno(err, "sandbox run: the terminal");
	cv_sandbox_report rep;
	if (cv_sandbox_do(ctx, p, args, true, true, r->fds[CV_KEEPER_FD_KILL], &rep, err) < 0)
		return -1;
	*exit_code = rep.exit_code;
	return cv_sandbox_report_emit(&rep, report, report_len, err);
}

/* The run's answer on its result pipe: the report, or the error E. */
static void answer(int result, int r, int code, const char *report, size_t len, const cv_error_t e)
{
	if (r < 0)
		rec_write(result, CV_KEEPER_REC_ERROR, e && e->errnum > 0 ? e->errnum : EIO,
			  e && e->msg ? e->msg : "sandbox run failed", e && e->msg ? strlen(e->msg) : 18);
	else
		rec_write(result, CV_KEEPER_REC_REPORT, code, report, len);
}

/* The run's process: never returns. */
static void run_child(const struct cvisor_context *ctx, const char *root, struct request *r,
		      const struct net_holder *netns, int level)
{
	int result = r->fds[CV_KEEPER_FD_RESULT];
	cleanup_error cv_error_t e = NULL;
	cleanup_free char *report = NULL;
	size_t len = 0;
	int code = 0;
	sigset_t none;
	sigemptyset(&none);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	cv_log_set_sink(run_log, &result, level);
	int rc = run(ctx, root, r, netns, &code, &report, &len, &e);
	answer(result, rc, code, report, len, e);
	_exit(0);
}

static int receive(int sock, struct request *r, cv_error_t *err);

/* ---- the prepared run ----
 *
 * A sandbox used again and again (an agent's loop) gets each next run made
 * ahead: once a run is over and none other is in flight, the keeper forks
 * a run for the policy and working directory of the last one, which makes
 * everything (namespaces, mounts, cgroup, credentials) and waits for its
 * program in its container. A request with the same policy and cwd goes
 * to it (its fds passed on), and only its program's start remains; any
 * other request ends it first. What the program finds is what a run made
 * at once would give it: the root is the keeper's overlay, which every run
 * binds live, the workspace a bind of the host's directory, and what each
 * run gets fresh (/tmp, the pid namespace, a network namespace unless the
 * sandbox's holder's) is its own. */

/* None before this many requests: a sandbox made for one run or two never
 * pays for one it does not use. */
#define PREPARE_AFTER_RUNS 2

struct prepared {
	pid_t pid; /* 0: none */
	int sock;  /* ours of the pair it takes its request from, -1: none */
	char *key; /* the policy and cwd it was made for (request bytes) */
	size_t key_len;
};

/* The bytes of R that a prepared run must match: the policy and the cwd. */
static size_t request_key_len(const struct request *r)
{
	const char *nul = r->len ? memchr(r->buf, '\0', r->len) : NULL;
	const char *nul2 = nul ? memchr(nul + 1, '\0', r->len - (size_t)(nul + 1 - r->buf)) : NULL;
	return nul2 ? (size_t)(nul2 + 1 - r->buf) : 0;
}

/* Whether a run for R can be prepared: a program's (not the library's
 * agent for files and caches), without a terminal, stdin not a regular
 * file, stdout and stderr two streams (each gets a relay, as the policy's
 * max_output_bytes has them in any run). */
static bool preparable(const struct request *r, const cv_policy *p)
{
	if ((r->h.flags & (CV_KEEPER_FLAG_PTY | CV_KEEPER_FLAG_AGENT)) || !p->max_output_bytes.set ||
	    !request_key_len(r))
		return false;
	struct stat st[3];
	for (int i = 0; i < 3; i++)
		if (fstat(r->fds[i], &st[i]) < 0 || isatty(r->fds[i]))
			return false;
	if (S_ISREG(st[0].st_mode) || S_ISBLK(st[0].st_mode))
		return false;
	return st[1].st_dev != st[2].st_dev || st[1].st_ino != st[2].st_ino;
}

/* Ends the prepared run, if any: it takes the hang-up of its socket for a
 * no, ends its container and exits (reaped as any run). */
static void prepared_drop(struct prepared *w)
{
	cv_closep(&w->sock);
	w->pid = 0;
}

static void prepared_release(struct prepared *w)
{
	prepared_drop(w);
	free(w->key);
	w->key = NULL;
}

/* Passes request R on to the prepared run; its fds go with it. */
static int prepared_give(struct prepared *w, const struct request *r)
{
	struct iovec iov[2] = { { (void *)&r->h, sizeof(r->h) }, { r->buf, r->len } };
	return cv_send_fds(w->sock, iov, 2, r->fds, CV_KEEPER_NFDS);
}

/* The prepared run's side: its request once it came, and the log lines
 * made before (they go where the request says). */
struct prepared_run {
	int sock;
	struct request r;
	bool got;
	uint64_t policy_timeout_ms;
	struct {
		int level;
		char *msg;
	} early[8];
	size_t n_early;
};

static void prepared_log(int level, const char *msg, void *data)
{
	struct prepared_run *w = data;
	if (w->got) {
		rec_write(w->r.fds[CV_KEEPER_FD_RESULT], CV_KEEPER_REC_LOG, level, msg, strlen(msg));
		return;
	}
	char *m = strdup(msg);
	if (m && w->n_early < sizeof(w->early) / sizeof(w->early[0]))
		w->early[w->n_early++] = (typeof(w->early[0])){ level, m };
	else
		free(m);
}

/* cv_sandbox_do_prepared's wait: the request, from the keeper. */
static int prepared_await(void *arg, struct cv_sandbox_start *st, cv_error_t *err)
{
	struct prepared_run *w = arg;
	int got = receive(w->sock, &w->r, err);
	if (got <= 0)
		return got < 0 ? -1 : cv_error(err, ECANCELED, "sandbox keeper: a prepared run not wanted");
	w->got = true;
	for (size_t i = 0; i < w->n_early; i++) {
		rec_write(w->r.fds[CV_KEEPER_FD_RESULT], CV_KEEPER_REC_LOG, w->early[i].level, w->early[i].msg,
			  strlen(w->early[i].msg));
		free(w->early[i].msg);
	}
	w->n_early = 0;
	const char *json, *cwd;
	cleanup_free char **args = NULL;
	if (request_strings(&w->r, &json, &cwd, &args, err) < 0)
		return -1;
	/* the arguments lie in the request as START takes them: "ARG\0"... */
	size_t n = w->r.h.nargs;
	size_t len = (size_t)(args[n - 1] + strlen(args[n - 1]) + 1 - args[0]);
	char *buf = malloc(len);
	if (!buf)
		return cv_error(err, ENOMEM, "sandbox run");
	memcpy(buf, args[0], len);
	if (dup2(w->r.fds[CV_KEEPER_FD_STDOUT], 1) < 0 || dup2(w->r.fds[CV_KEEPER_FD_STDERR], 2) < 0) {
		free(buf);
		return cv_error_errno(err, "sandbox run: stdio");
	}
	/* a copy: the request stays whole for a run made anew (ESTALE) */
	int in = fcntl(w->r.fds[CV_KEEPER_FD_STDIN], F_DUPFD_CLOEXEC, 3);
	if (in < 0) {
		free(buf);
		return cv_error_errno(err, "sandbox run: stdin");
	}
	st->args = buf;
	st->args_len = len;
	st->stdin_fd = in;
	st->kill_fd = w->r.fds[CV_KEEPER_FD_KILL];
	st->timeout_ms = w->r.h.timeout_ms ? w->r.h.timeout_ms : w->policy_timeout_ms;
	return 0;
}

/* The prepared run's process: never returns. KEY is the policy, then the
 * cwd. */
static void prepared_child(const struct cvisor_context *ctx, const char *root, const char *key,
			   const struct net_holder *netns, int sock, int level)
{
	struct prepared_run w = { .sock = sock, .r = { .fds = { -1, -1, -1, -1, -1 } } };
	sigset_t none;
	sigemptyset(&none);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* nothing of the caller's until the request: its stderr is ours now */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		_exit(1);
	close(null);
	cv_log_set_sink(prepared_log, &w, level);
	cleanup_error cv_error_t e = NULL;
	cleanup_policy cv_policy *p = NULL;
	cv_sandbox_report rep = { 0 };
	int r = run_policy(root, key, key + strlen(key) + 1, netns, &p, &e);
	if (r == 0) {
		w.policy_timeout_ms = p->timeout_ms.set ? p->timeout_ms.v : 0;
		r = cv_sandbox_do_prepared(ctx, p, true, prepared_await, &w, &rep, &e);
	}
	/* made wrong: the request that comes, if one does, gets the error */
	cleanup_error cv_error_t e2 = NULL;
	if (r < 0 && !w.got && receive(sock, &w.r, &e2) > 0)
		w.got = true;
	if (w.got) {
		int result = w.r.fds[CV_KEEPER_FD_RESULT];
		cleanup_free char *report = NULL;
		size_t len = 0;
		int code = rep.exit_code;
		if (r < 0 && e && e->errnum == ESTALE) {
			/* the host changed under it: the run as made now */
			cv_debug("%s: made anew", e->msg);
			cv_error_release(&e);
			r = run(ctx, root, &w.r, netns, &code, &report, &len, &e);
		} else if (r == 0) {
			r = cv_sandbox_report_emit(&rep, &report, &len, &e);
		}
		answer(result, r, code, report, len, e);
	}
	_exit(0);
}

/* Forks the prepared run for KEY (the last request's policy and cwd). */
static void prepared_start(struct prepared *w, const struct cvisor_context *ctx, const char *root,
			   const struct net_holder *netns, int level, const int *close_fds, size_t n_close)
{
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		cv_debug("sandbox keeper: socketpair: %s", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(sp[0]);
		for (size_t i = 0; i < n_close; i++)
			close(close_fds[i]);
		prepared_child(ctx, root, w->key, netns, sp[1], level);
	}
	close(sp[1]);
	if (pid < 0) {
		cv_debug("sandbox keeper: fork: %s", strerror(errno));
		close(sp[0]);
		return;
	}
	w->pid = pid;
	w->sock = sp[0];
}

/* The network namespace of the keeper's for request R (*netns 0: a new
 * one, or the host's); -1 when it cannot be made, the run answered with
 * the error. *prepare: whether a run for R can be prepared. A policy that
 * does not parse is left to the run, which says so. */
static int run_network(struct network *net, struct request *r, struct net_holder **netns, bool *prepare)
{
	*netns = NULL;
	*prepare = false;
	const char *json = r->buf;
	if (!r->len || !memchr(r->buf, '\0', r->len))
		return 0;
	cleanup_policy cv_policy *p = NULL;
	cleanup_error cv_error_t e = NULL;
	if (cv_policy_parse(json, strlen(json), "policy", &p, &e) < 0)
		return 0;
	if (network_for(net, p, netns, &e) == 0) {
		*prepare = preparable(r, p);
		return 0;
	}
	rec_write(r->fds[CV_KEEPER_FD_RESULT], CV_KEEPER_REC_ERROR, e->errnum > 0 ? e->errnum : EIO, e->msg,
		  strlen(e->msg));
	return -1;
}

/* One request off the socket; 0 at EOF, 1 with *r filled. */
static int receive(int sock, struct request *r, cv_error_t *err)
{
	char *buf = malloc(CV_KEEPER_REQ_MAX);
	if (!buf)
		return cv_error(err, ENOMEM, "sandbox keeper");
	struct iovec iov = { buf, CV_KEEPER_REQ_MAX };
	union {
		char b[CMSG_SPACE(CV_KEEPER_NFDS * sizeof(int))];
		struct cmsghdr align;
	} c;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b, .msg_controllen = sizeof(c.b) };
	ssize_t n;
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		free(buf);
		return n == 0 ? 0 : cv_error_errno(err, "sandbox keeper: receive");
	}
	int got = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			int k = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			for (int i = 0; i < k; i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (got < CV_KEEPER_NFDS)
					r->fds[got++] = fd;
				else
					close(fd);
			}
		}
	if ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || (size_t)n < sizeof(r->h) || got != CV_KEEPER_NFDS) {
		free(buf);
		return cv_error(err, EPROTO, "sandbox keeper: a malformed request");
	}
	memcpy(&r->h, buf, sizeof(r->h));
	r->len = (size_t)n - sizeof(r->h);
	memmove(buf, buf + sizeof(r->h), r->len);
	r->buf = buf;
	return 1;
}

/* ---- the keeper ---- */

/* A caller without root: a user namespace mapping only its own ids (to
 * themselves), where this process may mount the tmpfs and the overlays;
 * the runs are made from it as by that user (rootless). */
static int own_userns(uid_t uid, gid_t gid, cv_error_t *err)
{
	char map[64];
	if (unshare(CLONE_NEWUSER) < 0)
		return cv_error_errno(err, "sandbox keeper: a user namespace (needed to mount the overlay as a user)");
	int n = snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (cv_procfs_write("self/uid_map", map, (size_t)n, err) < 0 ||
	    cv_procfs_write("self/setgroups", "deny\n", 5, err) < 0)
		return cv_error_prefix(err, "sandbox keeper: user namespace");
	n = snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (cv_procfs_write("self/gid_map", map, (size_t)n, err) < 0)
		return cv_error_prefix(err, "sandbox keeper: user namespace");
	return 0;
}

static int keeper_dir(const struct cvisor_context *ctx, char **out, cv_error_t *err)
{
	cleanup_free char *base = NULL;
	if (cv_keeper_base_dir(ctx, &base, err) < 0)
		return -1;
	/* 0711: the runtime reaches the root through it as the program's
	 * identity (on the host each directory there stays empty) */
	if (mkdir(base, 0711) < 0 && errno != EEXIST)
		return cv_error_errno(err, "sandbox keeper: mkdir `%s`", base);
	if (asprintf(out, "%s/" CV_KEEPER_DIR_PREFIX "%d", base, (int)getpid()) < 0)
		return cv_error(err, ENOMEM, "sandbox keeper");
	/* a dead keeper's, whose pid we have now */
	(void)rmdir(*out);
	if (mkdir(*out, 0755) < 0)
		return cv_error_errno(err, "sandbox keeper: mkdir `%s`", *out);
	return 0;
}

int cv_keeper_base_dir(const struct cvisor_context *ctx, char **out, cv_error_t *err)
{
	if (geteuid() == 0) {
		if (!(*out = strdup(CV_KEEPER_BASE_DIR)))
			return cv_error(err, ENOMEM, "sandbox keeper");
		return 0;
	}
	/* a user's program runs as that user: its own directories do */
	return cv_state_root_sibling(ctx, "-keepers", out, err);
}

void cv_keeper_gc(const struct cvisor_context *ctx, unsigned *removed)
{
	cleanup_free char *base = NULL;
	cleanup_error cv_error_t err = NULL;
	if (cv_keeper_base_dir(ctx, &base, &err) < 0)
		return;
	cleanup_dir DIR *d = opendir(base);
	for (struct dirent *e; d && (e = readdir(d));) {
		char *end;
		if (strncmp(e->d_name, CV_KEEPER_DIR_PREFIX, strlen(CV_KEEPER_DIR_PREFIX)) != 0)
			continue;
		long pid = strtol(e->d_name + strlen(CV_KEEPER_DIR_PREFIX), &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		/* empty on the host: its mounts were the dead keeper's own */
		if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) == 0)
			(*removed)++;
	}
}

/* The keeper is its runs' watcher (cv_sandbox_do's WATCHED): a run whose
 * supervisor died (a run process ends with status 0 otherwise) may have
 * left its cgroup, which is removed once its init, dying with the
 * supervisor, is gone. */
#define ORPHAN_WAIT_MS 5000

struct orphan {
	pid_t pid;
	uint64_t until;
};

struct orphans {
	struct orphan *v;
	size_t n, cap;
};

static void orphans_free(struct orphans *o)
{
	free(o->v);
}

static void orphan_add(struct orphans *o, pid_t pid)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 8;
		struct orphan *v = realloc(o->v, cap * sizeof(*v));
		if (!v) {
			cv_warn("sandbox keeper: the cgroup of run %d is left to the gc: out of memory", (int)pid);
			return;
		}
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = (struct orphan){ pid, cv_now_ms() + ORPHAN_WAIT_MS };
}

/* Tries each orphan once; keeps those whose cgroup is still there. */
static void orphans_collect(const struct cvisor_context *ctx, struct orphans *o)
{
	uint64_t now = cv_now_ms();
	for (size_t i = 0; i < o->n;) {
		cleanup_error cv_error_t e = NULL;
		unsigned left = 0;
		bool done = true;
		if (cv_sandbox_run_remove(ctx, o->v[i].pid, &left, &e) < 0)
			cv_warn("sandbox keeper: the cgroup of run %d: %s", (int)o->v[i].pid, e->msg);
		else if (left && now >= o->v[i].until)
			cv_warn("sandbox keeper: the cgroup of run %d is still busy: left to the gc", (int)o->v[i].pid);
		else if (left)
			done = false;
		if (!done) {
			i++;
			continue;
		}
		o->v[i] = o->v[--o->n];
	}
}

static int serve(const struct cvisor_context *ctx, int sock, const char *top, const char *root, int level,
		 cv_error_t *err)
{
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0)
		return cv_error_errno(err, "sandbox keeper: sigprocmask");
	cleanup_close int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return cv_error_errno(err, "sandbox keeper: signalfd");
	unsigned running = 0, requests = 0;
	bool open = true;
	struct prepared prep __attribute__((cleanup(prepared_release))) = { .sock = -1 };
	struct net_holder *prep_netns = NULL;
	struct network net = { .top = top };
	struct orphans orphans __attribute__((cleanup(orphans_free))) = { 0 };
	/* what runs killed with an earlier keeper left: our runs have no
	 * watcher to do it */
	unsigned removed = 0;
	cleanup_error cv_error_t gc_err = NULL;
	if (cv_sandbox_gc(ctx, &removed, &gc_err) < 0)
		cv_warn("sandbox gc: %s", gc_err->msg);
	while (open || running || orphans.n) {
		struct pollfd pf[2] = { { open ? sock : -1, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		if (orphans.n)
			orphans_collect(ctx, &orphans);
		if ((open || running || orphans.n) && poll(pf, 2, orphans.n ? 20 : -1) < 0) {
			if (errno == EINTR)
				continue;
			return cv_error_errno(err, "sandbox keeper: poll");
		}
		if (pf[1].revents) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				;
			pid_t w;
			int status;
			while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
				if (network_reaped(&net, w))
					continue;
				if (running)
					running--;
				if (w == prep.pid)
					prepared_drop(&prep); /* gone before its request */
				if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
					orphan_add(&orphans, w);
			}
		}
		/* the next run made ahead, while nothing else runs */
		if (open && !running && !prep.pid && prep.key && requests >= PREPARE_AFTER_RUNS) {
			int fds[] = { sock, sfd };
			prepared_start(&prep, ctx, root, prep_netns, level, fds, 2);
			if (prep.pid)
				running++;
		}
		if (!pf[0].revents)
			continue;
		struct request r = { .fds = { -1, -1, -1, -1, -1 } };
		cleanup_error cv_error_t e = NULL;
		int got = receive(sock, &r, &e);
		if (got <= 0) {
			if (got < 0 && e->errnum != EPROTO)
				cv_warn("%s", e->msg);
			request_release(&r);
			/* the library is gone (or spoke nonsense): its runs'
			 * kill pipes have hung up, they end by themselves */
			open = got < 0 && e->errnum == EPROTO;
			if (!open)
				prepared_drop(&prep);
			continue;
		}
		requests++;
		struct net_holder *netns = NULL;
		bool prepare = false;
		if (run_network(&net, &r, &netns, &prepare) < 0) {
			request_release(&r);
			continue;
		}
		size_t klen = prepare ? request_key_len(&r) : 0;
		if (prepare) {
			bool same = prep.key && prep.key_len == klen && !memcmp(prep.key, r.buf, klen);
			if (prep.pid && same && prepared_give(&prep, &r) == 0) {
				/* a run like any other now (counted as running) */
				prepared_drop(&prep);
				request_release(&r);
				continue;
			}
			/* made for another policy: ends itself */
			prepared_drop(&prep);
			if (!same) {
				char *k = malloc(klen);
				free(prep.key);
				prep.key = k;
				prep.key_len = k ? klen : 0;
				if (k)
					memcpy(k, r.buf, klen);
			}
			prep_netns = netns;
		}
		pid_t pid = fork();
		if (pid == 0) {
			close(sock);
			close(sfd);
			run_child(ctx, root, &r, netns, level);
		}
		if (pid < 0)
			cv_warn("sandbox keeper: fork: %s", strerror(errno));
		else
			running++;
		request_release(&r);
	}
	network_stop(&net);
	return 0;
}

int cv_sandbox_keeper(const struct cvisor_context *ctx, cv_error_t *err)
{
	int sock = cv_helper_socket();
	if (sock < 0)
		return cv_error(err, EINVAL, "sandbox-keeper: run only by libcvisor, as its helper");
	struct cv_sandbox_host h;
	if (cv_sandbox_host_init(&h, false, err) < 0)
		return -1;
	/* nothing of the caller's terminal */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
		return cv_error_errno(err, "sandbox keeper: /dev/null");
	close(null);
	cleanup_free char *dir = NULL;
	if (keeper_dir(ctx, &dir, err) < 0)
		return -1;
	int r = -1;
	char root[PATH_MAX];
	bool root_caller = h.uid == 0;
	/* the program's host identity: as root an unprivileged one, else
	 * the caller's own */
	struct layers l = { .top = dir,
			    .uid = root_caller ? h.sandbox_uid : h.uid,
			    .gid = root_caller ? h.sandbox_gid : h.gid,
			    .userns = !root_caller };
	if (!root_caller && own_userns(h.uid, h.gid, err) < 0)
		goto out;
	if (unshare(CLONE_NEWNS) < 0) {
		cv_error_errno(err, "sandbox keeper: unshare the mount namespace");
		goto out;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		cv_error_errno(err, "sandbox keeper: make the mounts private");
		goto out;
	}
	/* 0755: the runtime reaches the mounts of the root through it as the
	 * program's identity; no one else can reach this namespace's view */
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) {
		cv_error_errno(err, "sandbox keeper: tmpfs on `%s`", dir);
		goto out;
	}
	snprintf(root, sizeof(root), "%s/root", dir);
	if (setup_root(&l, root, err) < 0)
		goto out;
	if (cv_sync_send(sock, CV_SYNC_KEEPER_READY, (int)getpid(), NULL, 0, -1, err) < 0)
		goto out;
	r = serve(ctx, sock, dir, root, cv_log_enabled(CV_LOG_DEBUG) ? CV_LOG_DEBUG : CV_LOG_WARNING, err);
out:
	/* the mounts end with this namespace; the directory is the host's */
	(void)umount2(dir, MNT_DETACH);
	if (rmdir(dir) < 0)
		cv_debug("sandbox keeper: rmdir `%s`: %s", dir, strerror(errno));
	return r;
}

/* Paths each run gets fresh: nothing written there is kept. */
bool cv_keeper_not_kept(const char *real)
{
	for (size_t i = 0; i < sizeof(own_mounts) / sizeof(own_mounts[0]); i++)
		if (under(real, own_mounts[i]))
			return true;
	return false;
}
