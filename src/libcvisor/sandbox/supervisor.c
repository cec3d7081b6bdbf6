/* The supervisor of `cvisor do` (see supervisor.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroups/cgroups.h"
#include "cleanup.h"
#include "clock.h"
#include "io.h"
#include "lifecycle/create.h"
#include "log.h"
#include "oci/spec.h"
#include "sandbox/sandbox.h"
#include "lifecycle/state-store.h"
#include "lifecycle/status.h"
#include "sandbox/supervisor.h"

#define DONE_BYTE 'd'
#define OUTPUT_CHUNK 65536

/* <state root>-sandbox: beside the state root, not in it (every directory
 * there is taken for a container). */
static int bundles_dir(const struct cvisor_context *ctx, char **out, cv_error_t *err)
{
	cleanup_free char *root = NULL;
	if (cv_context_root(ctx, &root, err) < 0)
		return -1;
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (asprintf(out, "%.*s-sandbox", (int)n, root) < 0)
		return cv_error(err, ENOMEM, "sandbox");
	return 0;
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
int cv_sandbox_gc(const struct cvisor_context *ctx, unsigned *removed, cv_error_t *err)
{
	cleanup_free char *dir = NULL;
	if (bundles_dir(ctx, &dir, err) < 0)
		return -1;
	*removed = 0;
	/* no lock file (no run of this --root yet): the pids alone tell */
	cleanup_close int lfd = live_fd(dir);
	if (lfd < 0 && errno != ENOENT)
		return cv_error_errno(err, "open `%s/" LIVE_FILE "`", dir);
	return cv_cgroup_remove_stale(CV_SANDBOX_CGROUP_CONTROLLERS, run_is_dead, &lfd, removed, err);
}

/* ---- the watcher ---- */

/* Forked once the program runs (off the path to it); returns in the parent
 * with *wfd the write end of a pipe. The watcher first runs the gc, then
 * waits: if this process dies, its container process dies too
 * (PR_SET_PDEATHSIG) and the watcher, seeing EOF instead of DONE_BYTE,
 * removes the cgroup. */
static int start_watcher(const struct cvisor_context *ctx, struct cv_container *c, const oci_spec *spec, int *wfd,
			 pid_t *pid, cv_error_t *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return cv_error_errno(err, "sandbox: pipe");
	pid_t w = fork();
	if (w < 0) {
		close(p[0]);
		close(p[1]);
		return cv_error_errno(err, "sandbox: fork the watcher");
	}
	if (w == 0) {
		close(p[1]);
		/* not in the terminal's process group: a ^C aimed at the
		 * program must not take the cleanup down with it */
		(void)setpgid(0, 0);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		/* it may outlive us by its gc: not holding the caller's stdin and
		 * stdout, a reader of them sees the end when we end */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			(void)dup2(null, STDIN_FILENO);
			(void)dup2(null, STDOUT_FILENO);
			close(null);
		}
		/* first the leftovers of runs whose supervisor and watcher both
		 * died: here, in parallel with the program */
		unsigned removed = 0;
		cleanup_error cv_error_t e = NULL;
		if (cv_sandbox_gc(ctx, &removed, &e) < 0)
			cv_warn("sandbox gc: %s", e->msg);
		char b = 0;
		ssize_t n;
		do
			n = read(p[0], &b, 1);
		while (n < 0 && errno == EINTR);
		if (n == 1 && b == DONE_BYTE)
			_exit(0);
		destroy_run(c, spec);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	*pid = w;
	return 0;
}

/* Sends DONE_BYTE; the watcher then exits on its own. */
static void release_watcher(int *wfd)
{
	char b = DONE_BYTE;
	if (*wfd < 0)
		return;
	if (write(*wfd, &b, 1) != 1)
		cv_warn("sandbox: tell the watcher we are done: %s", strerror(errno));
	close(*wfd);
	*wfd = -1;
}

/* Sends DONE_BYTE and reaps the watcher if it is gone already. Otherwise
 * it is still in its gc, and exits right after it on its own (as the child
 * subreaper's orphan it then goes to init): waiting for the gc would put it
 * on the path of a short program again. */
static void stop_watcher(int wfd, pid_t pid)
{
	release_watcher(&wfd);
	if (pid > 0)
		while (waitpid(pid, NULL, WNOHANG) < 0 && errno == EINTR)
			;
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
}

/* ---- output ---- */

struct stream {
	int in;         /* our end of the pipe, -1 when closed */
	int out;        /* where it goes: our own stdout/stderr */
	uint64_t left;  /* bytes still allowed */
	bool truncated;
};

/* Copies what is available; returns false at EOF. */
static bool pump(struct stream *s)
{
	char buf[OUTPUT_CHUNK];
	ssize_t n = read(s->in, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	size_t keep = (uint64_t)n < s->left ? (size_t)n : (size_t)s->left;
	if (keep < (size_t)n)
		s->truncated = true;
	s->left -= keep;
	if (cv_write_all(s->out, buf, keep) < 0)
		s->left = 0; /* the reader went away: keep draining, drop the rest */
	return true;
}

/* ---- hook leftovers ---- */

/* A hook's background processes (network "outbound": the monitor that owns
 * slirp4netns) end with the container; as the child subreaper of this run
 * they are re-parented to us, so we wait for them here and nothing of the
 * run outlives `cvisor do`. Bounded: a stuck one is reported and left. */
static void reap_orphans(pid_t watcher)
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
		if (pid <= 0 || pid == watcher)
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

/* ---- one run ---- */

struct run {
	const struct cvisor_context *ctx;
	char id[64];
	char *bundle; /* the bundles directory, every run's bundle */
	int lockfd;   /* LIVE_FILE, our byte locked */
	int configfd; /* memfd holding config.json */
	char config_path[64];
	int watch_fd;
	pid_t watcher;
	int saved[3]; /* our stdout/stderr while the container's are pipes */
	struct stream streams[2];
	struct cv_container *c; /* once it runs, until destroyed */
	oci_spec *spec;         /* its config, from the runtime */
	oci_spec *built;        /* cv_sandbox_spec's, until the runtime takes it */
	cv_error_t watcher_err; /* start_watcher's, when watcher is -1 */
};

static void run_release(struct run *R)
{
	for (int i = 0; i < 2; i++)
		if (R->streams[i].in >= 0)
			close(R->streams[i].in);
	stop_watcher(R->watch_fd, R->watcher);
	if (R->lockfd >= 0)
		close(R->lockfd);
	if (R->configfd >= 0)
		close(R->configfd);
	free(R->bundle);
	cv_error_release(&R->watcher_err);
	cv_container_free(R->c);
	oci_spec_free(R->spec);
	oci_spec_free(R->built);
}

/* The container's bundle is the bundles directory: root.path is absolute
 * (the host's "/" or the policy's rootfs) and config.json a memfd, so a run
 * makes no file of its own there. */
static int make_bundle(struct run *R, const cv_policy *policy, char *const *args, cv_error_t *err)
{
	if (bundles_dir(R->ctx, &R->bundle, err) < 0)
		return -1;
	const char *dir = R->bundle;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return cv_error_errno(err, "create `%s`", dir);
	/* the pid in the id is the byte of LIVE_FILE we hold (see cv_sandbox_gc) */
	snprintf(R->id, sizeof(R->id), "do-%d-%llx", (int)getpid(), (unsigned long long)cv_now_ms());
	R->lockfd = live_fd(dir);
	if (R->lockfd < 0 || live_lock(R->lockfd, getpid(), F_WRLCK, F_OFD_SETLKW) < 0)
		return cv_error_errno(err, "lock `%s/" LIVE_FILE "`", dir);

	struct cv_sandbox_host host;
	cleanup_spec oci_spec *spec = NULL;
	cleanup_free char *json = NULL;
	size_t len = 0;
	if (cv_sandbox_host_init(&host, policy->network == CV_POLICY_NET_OUTBOUND, err) < 0 ||
	    cv_sandbox_spec(policy, &host, args, &spec, err) < 0)
		return -1;
	if (oci_spec_emit(spec, false, &json, &len, err) < 0)
		return -1;
	/* The runtime takes the spec as it is; config.json, the same in JSON,
	 * stays in a memfd while the run lasts (/proc/PID/fd of cvisor do),
	 * for whoever wants to see what runs. */
	R->configfd = memfd_create("config.json", MFD_CLOEXEC);
	if (R->configfd < 0)
		return cv_error_errno(err, "sandbox: memfd for config.json");
	int r = cv_write_all(R->configfd, json, len);
	if (r < 0)
		return cv_error(err, -r, "sandbox: write config.json");
	snprintf(R->config_path, sizeof(R->config_path), "/proc/self/fd/%d", R->configfd);
	R->built = steal_pointer(&spec);
	return 0;
}

/* stdout/stderr through pipes while the container is created (it inherits
 * fds 1 and 2), then ours again. */
static int redirect_output(struct run *R, const cv_policy *p, int child_ends[2], cv_error_t *err)
{
	for (int i = 0; i < 2; i++) {
		int fds[2];
		if (pipe2(fds, O_CLOEXEC) < 0)
			return cv_error_errno(err, "sandbox: pipe");
		R->streams[i].in = fds[0];
		child_ends[i] = fds[1];
		R->streams[i].left = p->max_output_bytes.v;
		R->saved[i + 1] = fcntl(i + 1, F_DUPFD_CLOEXEC, 3);
		if (R->saved[i + 1] < 0)
			return cv_error_errno(err, "sandbox: dup fd %d", i + 1);
		R->streams[i].out = R->saved[i + 1];
	}
	return 0;
}

static int swap_output(int a, int b, cv_error_t *err)
{
	if (dup2(a, 1) < 0 || dup2(b, 2) < 0)
		return cv_error_errno(err, "sandbox: dup2");
	return 0;
}

/* While the container process goes on to execve: the watcher (which also
 * runs the gc of runs whose supervisor and watcher both died), off the path
 * to the program. */
static void while_exec(struct cv_container *c, const oci_spec *spec, void *arg)
{
	struct run *R = arg;
	if (start_watcher(R->ctx, c, spec, &R->watch_fd, &R->watcher, &R->watcher_err) < 0)
		R->watcher = -1;
}

int cv_sandbox_do(const struct cvisor_context *ctx, const cv_policy *policy, char *const *args, bool figures,
		  cv_sandbox_report *rep, cv_error_t *err)
{
	struct run R = { .ctx = ctx, .lockfd = -1, .configfd = -1, .watch_fd = -1, .watcher = -1, .saved = { -1, -1, -1 },
			 .streams = { { .in = -1 }, { .in = -1 } } };
	int r = -1;
	int child_ends[2] = { -1, -1 };
	cleanup_close int pidfd = -1;
	memset(rep, 0, sizeof(*rep));

	/* a non-root caller without a delegated cgroup runs without the
	 * cgroup limits, and is told so (stderr and the report) */
	cv_policy eff = *policy; /* shallow: only read below */
	if (geteuid() != 0 && (policy->memory.set || policy->cpus_milli.set || policy->processes.set)) {
		char why[512];
		if (!cgroup_available(why, sizeof(why))) {
			rep->unenforced_memory = policy->memory.set;
			rep->unenforced_cpus = policy->cpus_milli.set;
			rep->unenforced_processes = policy->processes.set;
			char keys[64] = "";
			const char *names[] = { policy->memory.set ? "memory" : NULL,
						policy->cpus_milli.set ? "cpus" : NULL,
						policy->processes.set ? "processes" : NULL };
			for (size_t i = 0; i < 3; i++)
				if (names[i])
					snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
						 keys[0] ? ", " : "", names[i]);
			cv_warn("sandbox: %s not enforced: %s", keys, why);
			eff.memory.set = eff.cpus_milli.set = eff.processes.set = false;
		}
	}
	if (make_bundle(&R, &eff, args, err) < 0)
		goto out;
	bool capped = policy->max_output_bytes.set;
	if (capped && redirect_output(&R, policy, child_ends, err) < 0)
		goto out;

	/* orphans of hooks come to us, see reap_orphans() */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		cv_warn("sandbox: PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	struct cvisor_create_options o = { .struct_size = sizeof(o), .bundle = R.bundle,
					   .config_path = R.config_path };
	if (capped && swap_output(child_ends[0], child_ends[1], err) < 0)
		goto out;
	/* created and started at once, with no state written: the program
	 * runs when this returns */
	r = cv_run_transient(ctx, R.id, &o, steal_pointer(&R.built), while_exec, &R, &R.c, &R.spec, &pidfd, err);
	uint64_t start = cv_now_ms();
	if (capped) {
		cleanup_error cv_error_t e2 = NULL;
		if (swap_output(R.saved[1], R.saved[2], &e2) < 0 && r == 0)
			cv_error_move(err, &e2), r = -1;
		close(child_ends[0]);
		close(child_ends[1]);
	}
	if (r < 0)
		goto out;
	r = -1;
	pid_t pid = R.c->state->pid;
	if (R.watcher < 0) {
		cv_error_move(err, &R.watcher_err);
		goto out;
	}

	uint64_t deadline = policy->timeout_ms.set ? start + policy->timeout_ms.v : 0;
	bool exited = false;
	int status = 0;
	struct rusage ru;
	while (!exited || R.streams[0].in >= 0 || R.streams[1].in >= 0) {
		struct pollfd pf[3] = { { exited ? -1 : pidfd, POLLIN, 0 },
					{ R.streams[0].in, POLLIN, 0 },
					{ R.streams[1].in, POLLIN, 0 } };
		int wait_ms = -1;
		if (deadline && !exited) {
			uint64_t now = cv_now_ms();
			wait_ms = now >= deadline ? 0 : (int)(deadline - now < 60000 ? deadline - now : 60000);
		} else if (exited) {
			/* the pid namespace is gone: the pipes end at once; a
			 * bound all the same */
			wait_ms = 2000;
		}
		int n = poll(pf, 3, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cv_error_errno(err, "sandbox: poll");
			goto out;
		}
		if (n == 0 && exited)
			break;
		if (n == 0 && deadline && !exited && cv_now_ms() >= deadline) {
			/* the whole sandbox, not just its init: the cgroup, then
			 * the init, whose death ends the pid namespace */
			rep->timed_out = true;
			cleanup_error cv_error_t e = NULL;
			if (cv_container_kill_wait(R.c, &e) < 0)
				cv_warn("sandbox: kill: %s", e->msg);
		}
		for (int i = 0; i < 2; i++)
			if (pf[i + 1].revents && !pump(&R.streams[i])) {
				close(R.streams[i].in);
				R.streams[i].in = -1;
			}
		if (!exited && (pf[0].revents || rep->timed_out)) {
			pid_t w;
			do
				w = wait4(pid, &status, 0, &ru);
			while (w < 0 && errno == EINTR);
			if (w < 0) {
				cv_error_errno(err, "sandbox: wait for the program");
				goto out;
			}
			exited = true;
		}
	}
	rep->wall_ms = cv_now_ms() - start;
	/* No process of the sandbox is left (its pid namespace ended with the
	 * program): let the watcher exit now, in parallel with the teardown
	 * below, and reap it at the end. */
	release_watcher(&R.watch_fd);
	if (WIFEXITED(status)) {
		rep->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		rep->signal = WTERMSIG(status);
		rep->exit_code = 128 + rep->signal;
	}
	rep->stdout_truncated = R.streams[0].truncated;
	rep->stderr_truncated = R.streams[1].truncated;
	if (figures)
		read_cgroup_figures(&R.c->state->cgroup_paths, rep);
	if (!rep->cpu_known) {
		rep->cpu_known = true;
		rep->cpu_ms = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
			      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	}
	/* Nothing of the sandbox is left: its init was reaped, and the kernel
	 * ends every other process of a pid namespace before its init's exit
	 * shows. Only a process put into the cgroup from outside could stay:
	 * then kill it and try again. */
	r = cv_container_destroy(R.c, R.spec, err);
	if (r < 0) {
		cleanup_error cv_error_t e = NULL;
		if (cv_container_kill_wait(R.c, &e) < 0)
			cv_warn("sandbox: %s", e->msg);
		cv_error_release(err);
		r = cv_container_destroy(R.c, R.spec, err);
	}
	cv_container_free(steal_pointer(&R.c));
	if (r < 0)
		goto out;
	r = -1;
	reap_orphans(R.watcher);
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
	if (R.c) {
		destroy_run(R.c, R.spec);
		reap_orphans(R.watcher);
	}
	for (int i = 1; i < 3; i++)
		if (R.saved[i] >= 0)
			close(R.saved[i]);
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
		layout == CV_CGROUP_UNIFIED ? "v2 (unified)" : layout == CV_CGROUP_HYBRID ? "hybrid (v1 controllers + v2)"
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
		fprintf(out, "%-17s \"none\", \"host\", \"outbound\" (%s through `%s`)\n", "network",
			host.slirp4netns, host.slirp_hook ? host.slirp_hook : CV_SANDBOX_SLIRP_HOOK);
	return 0;
}
