/* The supervisor of `cvisor do` (see supervisor.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cgroups/cgroups.h"
#include "cleanup.h"
#include "cvisor-binary.h"
#include "clock.h"
#include "io.h"
#include "process/console.h"
#include "lifecycle/create.h"
#include "lifecycle/status.h"
#include "process/init-loop.h"
#include "log.h"
#include "oci/spec.h"
#include "sandbox/relay.h"
#include "sandbox/sandbox.h"
#include "lifecycle/state-store.h"
#include "sandbox/supervisor.h"
#include "sandbox/watcher.h"

/* What cvisor do passes on to the program (through its init): what a
 * terminal, a shell or a supervisor sends to stop or poke a process. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

int cv_state_root_sibling(const struct cvisor_context *ctx, const char *suffix, char **out, cv_error_t *err)
{
	cleanup_free char *root = NULL;
	if (cv_context_root(ctx, &root, err) < 0)
		return -1;
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (asprintf(out, "%.*s%s", (int)n, root, suffix) < 0)
		return cv_error(err, ENOMEM, "sandbox");
	return 0;
}

int cv_sandbox_bundles_dir(const struct cvisor_context *ctx, char **out, cv_error_t *err)
{
	return cv_state_root_sibling(ctx, "-sandbox", out, err);
}

/* A run is alive while its supervisor (or the watcher, which shares the
 * open file) holds an OFD write lock on byte PID of this file; the run's id
 * is do-PID-...: no directory per run to make and remove (each costs ~1 ms
 * on this disk). */
#define LIVE_FILE ".live"

static int live_fd(const char *dir)
{
	cleanup_free char *path = NULL;
	if (asprintf(&path, "%s/" LIVE_FILE, dir) < 0)
		return -1;
	return open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static int live_lock(int fd, pid_t pid, short type, int cmd)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = pid, .l_len = 1 };
	int r;
	do
		r = fcntl(fd, cmd, &fl);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -1 : fl.l_type;
}

/* A run's name is do-PID-HEX (see make_bundle); 0 otherwise. */
static pid_t run_pid(const char *name)
{
	char *end;
	if (strncmp(name, "do-", 3) != 0)
		return 0;
	long v = strtol(name + 3, &end, 10);
	return *end == '-' && v > 0 && v <= INT32_MAX ? (pid_t)v : 0;
}

/* Kills what is left of a run and removes its cgroup (a sandbox has no
 * state directory). */
static void destroy_run(struct cv_container *c, const oci_spec *spec)
{
	cleanup_error cv_error_t e = NULL;
	if (cv_container_kill_wait(c, &e) < 0)
		cv_warn("sandbox %s: %s", c->state->id, e->msg);
	cv_error_release(&e);
	if (cv_container_destroy(c, spec, &e) < 0)
		cv_warn("sandbox %s: %s", c->state->id, e->msg);
}

/* Dead: nobody holds its byte of LIVE_FILE, and its supervisor's pid is
 * gone. The second test covers a run of another --root (another LIVE_FILE)
 * or one whose LIVE_FILE was replaced: its cgroup is empty for a moment after
 * it is made, and must not be taken for a leftover then. */
static bool run_is_dead(const char *name, void *arg)
{
	int lfd = *(int *)arg;
	pid_t pid = run_pid(name);
	return pid > 0 && (lfd < 0 || live_lock(lfd, pid, F_WRLCK, F_OFD_GETLK) == F_UNLCK) && kill(pid, 0) < 0 &&
	       errno == ESRCH;
}

/* A run writes nothing to disk but holds its byte of LIVE_FILE: its cgroup
 * directories (do-PID-..., below our own cgroup) whose run is dead are what
 * a supervisor and its watcher left when both were killed. */
/* LIVE_FILE of ctx's runs into *lfd; -1 there when it cannot be made (no
 * run of this --root yet): the pids alone tell then. */
static int gc_live_fd(const struct cvisor_context *ctx, int *lfd, cv_error_t *err)
{
	cleanup_free char *dir = NULL;
	if (cv_sandbox_bundles_dir(ctx, &dir, err) < 0)
		return -1;
	*lfd = live_fd(dir);
	if (*lfd < 0 && errno != ENOENT)
		return cv_error_errno(err, "open `%s/" LIVE_FILE "`", dir);
	return 0;
}

int cv_sandbox_gc(const struct cvisor_context *ctx, unsigned *removed, cv_error_t *err)
{
	cleanup_close int lfd = -1;
	*removed = 0;
	if (gc_live_fd(ctx, &lfd, err) < 0)
		return -1;
	return cv_cgroup_remove_stale(CV_SANDBOX_CGROUP_CONTROLLERS, run_is_dead, &lfd, removed, err);
}

struct run_of {
	int lfd;
	pid_t pid;
	unsigned seen;
};

static bool run_of_pid_is_dead(const char *name, void *arg)
{
	struct run_of *o = arg;
	if (run_pid(name) != o->pid)
		return false;
	o->seen++;
	return run_is_dead(name, &o->lfd);
}

int cv_sandbox_run_remove(const struct cvisor_context *ctx, pid_t pid, unsigned *left, cv_error_t *err)
{
	cleanup_close int lfd = -1;
	if (gc_live_fd(ctx, &lfd, err) < 0)
		return -1;
	struct run_of o = { .lfd = lfd, .pid = pid };
	unsigned removed = 0;
	if (cv_cgroup_remove_stale(CV_SANDBOX_CGROUP_CONTROLLERS, run_of_pid_is_dead, &o, &removed, err) < 0)
		return -1;
	*left = o.seen - removed;
	return 0;
}

/* ---- the watcher (watcher.h) ---- */

/* What the watcher executes should we die: `cvisor sandbox-reap` for C's
 * init and cgroup (cv_sandbox_reap), each of its cgroup paths as two
 * arguments, key and value. Malloc'd: *argv and its strings in one block. */
static int reap_argv(const struct cv_container *c, char ***argv, cv_error_t *err)
{
	const oci_state *st = c->state;
	const oci_kv_list *paths = &st->cgroup_paths;
	char pid[24], start[24];
	snprintf(pid, sizeof(pid), "%d", (int)st->pid);
	snprintf(start, sizeof(start), "%" PRIu64, st->pid_start);
	const char *fixed[] = { "/proc/self/exe", CV_SANDBOX_REAP_VERB, pid, start, st->id };
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]), n = nfixed + 2 * paths->len, bytes = 0;
	for (size_t i = 0; i < nfixed; i++)
		bytes += strlen(fixed[i]) + 1;
	for (size_t i = 0; i < paths->len; i++)
		bytes += strlen(paths->v[i].key) + strlen(paths->v[i].value) + 2;
	char **v = malloc((n + 1) * sizeof(char *) + bytes);
	if (!v)
		return cv_error(err, ENOMEM, "sandbox watcher");
	char *s = (char *)(v + n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *src = i < nfixed              ? fixed[i]
				  : (i - nfixed) % 2 == 0 ? paths->v[(i - nfixed) / 2].key
							  : paths->v[(i - nfixed) / 2].value;
		size_t len = strlen(src) + 1;
		v[k++] = memcpy(s, src, len);
		s += len;
	}
	v[k] = NULL;
	*argv = v;
	return 0;
}

/* The watcher sees the supervisor's fds close, which comes before its exit
 * is complete (a zombie): whether PID ends within MS. */
static bool exits_within(pid_t pid, int ms)
{
	cleanup_close int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return errno == ESRCH;
	struct pollfd pf = { fd, POLLIN, 0 };
	int r;
	do
		r = poll(&pf, 1, ms);
	while (r < 0 && errno == EINTR);
	return r > 0;
}

int cv_sandbox_reap(int argc, char *const *argv, cv_error_t *err)
{
	if (argc < 3 || (argc - 3) % 2 != 0)
		return cv_error_plain(err, EINVAL, CV_SANDBOX_REAP_VERB ": expected PID PID_START ID [KEY VALUE]...");
	char *end;
	errno = 0;
	long pid = strtol(argv[0], &end, 10);
	if (errno || *end || pid <= 0 || pid > INT32_MAX)
		return cv_error_plain(err, EINVAL, CV_SANDBOX_REAP_VERB ": PID `%s`: not a process id", argv[0]);
	uint64_t start = strtoull(argv[1], &end, 10);
	if (errno || *end || !*argv[1] || *argv[1] == '-')
		return cv_error_plain(err, EINVAL, CV_SANDBOX_REAP_VERB ": PID_START `%s`: not a number", argv[1]);
	/* only a run's own cgroup, and only once its supervisor is gone */
	const char *id = argv[2];
	pid_t supervisor = run_pid(id);
	if (!supervisor)
		return cv_error_plain(err, EINVAL,
				      CV_SANDBOX_REAP_VERB ": ID `%s`: not a run of cvisor do (do-PID-...)", id);
	for (int i = 4; i < argc; i += 2) {
		const char *slash = strrchr(argv[i], '/');
		if (argv[i][0] == '/' && (!slash || strcmp(slash + 1, id) != 0))
			return cv_error_plain(err, EINVAL, CV_SANDBOX_REAP_VERB ": `%s`: not the cgroup of run %s",
					      argv[i], id);
	}
	uint64_t started;
	if (cv_proc_start_time(supervisor, false, &started) == 0 && !exits_within(supervisor, 2000))
		return cv_error_plain(err, EBUSY,
				      CV_SANDBOX_REAP_VERB ": the supervisor of run %s, process %d, is alive", id,
				      (int)supervisor);
	cleanup_container struct cv_container *c = calloc(1, sizeof(*c));
	if (!c || !(c->state = calloc(1, sizeof(*c->state))) || !(c->state->id = strdup(id)))
		return cv_error(err, ENOMEM, CV_SANDBOX_REAP_VERB);
	c->state->pid = (int)pid;
	c->state->pid_start = start;
	size_t n = (size_t)(argc - 3) / 2;
	oci_kv_list *paths = &c->state->cgroup_paths;
	if (n && !(paths->v = calloc(n, sizeof(*paths->v))))
		return cv_error(err, ENOMEM, CV_SANDBOX_REAP_VERB);
	for (size_t i = 0; i < n; i++, paths->len++)
		if (!(paths->v[i].key = strdup(argv[3 + 2 * i])) || !(paths->v[i].value = strdup(argv[4 + 2 * i])))
			return cv_error(err, ENOMEM, CV_SANDBOX_REAP_VERB);
	/* a run has no hooks to run at its end (outbound's is createRuntime) */
	const oci_spec none = { 0 };
	destroy_run(c, &none);
	return 0;
}

/* ---- cgroup figures ---- */

/* The value of "KEY N" in a flat-keyed cgroup file, or of the whole file
 * when key is NULL. */
static bool read_cg_value(const char *dir, const char *file, const char *key, uint64_t *out)
{
	char path[4096], buf[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (cv_read_buf_at(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return false;
	if (!key)
		return sscanf(buf, "%" SCNu64, out) == 1;
	size_t kl = strlen(key);
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return sscanf(l + kl + 1, "%" SCNu64, out) == 1;
	return false;
}

/* The directory for CONTROLLER ("memory", "pids", "cpuacct"): its v1
 * hierarchy (keys may join controllers: "cpu,cpuacct"), else the v2 one. */
static const char *cg_dir(const oci_kv_list *paths, const char *controller, bool *v2)
{
	size_t cl = strlen(controller);
	for (size_t i = 0; i < paths->len; i++) {
		const char *k = paths->v[i].key;
		for (const char *p = k; p && *p;) {
			size_t n = strcspn(p, ",");
			if (n == cl && !strncmp(p, controller, cl)) {
				*v2 = false;
				return paths->v[i].value;
			}
			p += n + (p[n] == ',');
		}
	}
	for (size_t i = 0; i < paths->len; i++)
		if (!strcmp(paths->v[i].key, "unified")) {
			*v2 = true;
			return paths->v[i].value;
		}
	return NULL;
}

static void read_cgroup_figures(const oci_kv_list *paths, cv_sandbox_report *r)
{
	bool v2;
	uint64_t v;
	const char *d = cg_dir(paths, "memory", &v2);
	if (d) {
		if (read_cg_value(d, v2 ? "memory.events" : "memory.oom_control", "oom_kill", &v) && v > 0)
			r->limit_memory = true;
		if (read_cg_value(d, v2 ? "memory.peak" : "memory.max_usage_in_bytes", NULL, &v)) {
			r->peak_memory_known = true;
			r->peak_memory = v;
		}
	}
	d = cg_dir(paths, "pids", &v2);
	if (d && read_cg_value(d, "pids.events", "max", &v) && v > 0)
		r->limit_processes = true;
	d = cg_dir(paths, "cpuacct", &v2);
	if (d) {
		if (!v2 && read_cg_value(d, "cpuacct.usage", NULL, &v)) {
			r->cpu_known = true;
			r->cpu_ms = v / 1000000;
		} else if (v2 && read_cg_value(d, "cpu.stat", "usage_usec", &v)) {
			r->cpu_known = true;
			r->cpu_ms = v / 1000;
		}
	}
	d = cg_dir(paths, "cpu", &v2);
	if (d && read_cg_value(d, "cpu.stat", v2 ? "throttled_usec" : "throttled_time", &v)) {
		r->cpu_throttled_known = true;
		r->cpu_throttled_ms = v2 ? v / 1000 : v / 1000000;
	}
}

/* ---- hook leftovers ---- */

/* A hook's background processes (network "outbound": the monitor that owns
 * slirp4netns) end with the container; as the child subreaper of this run
 * they are re-parented to us, so we wait for them here and nothing of the
 * run outlives `cvisor do`. Bounded: a stuck one is reported and left. */
static void reap_orphans(pid_t watcher, pid_t init)
{
	uint64_t deadline = cv_now_ms() + 5000;
	char buf[4096];
	cleanup_close int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;
	buf[n] = '\0';
	char *save = NULL;
	for (char *t = strtok_r(buf, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
		pid_t pid = (pid_t)strtol(t, NULL, 10);
		if (pid <= 0 || pid == watcher || pid == init)
			continue;
		cleanup_close int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pfd >= 0) {
			uint64_t now = cv_now_ms();
			struct pollfd pf = { pfd, POLLIN, 0 };
			if (poll(&pf, 1, now >= deadline ? 0 : (int)(deadline - now)) == 0) {
				cv_warn("sandbox: process %d left by a hook has not exited", (int)pid);
				continue;
			}
		}
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

/* ---- cgroup availability ---- */

/* Whether this caller can have a cgroup of its own (root, or a non-root
 * user with a delegated one): tried by creating and removing a probe.
 * *why says what failed. */
static bool cgroup_available(char *why, size_t size)
{
	char id[64];
	snprintf(id, sizeof(id), "cvisor-probe-%d", (int)getpid());
	struct cv_cgroup_config cfg = { .id = id };
	struct cv_cgroup *cg = NULL;
	cleanup_error cv_error_t e = NULL;
	if (cv_cgroup_create(&cfg, &cg, &e) < 0) {
		snprintf(why, size, "no delegated cgroup (%s)", e->msg);
		return false;
	}
	if (cv_cgroup_destroy(cg, &e) < 0)
		cv_warn("sandbox: remove the probe cgroup: %s", e->msg);
	cv_cgroup_free(cg);
	return true;
}

/* ---- the program's stdio ---- */

/* What each of the program's fds 0, 1 and 2 is. */
enum route {
	ROUTE_PASS, /* the caller's own fd */
	ROUTE_PIPE, /* a pipe, copied by a relay (relay.h) */
	ROUTE_PTY,  /* the pty of the sandbox's own devpts, copied by a relay */
};

/* The caller's terminals become the pty: the program never holds one (it
 * could change its settings, or write around max_output_bytes through fd
 * 0). Regular files become pipes: it could read or truncate the caller's
 * file through /proc/self/fd otherwise. Capped output goes through a pipe.
 * Returns whether stdout and stderr are one file, which then gets one pipe
 * (and one cap): two would lose the order of their lines. */
static bool plan_stdio(const cv_policy *p, enum route route[3])
{
	struct stat st[3];
	for (int fd = 0; fd < 3; fd++) {
		route[fd] = ROUTE_PASS;
		if (fstat(fd, &st[fd]) < 0)
			continue; /* closed: so it stays for the program */
		if (S_ISCHR(st[fd].st_mode) && isatty(fd))
			route[fd] = ROUTE_PTY;
		else if (S_ISREG(st[fd].st_mode) || S_ISBLK(st[fd].st_mode) || (fd > 0 && p->max_output_bytes.set))
			route[fd] = ROUTE_PIPE;
	}
	return route[1] == ROUTE_PIPE && route[2] == ROUTE_PIPE && st[1].st_dev == st[2].st_dev &&
	       st[1].st_ino == st[2].st_ino;
}

/* A pipe whose ends are not 0, 1 or 2 (a caller may have closed those):
 * they are dup2'ed onto them in the container process. */
static int stdio_pipe(int fds[2], cv_error_t *err)
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return cv_error_errno(err, "sandbox: pipe");
	for (int i = 0; i < 2; i++) {
		if (fds[i] > 2)
			continue;
		int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
		int e = errno;
		close(fds[i]);
		fds[i] = moved;
		if (moved < 0) {
			if (i == 0)
				close(fds[1]);
			else
				close(fds[0]);
			return cv_error(err, e, "sandbox: pipe");
		}
	}
	return 0;
}

/* ---- storage ---- */

/* The sandbox's tmpfs at PATH (relative to its root), through its init's
 * root, or -1 (a non-root caller's init is not dumpable: no access). What
 * the program can do there changes nothing: a mount point cannot be
 * renamed or replaced, and the program has no capability to mount. The
 * open fd keeps the tmpfs for the reading at the end. */
static int open_storage(pid_t init, const char *path)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "/proc/%d/root/%s", (int)init, path);
	int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct statfs st;
	if (fd >= 0 && (fstatfs(fd, &st) < 0 || st.f_type != TMPFS_MAGIC)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		cv_debug("sandbox: no storage figure for /%s", path);
	return fd;
}

static bool storage_used(int fd, uint64_t *out)
{
	struct statfs st;
	if (fd < 0 || fstatfs(fd, &st) < 0)
		return false;
	*out = (uint64_t)(st.f_blocks - st.f_bfree) * (uint64_t)st.f_bsize;
	return true;
}

/* ---- one run ---- */

enum {
	RELAY_IN,
	RELAY_OUT,
	RELAY_ERR,
	RELAY_PTY,
	NRELAYS
};

/* What a prepared run's config was made of on the host: the config itself
 * (paths that exist or not, owners of the directories bound, the host's
 * mounts) and the file each absolute mount source was when it was made. */
struct source_id {
	bool exists;
	dev_t dev;
	ino_t ino;
};
struct host_print {
	char *json;
	size_t len;
	struct source_id *ids;
	size_t n;
};

struct run {
	const struct cvisor_context *ctx;
	char id[64];
	char *bundle; /* the bundles directory, every run's bundle */
	int lockfd;   /* LIVE_FILE, our byte locked */
	int configfd; /* memfd holding config.json */
	char config_path[64];
	struct cv_watcher watcher;
	/* a cgroup, and the watcher that removes it should we die (without
	 * one, the pid namespace ends with its init, whose parent death signal
	 * is ours, and nothing else of the run exists) */
	bool watch;
	enum route route[3];
	int tty; /* the caller's terminal the pty stands for (an fd of 0-2), -1 without */
	struct cv_relay relay[NRELAYS];
	bool raw; /* the caller's stdin (a terminal) in raw mode, saved in termios */
	struct termios termios;
	/* the caller's keystrokes on their way to the pty (stdin in raw mode) */
	char keys[4096];
	size_t keys_len, keys_off;
	bool keys_open;
	int sigfd; /* the signals forwarded to the program, and SIGWINCH */
	sigset_t sigmask_saved;
	struct cv_transient t; /* the container once it runs, until destroyed */
	/* the init, when the run ended on its status: still in its exit
	 * then, and reaped last (run_release) */
	pid_t init_exiting;
	oci_spec *built;        /* cv_sandbox_spec's, until the runtime takes it */
	cv_error_t watcher_err; /* cv_watcher_start's, when it failed */
	/* the sandbox's /tmp and private workspace, held open so that their
	 * use can be read when the run is over (--report), or -1 */
	int tmp_fd, ws_fd;
	bool storage, storage_ws; /* open them in while_exec (the report's figures) */
	/* a prepared run (cv_sandbox_do_prepared): its start, and what came
	 * with it */
	cv_sandbox_await_fn await;
	void *await_arg;
	const cv_policy *await_policy;
	char *const *await_args;
	struct host_print print; /* what it was made of */
	int kill_fd;
	uint64_t timeout_ms;
};

static void host_print_free(struct host_print *h)
{
	free(h->json);
	free(h->ids);
	*h = (struct host_print){ 0 };
}

static int host_print_of(const oci_spec *spec, struct host_print *h, cv_error_t *err)
{
	*h = (struct host_print){ 0 };
	if (oci_spec_emit(spec, false, &h->json, &h->len, err) < 0)
		return -1;
	/* the masked paths too: the runtime skips one that does not exist */
	const oci_strv *masked = spec->linux_ ? &spec->linux_->masked_paths : NULL;
	size_t nm = masked ? masked->len : 0;
	h->ids = calloc(spec->mounts_len + nm + 1, sizeof(*h->ids));
	if (!h->ids)
		return cv_error(err, ENOMEM, "sandbox");
	h->n = spec->mounts_len + nm;
	for (size_t i = 0; i < spec->mounts_len; i++) {
		const char *src = spec->mounts[i].source;
		struct stat st;
		if (src && src[0] == '/' && stat(src, &st) == 0)
			h->ids[i] = (struct source_id){ true, st.st_dev, st.st_ino };
	}
	const char *root = spec->root && spec->root->path ? spec->root->path : "/";
	for (size_t i = 0; i < nm; i++) {
		char path[PATH_MAX];
		struct stat st;
		if (snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") ? root : "", masked->v[i]) <
			    (int)sizeof(path) &&
		    lstat(path, &st) == 0)
			h->ids[spec->mounts_len + i] = (struct source_id){ true, st.st_dev, st.st_ino };
	}
	return 0;
}

/* The config of POLICY and ARGS on the host as it is now. */
static int spec_now(const cv_policy *policy, char *const *args, oci_spec **spec, cv_error_t *err)
{
	struct cv_sandbox_host host;
	if (cv_sandbox_host_init(&host, policy->network == CV_POLICY_NET_OUTBOUND, err) < 0)
		return -1;
	return cv_sandbox_spec(policy, &host, args, spec, err);
}

/* The config a run made now would have, and its sources, into *H. */
static int host_print_now(const cv_policy *policy, char *const *args, struct host_print *h, cv_error_t *err)
{
	cleanup_spec oci_spec *spec = NULL;
	if (spec_now(policy, args, &spec, err) < 0)
		return -1;
	return host_print_of(spec, h, err);
}

static bool host_print_same(const struct host_print *a, const struct host_print *b)
{
	if (a->len != b->len || memcmp(a->json, b->json, a->len) || a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->ids[i].exists != b->ids[i].exists || a->ids[i].dev != b->ids[i].dev ||
		    a->ids[i].ino != b->ids[i].ino)
			return false;
	return true;
}

/* cv_transient's await_start: the keeper's request for the prepared run.
 * The host may have changed while it waited (a credential file made, the
 * workspace replaced, a mount): then it is not the run the request would
 * get made now, and it fails with ESTALE (the request's fds left to the
 * caller, who makes the run anew). */
static int await_start(void *arg, char **args, size_t *args_len, int *stdin_fd, cv_error_t *err)
{
	struct run *R = arg;
	struct cv_sandbox_start st = { .stdin_fd = -1, .kill_fd = -1 };
	if (R->await(R->await_arg, &st, err) < 0)
		return -1;
	struct host_print now __attribute__((cleanup(host_print_free))) = { 0 };
	if (host_print_now(R->await_policy, R->await_args, &now, err) < 0 || !host_print_same(&R->print, &now)) {
		free(st.args);
		cv_closep(&st.stdin_fd);
		if (!*err)
			cv_error(err, ESTALE, "sandbox: the prepared run is out of date");
		return -1;
	}
	*args = st.args;
	*args_len = st.args_len;
	*stdin_fd = st.stdin_fd;
	R->kill_fd = st.kill_fd;
	R->timeout_ms = st.timeout_ms;
	return 0;
}

/* Once the program is gone: a signal still pending was meant for it, and
 * is dropped; later ones have their usual effect on cvisor do (a ^C while
 * the output still drains to a slow reader ends it). */
static void stop_signals(struct run *R)
{
	if (R->sigfd < 0)
		return;
	struct signalfd_siginfo si;
	while (read(R->sigfd, &si, sizeof(si)) == sizeof(si))
		;
	close(R->sigfd);
	R->sigfd = -1;
	(void)sigprocmask(SIG_SETMASK, &R->sigmask_saved, NULL);
}

static void run_release(struct run *R)
{
	stop_signals(R);
	for (int i = 0; i < NRELAYS; i++)
		cv_relay_join(&R->relay[i]);
	for (int fd = 0; fd < 3; fd++)
		if (R->t.stdio[fd] >= 0)
			close(R->t.stdio[fd]);
	cv_watcher_release(&R->watcher);
	if (R->raw)
		cv_console_restore(0, &R->termios);
	if (R->t.console_master >= 0)
		close(R->t.console_master);
	if (R->t.init_status >= 0)
		close(R->t.init_status);
	if (R->t.pidfd >= 0)
		close(R->t.pidfd);
	if (R->lockfd >= 0)
		close(R->lockfd);
	if (R->configfd >= 0)
		close(R->configfd);
	if (R->tmp_fd >= 0)
		close(R->tmp_fd);
	if (R->ws_fd >= 0)
		close(R->ws_fd);
	free(R->bundle);
	host_print_free(&R->print);
	cv_error_release(&R->watcher_err);
	cv_container_free(R->t.c);
	oci_spec_free(R->t.spec);
	oci_spec_free(R->built);
	/* Last, so that its exit (the kernel tears the namespaces down in it,
	 * ~0.4 ms) overlaps all of the above. Never left to whoever takes our
	 * orphans: a PID 1 that reaps late, or never, would keep it, and with
	 * it its pid and its session keyring. */
	if (R->init_exiting > 0)
		while (waitpid(R->init_exiting, NULL, 0) < 0 && errno == EINTR)
			;
}

/* The state root and the bundles beside it are the runtime's: a program
 * that could write there could plant what the supervisor and the watcher
 * read, remove or lock after the run, or forge a container's state for a
 * later command. Checked on the resolved paths, before anything is made. */
static int check_state_root(const struct cvisor_context *ctx, const char *bundles, const oci_spec *spec,
			    cv_error_t *err)
{
	cleanup_free char *root = NULL;
	if (cv_context_root(ctx, &root, err) < 0)
		return -1;
	const char *mine[] = { root, bundles };
	for (size_t k = 0; k < 2; k++) {
		/* a path that does not exist yet: its deepest existing parent */
		cleanup_free char *probe = strdup(mine[k]), *real = NULL;
		if (!probe)
			return cv_error(err, ENOMEM, "sandbox");
		while (!(real = realpath(probe, NULL)) && errno == ENOENT && strcmp(probe, "/") != 0) {
			char *slash = strrchr(probe, '/');
			if (slash == probe)
				slash[1] = '\0';
			else
				*slash = '\0';
		}
		const char *w = cv_sandbox_writable_holding(spec, real ? real : mine[k]);
		if (w)
			return cv_error(err, EINVAL,
					"--root `%s`: `%s` is inside `%s`, which the sandboxed program may write: "
					"use a state root outside the workspace and writable paths",
					root, mine[k], w);
	}
	return 0;
}

/* The container's bundle is the bundles directory: root.path is absolute
 * (the host's "/" or the policy's rootfs) and config.json a memfd, so a run
 * makes no file of its own there. */
static int make_bundle(struct run *R, const cv_policy *policy, char *const *args, cv_error_t *err)
{
	if (cv_sandbox_bundles_dir(R->ctx, &R->bundle, err) < 0)
		return -1;
	const char *dir = R->bundle;

	cleanup_spec oci_spec *spec = NULL;
	if (spec_now(policy, args, &spec, err) < 0 || check_state_root(R->ctx, dir, spec, err) < 0 ||
	    (R->await && host_print_of(spec, &R->print, err) < 0))
		return -1;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return cv_error_errno(err, "create `%s`", dir);
	/* the pid in the id is the byte of LIVE_FILE we hold (see cv_sandbox_gc) */
	snprintf(R->id, sizeof(R->id), "do-%d-%llx", (int)getpid(), (unsigned long long)cv_now_ms());
	R->lockfd = live_fd(dir);
	if (R->lockfd < 0 || live_lock(R->lockfd, getpid(), F_WRLCK, F_OFD_SETLKW) < 0)
		return cv_error_errno(err, "lock `%s/" LIVE_FILE "`", dir);
	if (R->tty >= 0) {
		struct winsize ws;
		spec->process->terminal = true;
		if (ioctl(R->tty, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
			spec->process->has_console_size = true;
			spec->process->console_height = ws.ws_row;
			spec->process->console_width = ws.ws_col;
		}
	}
	/* The runtime takes the spec as it is; config.json, the same in JSON,
	 * stays in a memfd while the run lasts (/proc/PID/fd of cvisor do),
	 * for whoever wants to see what runs: written by write_config. */
	R->configfd = memfd_create("config.json", MFD_CLOEXEC);
	if (R->configfd < 0)
		return cv_error_errno(err, "sandbox: memfd for config.json");
	snprintf(R->config_path, sizeof(R->config_path), "/proc/self/fd/%d", R->configfd);
	R->built = steal_pointer(&spec);
	return 0;
}

/* cv_transient's while_setup: config.json into its memfd, while the
 * container process goes on to execve. */
static void write_config(const oci_spec *spec, void *arg)
{
	struct run *R = arg;
	cleanup_error cv_error_t e = NULL;
	cleanup_free char *json = NULL;
	size_t len = 0;
	int r = oci_spec_emit(spec, false, &json, &len, &e);
	if (r == 0 && (r = cv_write_all(R->configfd, json, len)) < 0)
		cv_error(&e, -r, "write");
	if (r < 0)
		cv_warn("sandbox: config.json: %s", e->msg);
}

/* The pipes of ROUTE_PIPE: the program's ends in R->t.stdio (the runtime
 * takes them), ours in the relays, started once the program runs. MERGED:
 * stderr shares stdout's pipe. */
static int make_pipes(struct run *R, const cv_policy *p, bool merged, cv_error_t *err)
{
	for (int fd = 0; fd < 3; fd++) {
		int pp[2];
		if (R->route[fd] == ROUTE_PTY)
			R->t.stdio[fd] = CV_STDIO_PTY;
		if (R->route[fd] != ROUTE_PIPE)
			continue;
		if (fd == 2 && merged) {
			R->t.stdio[2] = fcntl(R->t.stdio[1], F_DUPFD_CLOEXEC, 3);
			if (R->t.stdio[2] < 0)
				return cv_error_errno(err, "sandbox: dup the stdout pipe");
			continue;
		}
		if (stdio_pipe(pp, err) < 0)
			return -1;
		struct cv_relay *r = &R->relay[RELAY_IN + fd];
		if (fd == 0) {
			/* the caller's file into the pipe, to its end */
			*r = (struct cv_relay){ .src = 0, .dst = pp[1], .own_dst = true };
			R->t.stdio[fd] = pp[0];
		} else {
			*r = (struct cv_relay){ .src = pp[0],
						.dst = fd,
						.own_src = true,
						.capped = p->max_output_bytes.set,
						.left = p->max_output_bytes.v };
			R->t.stdio[fd] = pp[1];
		}
	}
	return 0;
}

/* The program's stdout and stderr pipes get their relay's thread once
 * output comes (the supervisor's loop polls them); a pipe that ends
 * without a byte, or with bytes the loop left when the program exited, is
 * copied at the end, in this thread (cv_relay_finish): a thread's start and
 * end cost ~0.2 ms of a short run, and most write nothing to stderr. */
static bool relay_lazy(int i)
{
	return i == RELAY_OUT || i == RELAY_ERR;
}

/* Once the program runs: the relays, the caller's terminal in raw mode and
 * the signals to forward (blocked first: the relays' threads inherit that). */
static int start_stdio(struct run *R, const cv_policy *p, cv_error_t *err)
{
	sigset_t fwd;
	sigemptyset(&fwd);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&fwd, forwarded[i]);
	if (R->tty >= 0)
		sigaddset(&fwd, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &fwd, &R->sigmask_saved) < 0)
		return cv_error_errno(err, "sandbox: block signals");
	R->sigfd = signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK);
	if (R->sigfd < 0) {
		int e = errno;
		(void)sigprocmask(SIG_SETMASK, &R->sigmask_saved, NULL);
		return cv_error(err, e, "sandbox: signalfd");
	}
	if (R->tty >= 0) {
		int master = R->t.console_master;
		/* a resize since the spec took the size came before SIGWINCH
		 * was ours: take the size once more (later ones arrive) */
		cv_console_copy_size(R->tty, master);
		/* the output: to the caller's terminal, under the cap of stdout */
		R->relay[RELAY_PTY] = (struct cv_relay){ .src = master,
							 .dst = R->tty,
							 .drain_when_broken = true,
							 .capped = p->max_output_bytes.set,
							 .left = p->max_output_bytes.v };
		/* the keystrokes: copied by our loop, which must never block */
		int fl = fcntl(master, F_GETFL);
		if (fl < 0 || fcntl(master, F_SETFL, fl | O_NONBLOCK) < 0)
			return cv_error_errno(err, "sandbox: pty master non-blocking");
		/* only from the foreground: a background job that takes the
		 * terminal would be stopped (SIGTTOU), or take a shell's input */
		if (R->route[0] == ROUTE_PTY && tcgetpgrp(0) == getpgrp()) {
			if (cv_console_raw(0, &R->termios, err) < 0)
				return -1;
			R->raw = R->keys_open = true;
		}
	}
	for (int i = 0; i < NRELAYS; i++)
		if (R->relay[i].src >= 0 && !relay_lazy(i) && cv_relay_start(&R->relay[i], err) < 0)
			return -1;
	return 0;
}

/* A signal for cvisor do goes to the program (through its init); a change
 * of the caller's window size to the pty. */
static void on_signal(struct run *R)
{
	struct signalfd_siginfo si;
	while (read(R->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if ((int)si.ssi_signo == SIGWINCH)
			cv_console_copy_size(R->tty, R->t.console_master);
		else if (syscall(SYS_pidfd_send_signal, R->t.pidfd, (int)si.ssi_signo, NULL, 0) < 0 && errno != ESRCH)
			cv_warn("sandbox: forward signal %u: %s", si.ssi_signo, strerror(errno));
	}
}

/* The caller's keystrokes to the pty: read when none wait, written without
 * blocking (a program that reads nothing fills the pty's input queue). */
static void on_keys(struct run *R, short in_events, short out_events)
{
	if (in_events) {
		ssize_t n = read(0, R->keys, sizeof(R->keys));
		if (n > 0) {
			R->keys_len = (size_t)n;
			R->keys_off = 0;
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			R->keys_open = false; /* the terminal hung up */
		}
	}
	if (out_events && R->keys_off < R->keys_len) {
		ssize_t w = write(R->t.console_master, R->keys + R->keys_off, R->keys_len - R->keys_off);
		if (w > 0)
			R->keys_off += (size_t)w;
		else if (w < 0 && errno != EINTR && errno != EAGAIN)
			R->keys_off = R->keys_len; /* the pty is gone: dropped */
	}
	if (R->keys_off == R->keys_len)
		R->keys_off = R->keys_len = 0;
}

/* While the container process goes on to execve: the watcher, off the path
 * to the program. */
static void while_exec(struct cv_container *c, const oci_spec *spec, void *arg)
{
	struct run *R = arg;
	(void)spec;
	/* first: the init's root is gone once the program has exited, which
	 * a short one may do while the watcher starts */
	if (R->storage) {
		R->tmp_fd = open_storage(c->state->pid, "tmp");
		if (R->storage_ws)
			R->ws_fd = open_storage(c->state->pid, CV_SANDBOX_PRIVATE_WORKSPACE + 1);
	}
	if (!R->watch)
		return;
	int drop[2 * NRELAYS];
	size_t n = 0;
	for (int i = 0; i < NRELAYS; i++) {
		if (R->relay[i].own_src)
			drop[n++] = R->relay[i].src;
		if (R->relay[i].own_dst)
			drop[n++] = R->relay[i].dst;
	}
	cleanup_free char **argv = NULL;
	if (reap_argv(c, &argv, &R->watcher_err) == 0)
		(void)cv_watcher_start(&R->watcher, argv, drop, n, &R->watcher_err);
}

/* Non-root callers without a delegated cgroup: the cgroup limits cannot be
 * enforced. Refused with require_limits; otherwise a warning, the report's
 * not_enforced, and *eff without them. */
static int check_limits(const cv_policy *policy, cv_policy *eff, cv_sandbox_report *rep, cv_error_t *err)
{
	char why[512];
	if (geteuid() == 0 || !(policy->memory.set || policy->cpus_milli.set || policy->processes.set) ||
	    cgroup_available(why, sizeof(why)))
		return 0;
	char keys[64] = "";
	const char *names[] = { policy->memory.set ? "memory" : NULL, policy->cpus_milli.set ? "cpus" : NULL,
				policy->processes.set ? "processes" : NULL };
	for (size_t i = 0; i < 3; i++)
		if (names[i])
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s", keys[0] ? ", " : "",
				 names[i]);
	if (policy->require_limits.set && policy->require_limits.v)
		return cv_error(err, 0, "sandbox: %s cannot be enforced: %s; require_limits refuses to run without %s",
				keys, why, strchr(keys, ',') ? "them" : "it");
	cv_warn("sandbox: %s not enforced: %s", keys, why);
	rep->unenforced_memory = policy->memory.set;
	rep->unenforced_cpus = policy->cpus_milli.set;
	rep->unenforced_processes = policy->processes.set;
	eff->memory.set = eff->cpus_milli.set = eff->processes.set = false;
	return 0;
}

/* The program's wait status from the init's status eventfd (non-blocking):
 * false, STATUS untouched, when none was written. */
static bool read_init_status(int fd, int *status)
{
	uint64_t word = 0;
	return read(fd, &word, sizeof(word)) == sizeof(word) && cv_init_status_of_word(word, status);
}

/* cv_sandbox_do, or with AWAIT cv_sandbox_do_prepared. */
static int supervise(const struct cvisor_context *ctx, const cv_policy *policy, char *const *args, bool figures,
		     bool watched, int kill_fd, cv_sandbox_await_fn await, void *await_arg, cv_sandbox_report *rep,
		     cv_error_t *err)
{
	struct run R = { .ctx = ctx,
			 .lockfd = -1,
			 .configfd = -1,
			 .watcher = CV_WATCHER_INIT,
			 .tty = -1,
			 .sigfd = -1,
			 .tmp_fd = -1,
			 .ws_fd = -1,
			 .t = { .stdio = { -1, -1, -1 }, .pidfd = -1, .console_master = -1, .init_status = -1 },
			 .await = await,
			 .await_arg = await_arg,
			 .await_args = args,
			 .kill_fd = kill_fd,
			 .timeout_ms = policy->timeout_ms.set ? policy->timeout_ms.v : 0 };
	for (int i = 0; i < NRELAYS; i++)
		R.relay[i] = (struct cv_relay)CV_RELAY_INIT;
	int r = -1;
	memset(rep, 0, sizeof(*rep));

	cv_policy eff = *policy; /* shallow: only read below */
	if (check_limits(policy, &eff, rep, err) < 0)
		return -1;
	R.await_policy = &eff; /* what the config is made of */
	bool merged = false;
	if (await) {
		/* the request's stdin comes to the program with its start; its
		 * stdout and stderr are ours by then (the relays' ends) */
		R.route[0] = ROUTE_PASS;
		R.route[1] = R.route[2] = ROUTE_PIPE;
	} else {
		merged = plan_stdio(policy, R.route);
	}
	R.storage = figures;
	R.storage_ws = !policy->workspace;
	/* the storage is read through the init's root (while_exec): the
	 * program must not end, and the init with it, before that */
	R.t.start_after_while_exec = figures;
	/* its seccomp filter refuses every keyring call (sandbox.c) */
	R.t.keyring_as_caller = true;
	/* the cgroup is for the limits and the figures of the report: with
	 * neither, a run makes none, and needs no watcher */
	bool cgroup = figures || eff.memory.set || eff.cpus_milli.set || eff.processes.set;
	R.t.no_cgroup = !cgroup;
	R.watch = cgroup && !watched;
	/* the pty's output goes to the caller's terminal */
	for (int i = 0, order[3] = { 1, 2, 0 }; i < 3 && R.tty < 0; i++)
		if (R.route[order[i]] == ROUTE_PTY)
			R.tty = order[i];
	if (make_bundle(&R, &eff, args, err) < 0 || make_pipes(&R, policy, merged, err) < 0)
		goto out;

	/* orphans of hooks come to us, see reap_orphans() */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		cv_warn("sandbox: PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	struct cvisor_create_options o = { .struct_size = sizeof(o), .bundle = R.bundle, .config_path = R.config_path };
	if (await) {
		R.t.await_start = await_start;
		R.t.await_arg = &R;
	}
	R.t.while_setup = write_config;
	R.t.while_setup_arg = &R;
	/* created and started at once, with no state written: the program
	 * runs when this returns */
	r = cv_run_transient(ctx, R.id, &o, steal_pointer(&R.built), while_exec, &R, &R.t, err);
	uint64_t start = cv_now_ms();
	if (r < 0)
		goto out;
	r = -1;
	pid_t pid = R.t.c->state->pid;
	if (R.watch && R.watcher.pid < 0) {
		cv_error_move(err, &R.watcher_err);
		goto out;
	}
	if (start_stdio(&R, policy, err) < 0)
		goto out;
	if (!watched) {
		/* the gc, here while the program runs: what runs with a
		 * cgroup left when killed with their watchers */
		unsigned removed = 0;
		cleanup_error cv_error_t e = NULL;
		if (cv_sandbox_gc(ctx, &removed, &e) < 0)
			cv_warn("sandbox gc: %s", e->msg);
	}

	kill_fd = R.kill_fd;
	uint64_t deadline = R.timeout_ms ? start + R.timeout_ms : 0;
	int status = 0;
	struct rusage ru = { 0 };
	bool killed = false;
	/* The init writes the program's status once nothing else of the
	 * sandbox runs (cv_init_end_namespace) and it has left the cgroup
	 * (init_leaves); its own exit, which tears down the namespaces, comes
	 * ~0.4 ms later. A run that needs nothing of that exit (no report of
	 * the cgroup's figures, no CPU time from its rusage) is over with the
	 * status, and reaps the init last (run_release). Should the cgroup be
	 * busy after all, its removal below kills and waits. */
	bool status_ends = R.t.init_status >= 0 && (!cgroup || R.t.init_leaves) && !figures && !policy->cpu_seconds.set;
	bool have_status = false, waited = false;
	/* a lazy relay whose pipe ended without a byte: left to the end */
	bool relay_idle[NRELAYS] = { false };
	for (bool exited = false; !exited;) {
		bool keys_waiting = R.keys_off < R.keys_len;
		struct pollfd pf[6 + NRELAYS] = { { R.t.pidfd, POLLIN, 0 },
						  { R.sigfd, POLLIN, 0 },
						  { R.keys_open && !keys_waiting ? 0 : -1, POLLIN, 0 },
						  { keys_waiting ? R.t.console_master : -1, POLLOUT, 0 },
						  { killed ? -1 : kill_fd, POLLIN, 0 },
						  { status_ends ? R.t.init_status : -1, POLLIN, 0 } };
		for (int i = 0; i < NRELAYS; i++) {
			const struct cv_relay *rl = &R.relay[i];
			bool pending = relay_lazy(i) && rl->src >= 0 && !rl->started && !relay_idle[i];
			pf[6 + i] = (struct pollfd){ pending ? rl->src : -1, POLLIN, 0 };
		}
		int wait_ms = -1;
		if (deadline && !rep->timed_out) {
			uint64_t now = cv_now_ms();
			wait_ms = now >= deadline ? 0 : (int)(deadline - now < 60000 ? deadline - now : 60000);
		}
		int n = poll(pf, 6 + NRELAYS, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cv_error_errno(err, "sandbox: poll");
			goto out;
		}
		/* whatever else happened: the output goes its own way (relay.h),
		 * nothing here waits for it */
		if (deadline && !rep->timed_out && cv_now_ms() >= deadline) {
			/* the whole sandbox, not just its init: the cgroup, then
			 * the init, whose death ends the pid namespace */
			rep->timed_out = true;
			cleanup_error cv_error_t e = NULL;
			if (cv_container_kill_wait(R.t.c, &e) < 0)
				cv_warn("sandbox: kill: %s", e->msg);
		}
		if (pf[4].revents && !killed) {
			/* asked to, or whoever holds the other end died */
			killed = true;
			rep->cancelled = true;
			cleanup_error cv_error_t e = NULL;
			if (cv_container_kill_wait(R.t.c, &e) < 0)
				cv_warn("sandbox: kill: %s", e->msg);
		}
		for (int i = 0; i < NRELAYS; i++) {
			short ev = pf[6 + i].revents;
			if (ev & POLLIN) {
				if (cv_relay_start(&R.relay[i], err) < 0)
					goto out;
			} else if (ev) {
				relay_idle[i] = true; /* its writers are gone */
			}
		}
		if (pf[1].revents)
			on_signal(&R);
		if (pf[2].revents || pf[3].revents)
			on_keys(&R, pf[2].revents, pf[3].revents);
		if (pf[5].revents && !pf[0].revents && !rep->timed_out && !killed) {
			have_status = read_init_status(R.t.init_status, &status);
			/* an eventfd wakes us only with a word; an init that
			 * dies without one shows on its pidfd */
			status_ends = false;
			exited = have_status;
		}
		if (!exited && (pf[0].revents || rep->timed_out || killed)) {
			pid_t w;
			do
				w = wait4(pid, &status, 0, &ru);
			while (w < 0 && errno == EINTR);
			if (w < 0) {
				cv_error_errno(err, "sandbox: wait for the program");
				goto out;
			}
			exited = waited = true;
		}
	}
	rep->wall_ms = cv_now_ms() - start;
	if (!waited)
		R.init_exiting = pid;
	/* the init's exit status is the program's, but only its report tells
	 * a signal from an exit with 128+N; none when it was killed itself */
	if (!have_status && R.t.init_status >= 0)
		(void)read_init_status(R.t.init_status, &status);
	/* No process of the sandbox is left (its pid namespace ended with the
	 * program): the watcher exits now, in parallel with the teardown
	 * below, and is reaped at the end. */
	cv_watcher_done(&R.watcher);
	if (WIFEXITED(status)) {
		rep->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		rep->signal = WTERMSIG(status);
		rep->exit_code = 128 + rep->signal;
	}
	stop_signals(&R);
	/* the relays end with the program's last output (the consumers may
	 * take their time); its pid namespace is gone with it, and with it
	 * every writer of the pipes left to now */
	for (int i = 0; i < NRELAYS; i++)
		cv_relay_finish(&R.relay[i]);
	rep->stdout_truncated = R.relay[RELAY_OUT].truncated;
	rep->stderr_truncated = R.relay[RELAY_ERR].truncated || (merged && rep->stdout_truncated);
	if (R.route[2] == ROUTE_PTY && R.route[1] != ROUTE_PTY)
		rep->stderr_truncated |= R.relay[RELAY_PTY].truncated;
	else
		rep->stdout_truncated |= R.relay[RELAY_PTY].truncated;
	if (figures) {
		read_cgroup_figures(&R.t.c->state->cgroup_paths, rep);
		rep->tmp_used_known = storage_used(R.tmp_fd, &rep->tmp_used);
		rep->workspace_used_known = storage_used(R.ws_fd, &rep->workspace_used);
	}
	if (!rep->cpu_known && waited) {
		rep->cpu_known = true;
		rep->cpu_ms = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
			      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	}
	/* Nothing of the sandbox is left: its init was reaped, and the kernel
	 * ends every other process of a pid namespace before its init's exit
	 * shows. Only a process put into the cgroup from outside could stay:
	 * then kill it and try again. */
	r = cv_container_destroy(R.t.c, R.t.spec, err);
	if (r < 0) {
		cleanup_error cv_error_t e = NULL;
		if (cv_container_kill_wait(R.t.c, &e) < 0)
			cv_warn("sandbox: %s", e->msg);
		cv_error_release(err);
		r = cv_container_destroy(R.t.c, R.t.spec, err);
	}
	cv_container_free(steal_pointer(&R.t.c));
	if (r < 0)
		goto out;
	r = -1;
	reap_orphans(R.watcher.pid, waited ? 0 : pid);
	/* a shell reports its child's death by signal n as exit status 128+n:
	 * taken as the signal when the matching limit was set */
	if (policy->cpu_seconds.set && rep->signal == 0 && rep->exit_code == 128 + SIGXCPU)
		rep->limit_cpu_seconds = true;
	if (policy->max_file_size.set && rep->signal == 0 && rep->exit_code == 128 + SIGXFSZ)
		rep->limit_max_file_size = true;
	if (rep->signal == SIGXCPU ||
	    (rep->signal == SIGKILL && policy->cpu_seconds.set && rep->cpu_ms + 50 >= policy->cpu_seconds.v * 1000))
		rep->limit_cpu_seconds = true;
	if (rep->signal == SIGXFSZ)
		rep->limit_max_file_size = true;
	r = 0;
out:
	if (R.t.c) {
		/* the program's death ends the relays too (run_release joins) */
		destroy_run(R.t.c, R.t.spec);
		reap_orphans(R.watcher.pid, 0);
	}
	run_release(&R);
	return r;
}

/* ---- --check ---- */

static void check_controller(FILE *out, const char *key, const char *controller, const oci_resources *res)
{
	struct cv_cgroup_config cfg = { .resources = res };
	char id[64];
	snprintf(id, sizeof(id), "cvisor-check-%d", (int)getpid());
	cfg.id = id;
	struct cv_cgroup *cg = NULL;
	cleanup_error cv_error_t e = NULL;
	if (cv_cgroup_create(&cfg, &cg, &e) < 0) {
		bool denied = e->errnum == EACCES || e->errnum == EPERM || e->errnum == EROFS;
		fprintf(out, "%-17s not enforced: %s%s%s\n", key, denied ? "no delegated cgroup (" : "", e->msg,
			denied ? ")" : "");
		return;
	}
	oci_kv_list paths = { 0 };
	const char *how = "not enforced: no cgroup for it";
	if (cv_cgroup_save(cg, &paths, &e) == 0) {
		bool v2 = false;
		const char *d = cg_dir(&paths, controller, &v2);
		if (d)
			how = v2 ? "cgroup v2" : "cgroup v1";
	}
	fprintf(out, "%-17s %s (%s controller)\n", key, how, controller);
	for (size_t i = 0; i < paths.len; i++) {
		free(paths.v[i].key);
		free(paths.v[i].value);
	}
	free(paths.v);
	cv_error_release(&e);
	if (cv_cgroup_destroy(cg, &e) < 0)
		cv_warn("check: %s", e->msg);
	cv_cgroup_free(cg);
}

static void check_rlimit(FILE *out, const char *key, const char *name, int res)
{
	struct rlimit rl;
	if (getrlimit(res, &rl) < 0) {
		fprintf(out, "%-17s not enforced: getrlimit %s: %s\n", key, name, strerror(errno));
		return;
	}
	if (rl.rlim_max == RLIM_INFINITY)
		fprintf(out, "%-17s rlimit %s (any value)\n", key, name);
	else
		fprintf(out, "%-17s rlimit %s (at most %llu: this process's hard limit)\n", key, name,
			(unsigned long long)rl.rlim_max);
}

int cv_sandbox_check(const struct cvisor_context *ctx, FILE *out, cv_error_t *err)
{
	(void)ctx;
	enum cv_cgroup_layout layout;
	if (cv_cgroup_layout(&layout, err) < 0)
		return -1;
	fprintf(out, "cgroup layout:    %s\n",
		layout == CV_CGROUP_UNIFIED  ? "v2 (unified)"
		: layout == CV_CGROUP_HYBRID ? "hybrid (v1 controllers + v2)"
					     : "v1 (legacy)");
	oci_memory mem = { .limit = { .set = true, .v = 64 << 20 } };
	oci_cpu cpu = { .quota = { .set = true, .v = 50000 }, .period = { .set = true, .v = 100000 } };
	oci_resources rm = { .memory = &mem }, rc = { .cpu = &cpu },
		      rp = { .has_pids = true, .pids_limit = { .set = true, .v = 64 } };
	check_controller(out, "memory", "memory", &rm);
	check_controller(out, "cpus", "cpu", &rc);
	check_controller(out, "processes", "pids", &rp);
	check_rlimit(out, "cpu_seconds", "RLIMIT_CPU", RLIMIT_CPU);
	check_rlimit(out, "max_file_size", "RLIMIT_FSIZE", RLIMIT_FSIZE);
	check_rlimit(out, "open_files", "RLIMIT_NOFILE", RLIMIT_NOFILE);
	fprintf(out, "%-17s supervisor (SIGKILL to the cgroup and the pid namespace)\n", "timeout");
	fprintf(out, "%-17s supervisor (stdout and stderr copied through pipes)\n", "max_output_bytes");
	struct cv_sandbox_host host;
	cleanup_error cv_error_t e = NULL;
	if (cv_sandbox_host_init(&host, true, &e) < 0)
		fprintf(out, "%-17s \"outbound\" unknown: %s\n", "network", e->msg);
	else if (!host.slirp4netns)
		fprintf(out, "%-17s \"none\" and \"host\"; \"outbound\" unavailable: slirp4netns is not in PATH\n",
			"network");
	else if (access(host.slirp_hook ? host.slirp_hook : CV_SANDBOX_SLIRP_HOOK, X_OK) < 0)
		fprintf(out, "%-17s \"none\" and \"host\"; \"outbound\" unavailable: hook `%s`: %s\n", "network",
			host.slirp_hook ? host.slirp_hook : CV_SANDBOX_SLIRP_HOOK, strerror(errno));
	else
		fprintf(out, "%-17s \"none\", \"host\", \"outbound\" (%s through `%s`)\n", "network", host.slirp4netns,
			host.slirp_hook ? host.slirp_hook : CV_SANDBOX_SLIRP_HOOK);
	return 0;
}

int cv_sandbox_do(const struct cvisor_context *ctx, const cv_policy *policy, char *const *args, bool figures,
		  bool watched, int kill_fd, cv_sandbox_report *rep, cv_error_t *err)
{
	return supervise(ctx, policy, args, figures, watched, kill_fd, NULL, NULL, rep, err);
}

int cv_sandbox_do_prepared(const struct cvisor_context *ctx, const cv_policy *policy, bool figures,
			   cv_sandbox_await_fn await, void *arg, cv_sandbox_report *rep, cv_error_t *err)
{
	/* what the config names until START brings the program's own */
	char *const placeholder[] = { (char *)"true", NULL };
	return supervise(ctx, policy, placeholder, figures, true, -1, await, arg, rep, err);
}
