/* The helper (see helper.h and the top of cvisor.h).
 *
 * Spawning: the helper must be nobody's business in the calling program:
 * no SIGCHLD for it, nothing a waitpid(-1) of the caller could reap, no
 * child of the caller's. A child that executes a program signals its parent
 * with SIGCHLD when it ends, whatever exit signal it was cloned with, so the
 * helper is a grandchild: a vfork-style clone (CLONE_VM | CLONE_VFORK, as
 * posix_spawn does; exit signal 0, so it never signals us) clones the
 * helper the same way and exits once the helper runs, leaving it to init
 * (or to the caller's subreaper, if the caller made itself one). The
 * middle child shares our fd table (CLONE_FILES), so the helper's pidfd
 * lands there; through it the library sees the helper end (a pidfd polls
 * readable when its process exits, child or not). Between clone and execve
 * the helper resets every signal disposition to the default and unblocks
 * every signal (the caller's SIG_IGN of SIGPIPE, say, must not reach a
 * container), makes the preserve_fds inheritable and closes every other fd
 * but stdio and the report socket.
 *
 * Reporting: the helper's main finds the report socket's number in
 * _CVISOR_REPORT_FD (fd 3 + preserve_fds, just past what a container may
 * inherit), takes the variable out of its environment and marks the fd
 * close-on-exec. Over it go, in the sync protocol's messages (a
 * SOCK_SEQPACKET socketpair, process/sync.h): READY first (the protocol's
 * version), every log line (LOG, errnum = level), the error the command
 * fails with (ERROR: errno and message, exactly as the in-process call sets
 * them), for run and exec a pidfd of the container's process once it runs
 * (PID, for cancellation), and last its exit status (EXIT). The container's
 * process inherits the fd until its execve, so the library never waits for
 * EOF: it reads until the helper's pidfd says it ended, then takes what is
 * queued. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "lifecycle/create.h"
#include "lifecycle/exe-guard.h"
#include "lifecycle/helper.h"
#include "log.h"
#include "process/sync.h"

#define REPORT_ENV "_CVISOR_REPORT_FD"
#define PROTOCOL_VERSION 1
#define SPAWN_STACK (64 * 1024)

extern char **environ;

/* ---- the library's side ---- */

bool cv_helper_needed(void)
{
	return !cv_exe_guard_armed();
}

static const char *helper_path(const struct cvisor_context *ctx)
{
	const char *env;
	if (ctx->helper_path && *ctx->helper_path)
		return ctx->helper_path;
	if ((env = secure_getenv("CVISOR_HELPER")) && *env)
		return env;
	return CVISOR_BINDIR "/cvisor";
}

/* The helper's command line, NULL-terminated; `oom` once any part failed. */
struct args {
	char **v;
	size_t n, cap;
	bool oom;
};

static void args_free(struct args *a)
{
	cv_strv_freep(&a->v);
}

__attribute__((format(printf, 2, 3))) static void add(struct args *a, const char *fmt, ...)
{
	char *s;
	va_list ap;
	if (a->oom)
		return;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		char **v = realloc(a->v, cap * sizeof(*v));
		if (!v) {
			a->oom = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		a->oom = true;
		return;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* argv[0] and the global flags. Values go after `=`: a value starting with
 * a dash can never be taken for a flag, and the exe-guard's scan for the
 * verb (exe-guard.h) needs no value skipped. */
static int global_args(struct args *a, const char *path, const struct cvisor_context *ctx, cv_error_t *err)
{
	cleanup_free char *root = NULL;
	if (cv_context_root(ctx, &root, err) < 0)
		return -1;
	add(a, "%s", path);
	add(a, "--root=%s", root);
	if (ctx->systemd_cgroup)
		add(a, "--systemd-cgroup");
	add(a, "--rootless=%s", ctx->rootless < 0 ? "auto" : ctx->rootless ? "true" : "false");
	if (cv_log_enabled(CV_LOG_DEBUG))
		add(a, "--debug");
	return 0;
}

/* The caller's environment minus what must not reach a container, plus the
 * report socket's number (VAR). Entries are the caller's strings. */
static char **helper_env(char *var)
{
	static const char *const drop[] = { "LISTEN_FDS=", "LISTEN_PID=", "LISTEN_FDNAMES=", REPORT_ENV "=" };
	size_t n = 0, k = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	char **v = calloc(n + 2, sizeof(*v));
	if (!v)
		return NULL;
	for (char **e = environ; e && *e; e++) {
		bool keep = true;
		for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
			if (strncmp(*e, drop[i], strlen(drop[i])) == 0)
				keep = false;
		if (keep)
			v[k++] = *e;
	}
	v[k] = var;
	return v;
}

struct spawn_plan {
	const char *path;
	char **argv, **envp;
	int report;   /* the helper's end, >= 3 + preserve */
	int preserve; /* fds 3 .. 3+preserve-1 are passed on */
	char *stack;  /* the helper's, until execve */
	/* written by the children */
	pid_t pid; /* the helper */
	int pidfd;
	int clone_errno; /* the middle child's clone failed */
	int exec_errno;  /* the helper's execve failed */
};

/* The helper, sharing our memory until execve: nothing here may allocate
 * or take a lock. Signals are blocked (by the parent) until the handlers
 * are the defaults. */
static int spawn_helper(void *arg)
{
	struct spawn_plan *p = arg;
	/* the kernel's struct sigaction: the C library's sigaction refuses its
	 * own signals (32 and 33 with glibc), which a caller may have ignored
	 * (GNU make does) and an ignored signal stays ignored over execve */
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} dfl = { .handler = SIG_DFL };
	sigset_t none;
	int target = 3 + p->preserve;

	for (int s = 1; s < _NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			(void)syscall(SYS_rt_sigaction, s, &dfl, NULL, sizeof(dfl.mask));
	if (p->report == target ? fcntl(target, F_SETFD, 0) < 0 : dup2(p->report, target) < 0)
		goto fail;
	for (int fd = 3; fd < target; fd++)
		if (fcntl(fd, F_SETFD, 0) < 0)
			goto fail;
	if (syscall(SYS_close_range, target + 1, ~0U, 0) < 0)
		goto fail;
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		goto fail;
	execve(p->path, p->argv, p->envp);
fail:
	p->exec_errno = errno ? errno : EIO;
	return 127; /* clone's child ends with exit(2) of this: no exit handlers */
}

/* The middle child: clones the helper (its pidfd into our shared fd table)
 * and, once the helper runs or failed, exits. */
static int spawn_middle(void *arg)
{
	struct spawn_plan *p = arg;
	p->pid = clone(spawn_helper, p->stack, CLONE_VM | CLONE_VFORK | CLONE_PIDFD, p, &p->pidfd);
	if (p->pid < 0)
		p->clone_errno = errno ? errno : EIO;
	return 0;
}

struct call {
	const char *path;
	const char *what; /* "create", "run", "exec" */
	int cancel_fd;    /* > 0 */
	int pidfd;        /* the helper */
	int sock;         /* our end of the report socket */
	int proc_pidfd;   /* the container's process, once announced */
	bool hello, cancelled;
	int protocol;
	cv_error_t failure; /* the helper's error */
	int exit_status;    /* the helper's, -1 until it reports it */
};

static void call_release(struct call *c)
{
	cv_closep(&c->pidfd);
	cv_closep(&c->sock);
	cv_closep(&c->proc_pidfd);
	cv_error_release(&c->failure);
}

static int spawn(struct call *c, char **argv, int preserve, cv_error_t *err)
{
	int target = 3 + preserve;
	int sv[2];

	/* Every fd passed on must be open: a hole would be filled by whatever
	 * this process (another thread) opens next, and passed on instead. */
	for (int fd = 3; fd < target; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			return cv_error(err, EBADF, "preserve_fds %d: fd %d is not open", preserve, fd);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return cv_error_errno(err, "the cvisor helper: socketpair");
	/* both ends past the fds passed on, so neither is taken for one */
	cleanup_close int mine = fcntl(sv[0], F_DUPFD_CLOEXEC, target);
	cleanup_close int theirs = fcntl(sv[1], F_DUPFD_CLOEXEC, target);
	int dup_errno = errno;
	close(sv[0]);
	close(sv[1]);
	if (mine < 0 || theirs < 0)
		return cv_error(err, dup_errno, "the cvisor helper: report socket");

	char var[sizeof(REPORT_ENV) + 16];
	snprintf(var, sizeof(var), REPORT_ENV "=%d", target);
	cleanup_free char **envp = helper_env(var);
	if (!envp)
		return cv_error(err, ENOMEM, "the cvisor helper: environment");
	/* two stacks: the middle child's, then the helper's */
	char *stack = mmap(NULL, 2 * SPAWN_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1,
			   0);
	if (stack == MAP_FAILED)
		return cv_error_errno(err, "the cvisor helper: stack");
	struct spawn_plan plan = { .path = c->path,
				   .argv = argv,
				   .envp = envp,
				   .report = theirs,
				   .preserve = preserve,
				   .stack = stack + 2 * SPAWN_STACK,
				   .pidfd = -1 };
	sigset_t all, old;
	sigfillset(&all);
	/* no handler of the caller's may run on the children's stacks */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t middle = clone(spawn_middle, stack + SPAWN_STACK, CLONE_VM | CLONE_VFORK | CLONE_FILES, &plan);
	int clone_errno = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	munmap(stack, 2 * SPAWN_STACK);
	if (middle < 0)
		return cv_error(err, clone_errno, "run the cvisor helper `%s`: clone", c->path);
	/* our child, ended already (vfork), and no other waiter's: its exit
	 * signal is 0, which waitpid(-1) without __WALL passes by */
	while (waitpid(middle, NULL, __WALL) < 0 && errno == EINTR)
		;
	if (plan.clone_errno)
		return cv_error(err, plan.clone_errno, "run the cvisor helper `%s`: clone", c->path);
	cleanup_close int pidfd = plan.pidfd;
	if (plan.exec_errno)
		return cv_error(err, plan.exec_errno, "run the cvisor helper `%s`", c->path);
	cv_debug("%s: the cvisor helper `%s` runs as pid %d", c->what, c->path, (int)plan.pid);
	c->pidfd = steal_fd(&pidfd);
	c->sock = steal_fd(&mine);
	return 0;
}

static void kill_process(struct call *c)
{
	if (c->proc_pidfd >= 0)
		(void)syscall(SYS_pidfd_send_signal, c->proc_pidfd, SIGKILL, NULL, 0);
}

static void take(struct call *c, struct cv_sync_msg *m)
{
	switch (m->type) {
	case CV_SYNC_READY:
		c->hello = true;
		c->protocol = m->errnum;
		break;
	case CV_SYNC_LOG:
		cv_log(m->errnum < CV_LOG_ERROR   ? CV_LOG_ERROR
		       : m->errnum > CV_LOG_DEBUG ? CV_LOG_DEBUG
						  : m->errnum,
		       "%s", m->payload ? m->payload : "");
		break;
	case CV_SYNC_ERROR:
		cv_error_release(&c->failure);
		cv_error_plain(&c->failure, m->errnum > 0 ? m->errnum : 0, "%s",
			       m->payload ? m->payload : "unknown error");
		break;
	case CV_SYNC_PID:
		cv_closep(&c->proc_pidfd);
		c->proc_pidfd = steal_fd(&m->fd);
		if (c->cancelled)
			kill_process(c);
		break;
	case CV_SYNC_EXIT:
		c->exit_status = m->errnum;
		break;
	default:
		cv_debug("the cvisor helper: unexpected report %u ignored", m->type);
	}
	cv_sync_msg_release(m);
}

/* Reads one report; false once there is nothing more to read. */
static bool read_report(struct call *c)
{
	struct cv_sync_msg m = { .fd = -1 };
	cleanup_error cv_error_t e = NULL;
	if (cv_sync_recv(c->sock, &m, &e) < 0)
		return false;
	take(c, &m);
	return true;
}

/* Runs ARGV as the helper until it ends, its reports taken. */
static int call_helper(struct call *c, char **argv, int preserve, cv_error_t *err)
{
	int r;
	if (c->cancel_fd > 0 && fcntl(c->cancel_fd, F_GETFD) < 0)
		return cv_error(err, EBADF, "%s: cancel_fd %d is not open", c->what, c->cancel_fd);
	if ((r = spawn(c, argv, preserve, err)) < 0)
		return r;
	bool reading = true;
	for (;;) {
		struct pollfd p[3] = { { c->pidfd, POLLIN, 0 },
				       { reading ? c->sock : -1, POLLIN, 0 },
				       { c->cancel_fd > 0 && !c->cancelled ? c->cancel_fd : -1, POLLIN, 0 } };
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* the helper goes on, unwatched */
			r = cv_error_errno(err, "%s: wait for the cvisor helper", c->what);
			reading = false;
			break;
		}
		if (p[2].revents) {
			c->cancelled = true;
			kill_process(c);
		}
		if (p[1].revents)
			reading = read_report(c);
		if (p[0].revents)
			break;
	}
	/* what it said before it ended */
	for (;;) {
		struct pollfd p = { c->sock, POLLIN, 0 };
		if (!reading || poll(&p, 1, 0) != 1 || !(p.revents & POLLIN))
			break;
		reading = read_report(c);
	}
	return r;
}

/* The helper's outcome as the call's: its error, or its exit status for
 * the program's (run and exec in the foreground). */
static int outcome(struct call *c, bool foreground, int *exit_status, cv_error_t *err)
{
	int code = c->exit_status;
	if (c->hello && c->protocol != PROTOCOL_VERSION)
		return cv_error(err, EPROTO, "the cvisor helper `%s` speaks protocol %d, this libcvisor %d", c->path,
				c->protocol, PROTOCOL_VERSION);
	if (c->failure) {
		int r = cv_error_ret(c->failure);
		if (err)
			cv_error_move(err, &c->failure);
		return r;
	}
	if (!c->hello)
		return cv_error(err, EPROTO,
				"%s: the cvisor helper `%s` ended without reporting: not a cvisor binary, or one "
				"older than this libcvisor (%s)",
				c->what, c->path, PACKAGE_VERSION);
	if (code < 0)
		return cv_error(err, EIO, "%s: the cvisor helper `%s` ended without an exit status (killed?)", c->what,
				c->path);
	if (foreground) {
		if (exit_status)
			*exit_status = code;
		return 0;
	}
	if (code != 0)
		return cv_error(err, EIO, "%s: the cvisor helper `%s` exited with status %d without an error", c->what,
				c->path, code);
	return 0;
}

/* --NAME=VALUE when there is a value; --NAME when ON. */
static void add_value(struct args *a, const char *name, const char *value)
{
	if (value)
		add(a, "--%s=%s", name, value);
}

static void add_flag(struct args *a, const char *name, bool on)
{
	if (on)
		add(a, "--%s", name);
}

/* The command line up to the verb's flags: the helper, the global flags,
 * the verb. */
static int begin_args(struct args *a, struct call *c, const struct cvisor_context *ctx, const char *id,
		      int preserve_fds, cv_error_t *err)
{
	int r;
	if ((r = cv_store_validate_id(id, err)) < 0)
		return r;
	if (preserve_fds < 0)
		return cv_error(err, EINVAL, "%s: preserve_fds %d: must not be negative", c->what, preserve_fds);
	if (global_args(a, c->path, ctx, err) < 0)
		return -1;
	add(a, "%s", c->what);
	if (preserve_fds)
		add(a, "--preserve-fds=%d", preserve_fds);
	return 0;
}

/* The flags' end, the id and what follows it; then the call. */
static int call_with(struct args *a, struct call *c, const char *id, char *const *after, int preserve_fds,
		     cv_error_t *err)
{
	add(a, "--");
	add(a, "%s", id);
	for (char *const *arg = after; arg && *arg; arg++)
		add(a, "%s", *arg);
	if (a->oom)
		return cv_error(err, ENOMEM, "%s", c->what);
	return call_helper(c, a->v, preserve_fds, err);
}

int cv_helper_create(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *o, bool run,
		     bool detach, int *exit_status, cv_error_t *err)
{
	struct args a = { 0 };
	struct call c = { .path = helper_path(ctx),
			  .what = run ? "run" : "create",
			  .cancel_fd = o->cancel_fd,
			  .pidfd = -1,
			  .sock = -1,
			  .proc_pidfd = -1,
			  .exit_status = -1 };
	int r = begin_args(&a, &c, ctx, id, o->preserve_fds, err);

	if (r == 0) {
		add_value(&a, "bundle", o->bundle);
		add_value(&a, "config", o->config_path);
		add_value(&a, "pid-file", o->pid_file);
		add_value(&a, "console-socket", o->console_socket);
		add_value(&a, "pidfd-socket", o->pidfd_socket);
		add_flag(&a, "no-pivot", o->no_pivot);
		add_flag(&a, "no-new-keyring", o->no_new_keyring);
		add_flag(&a, "detach", run && detach);
		add_flag(&a, "keep", run && o->keep);
		r = call_with(&a, &c, id, NULL, o->preserve_fds, err);
	}
	args_free(&a);
	if (r == 0 && c.cancelled) {
		/* Ours to remove when the helper made it and left it: create,
		 * run --detach, or a run that kept it (the helper removes
		 * the others itself, and an id it failed on may be another's). */
		bool made = run && !detach ? c.proc_pidfd >= 0 && o->keep : !c.failure && c.exit_status == 0;
		cleanup_error cv_error_t e = NULL;
		if (made && cvisor_delete(ctx, id, true, &e) < 0)
			cv_warn("%s: cancelled: delete container \"%s\": %s", c.what, id, cvisor_error_message(e));
		r = cv_error_plain(err, ECANCELED, "%s: cancelled", c.what);
	} else if (r == 0)
		r = outcome(&c, run && !detach, exit_status, err);
	call_release(&c);
	return r;
}

int cv_helper_exec(const struct cvisor_context *ctx, const char *id, const struct cvisor_exec_options *o,
		   int *exit_status, cv_error_t *err)
{
	struct args a = { 0 };
	struct call c = { .path = helper_path(ctx),
			  .what = "exec",
			  .cancel_fd = o->cancel_fd,
			  .pidfd = -1,
			  .sock = -1,
			  .proc_pidfd = -1,
			  .exit_status = -1 };
	int r;

	if (!o->process_path && (!o->args || !o->args[0]))
		return cv_error(err, EINVAL, "exec: a command is required");
	r = begin_args(&a, &c, ctx, id, o->preserve_fds, err);
	if (r == 0) {
		add_value(&a, "process", o->process_path);
		for (char *const *e = o->env; e && *e; e++)
			add_value(&a, "env", *e);
		add_value(&a, "cwd", o->cwd);
		add_value(&a, "user", o->user);
		for (size_t i = 0; i < o->additional_gids_len; i++)
			add(&a, "--additional-gids=%u", (unsigned)o->additional_gids[i]);
		for (char *const *cap = o->caps; cap && *cap; cap++)
			add_value(&a, "cap", *cap);
		add_flag(&a, "tty", o->tty);
		add_flag(&a, "no-new-privs", o->no_new_privs);
		add_flag(&a, "detach", o->detach);
		add_value(&a, "console-socket", o->console_socket);
		add_value(&a, "pidfd-socket", o->pidfd_socket);
		add_value(&a, "pid-file", o->pid_file);
		add_value(&a, "apparmor", o->apparmor);
		add_value(&a, "process-label", o->process_label);
		r = call_with(&a, &c, id, o->process_path ? NULL : o->args, o->preserve_fds, err);
	}
	args_free(&a);
	if (r == 0 && c.cancelled)
		r = cv_error_plain(err, ECANCELED, "exec: cancelled");
	else if (r == 0)
		r = outcome(&c, !o->detach, exit_status, err);
	call_release(&c);
	return r;
}

int cv_helper_start(const struct cvisor_context *ctx, const char *verb, bool debug, int *pidfd, int *sock,
		    cv_error_t *err)
{
	struct args a = { 0 };
	struct call c = { .path = helper_path(ctx),
			  .what = verb,
			  .pidfd = -1,
			  .sock = -1,
			  .proc_pidfd = -1,
			  .exit_status = -1 };
	int r = global_args(&a, c.path, ctx, err);
	if (r == 0) {
		if (debug && !cv_log_enabled(CV_LOG_DEBUG))
			add(&a, "--debug");
		add(&a, "%s", verb);
		r = a.oom ? cv_error(err, ENOMEM, "%s", verb) : spawn(&c, a.v, 0, err);
	}
	args_free(&a);
	if (r == 0) {
		*pidfd = steal_fd(&c.pidfd);
		*sock = steal_fd(&c.sock);
	}
	call_release(&c);
	return r;
}

int cv_helper_protocol_check(const struct cvisor_context *ctx, int version, cv_error_t *err)
{
	if (version != PROTOCOL_VERSION)
		return cv_error(err, EPROTO, "the cvisor helper `%s` speaks protocol %d, this libcvisor %d",
				helper_path(ctx), version, PROTOCOL_VERSION);
	return 0;
}

const char *cv_helper_path(const struct cvisor_context *ctx)
{
	return helper_path(ctx);
}

/* ---- the helper's side ---- */

static int report_fd = -1;

int cv_helper_serve(cv_error_t *err)
{
	const char *v = getenv(REPORT_ENV);
	struct stat st;
	char *end;
	if (!v)
		return 0;
	errno = 0;
	long fd = strtol(v, &end, 10);
	if (errno || !*v || *end || fd < 3 || fd > INT_MAX)
		return cv_error(err, EINVAL, REPORT_ENV " \"%s\": not an fd number", v);
	if (fstat((int)fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return cv_error(err, errno ? errno : ENOTSOCK, REPORT_ENV " %ld: not a socket", fd);
	/* nothing started from here inherits it past execve, and no program
	 * the runtime runs sees the variable */
	if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0 || unsetenv(REPORT_ENV) < 0)
		return cv_error_errno(err, REPORT_ENV " %ld", fd);
	report_fd = (int)fd;
	(void)cv_sync_send(report_fd, CV_SYNC_READY, PROTOCOL_VERSION, NULL, 0, -1, NULL);
	return 1;
}

int cv_helper_socket(void)
{
	return report_fd;
}

void cv_helper_log(int level, const char *msg, void *data)
{
	size_t len = strlen(msg);
	(void)data;
	if (report_fd >= 0)
		(void)cv_sync_send(report_fd, CV_SYNC_LOG, level, msg,
				   len > CV_SYNC_MAX_PAYLOAD ? CV_SYNC_MAX_PAYLOAD : len, -1, NULL);
}

void cv_helper_fail(const cv_error_t e)
{
	if (report_fd >= 0)
		cv_sync_send_error(report_fd, e);
}

void cv_helper_announce(pid_t pid, int pidfd)
{
	if (report_fd >= 0)
		(void)cv_sync_send(report_fd, CV_SYNC_PID, (int)pid, NULL, 0, pidfd, NULL);
}

void cv_helper_exit(int status)
{
	if (report_fd >= 0)
		(void)cv_sync_send(report_fd, CV_SYNC_EXIT, status, NULL, 0, -1, NULL);
}
