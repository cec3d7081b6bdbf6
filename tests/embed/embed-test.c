/* A program embedding libcvisor, as any other would: it includes cvisor.h
 * only, links libcvisor.so only, and its own binary is writable (the case
 * the library must handle without ever letting a container reach it, see
 * cvisor.h). Driven by tests/integration/embed.bats and lifecycle.bats.
 *
 *   embed-test threads BUNDLE ROOT HELPER N
 *       BUNDLE's config.json runs `sleep` for long; config-exit3.json and
 *       config-warn.json next to it run `exit 3` (the latter with a poststop
 *       hook that fails). N threads at once create, start, exec, kill and
 *       delete a container each; then errors, preserve_fds, --config, the
 *       log sink, struct_size checks, pidfd and console sockets and
 *       cancellation, from one thread.
 *       Before and after, the process's own state is compared: dumpable,
 *       subreaper, signal mask and dispositions, fds, and a child of its own
 *       that must still be there, unreaped, and no SIGCHLD for any helper.
 *       Prints `ok`/`not ok` lines; exits 1 on any failure.
 *   embed-test cli ROOT HELPER run ID BUNDLE      (exits with its status)
 *   embed-test cli ROOT HELPER run-detach ID BUNDLE
 *   embed-test cli ROOT HELPER exec ID ARGS...   (exits with their status)
 *   embed-test cli ROOT HELPER delete ID
 *       single calls, errors on stderr. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cvisor.h"

static const char *bundle, *root, *helper;
static atomic_int failures;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 2, 3))) static bool check(bool pass, const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&out_lock);
	printf("%s - ", pass ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	if (!pass)
		atomic_fetch_add(&failures, 1);
	return pass;
}

static struct cvisor_context context(void)
{
	struct cvisor_context c = { .struct_size = sizeof(c),
				    .state_root = root,
				    .rootless = -1,
				    .helper_path = helper };
	return c;
}

/* A failed call: its errno and message, then the error released. */
static bool failed_with(int r, cvisor_error *e, int want_errno, const char *want_msg, const char *what)
{
	const char *msg = e ? cvisor_error_message(e) : "(no error set)";
	bool pass = r == -want_errno && e && cvisor_error_errno(e) == want_errno && strstr(msg, want_msg);
	check(pass, "%s fails with %s: \"%s\" (got %d: \"%s\")", what, strerror(want_errno), want_msg, r, msg);
	cvisor_error_free(e);
	return pass;
}

static bool succeeded(int r, cvisor_error *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool succeeded(int r, cvisor_error *e, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	bool pass = check(r == 0, "%s%s%s", what, r ? ": " : "", r ? (e ? cvisor_error_message(e) : "?") : "");
	cvisor_error_free(e);
	return pass;
}

static char *status_of(const struct cvisor_context *c, const char *id)
{
	char *json = NULL;
	cvisor_error *e = NULL;
	if (cvisor_state_json(c, id, &json, &e) < 0) {
		cvisor_error_free(e);
		return strdup("gone");
	}
	/* "status": "running" (runc's indented JSON) */
	const char *s = strstr(json, "\"status\"");
	s = s ? strchr(s + 8, '"') : NULL;
	char *status = s ? strndup(s + 1, strcspn(s + 1, "\"")) : strdup("?");
	cvisor_free(json);
	return status;
}

static bool status_becomes(const struct cvisor_context *c, const char *id, const char *want)
{
	for (int i = 0; i < 200; i++) {
		char *s = status_of(c, id);
		bool same = strcmp(s, want) == 0;
		free(s);
		if (same)
			return true;
		usleep(50000);
	}
	return false;
}

/* ---- one container's whole life, N of them at once ---- */

static void *container_life(void *arg)
{
	long n = (long)arg;
	struct cvisor_context c = context();
	struct cvisor_create_options co = { .struct_size = sizeof(co), .bundle = bundle };
	char id[64];
	cvisor_error *e = NULL;
	int status = -1, r;

	snprintf(id, sizeof(id), "embed-%d-%ld", (int)getpid(), n);
	r = cvisor_create(&c, id, &co, &e);
	if (!succeeded(r, e, "thread %ld: create %s", n, id))
		return NULL;
	char *s = status_of(&c, id);
	check(strcmp(s, "created") == 0, "thread %ld: %s is created (%s)", n, id, s);
	free(s);
	e = NULL;
	succeeded(cvisor_start(&c, id, &e), e, "thread %ld: start", n);
	s = status_of(&c, id);
	check(strcmp(s, "running") == 0, "thread %ld: %s is running (%s)", n, id, s);
	free(s);

	char *const exit7[] = { "sh", "-c", "exit 7", NULL };
	struct cvisor_exec_options xo = { .struct_size = sizeof(xo), .args = exit7 };
	e = NULL;
	if (succeeded(cvisor_exec(&c, id, &xo, &status, &e), e, "thread %ld: exec", n))
		check(status == 7, "thread %ld: exec's exit status is the program's (%d)", n, status);
	char *const env_cwd[] = { "sh", "-c", "test \"$FOO\" = bar && test \"$(pwd)\" = /tmp", NULL };
	char *const env[] = { "FOO=bar", NULL };
	struct cvisor_exec_options xo2 = { .struct_size = sizeof(xo2), .args = env_cwd, .env = env, .cwd = "/tmp" };
	e = NULL;
	if (succeeded(cvisor_exec(&c, id, &xo2, &status, &e), e, "thread %ld: exec --env --cwd", n))
		check(status == 0, "thread %ld: exec's env and cwd are given (%d)", n, status);

	e = NULL;
	succeeded(cvisor_kill(&c, id, SIGKILL, false, &e), e, "thread %ld: kill", n);
	check(status_becomes(&c, id, "stopped"), "thread %ld: %s stops", n, id);
	e = NULL;
	succeeded(cvisor_delete(&c, id, false, &e), e, "thread %ld: delete", n);
	char *json = NULL;
	e = NULL;
	r = cvisor_state_json(&c, id, &json, &e);
	char want[128];
	snprintf(want, sizeof(want), "container \"%s\" does not exist", id);
	failed_with(r, e, ENOENT, want, "state after delete");
	return NULL;
}

/* ---- what the process looks like, before and after ---- */

struct self_state {
	int dumpable, subreaper;
	sigset_t mask;
	struct sigaction act[_NSIG];
	int nfds;
};

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void snapshot(struct self_state *s)
{
	memset(s, 0, sizeof(*s));
	s->dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	prctl(PR_GET_CHILD_SUBREAPER, &s->subreaper, 0, 0, 0);
	pthread_sigmask(SIG_BLOCK, NULL, &s->mask);
	for (int sig = 1; sig < _NSIG; sig++)
		sigaction(sig, NULL, &s->act[sig]);
	s->nfds = count_fds();
}

static atomic_int sigchld_count;
static void on_sigchld(int sig)
{
	(void)sig;
	atomic_fetch_add(&sigchld_count, 1);
}

/* ---- the log sink ---- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char logged[65536];

static void sink(int level, const char *msg, void *userdata)
{
	(void)userdata;
	pthread_mutex_lock(&log_lock);
	size_t n = strlen(logged);
	snprintf(logged + n, sizeof(logged) - n, "%d %s\n", level, msg);
	pthread_mutex_unlock(&log_lock);
}

/* ---- cancellation: an eventfd written by a thread after a while ---- */

static void *fire_later(void *arg)
{
	int fd = (int)(long)arg;
	uint64_t one = 1;
	usleep(300000);
	if (write(fd, &one, sizeof(one)) != sizeof(one))
		perror("embed-test: eventfd");
	return NULL;
}

static int stop_events(const char *json, void *userdata)
{
	(void)json;
	(void)userdata;
	return 0;
}

static void cancellation(void)
{
	struct cvisor_context c = context();
	char path[4096], id[64];
	cvisor_error *e = NULL;
	pthread_t t;
	int status = -1;

	/* run in the foreground: the container is killed and deleted */
	int fd = eventfd(0, EFD_CLOEXEC);
	snprintf(id, sizeof(id), "embed-%d-cancel", (int)getpid());
	struct cvisor_create_options co = { .struct_size = sizeof(co), .bundle = bundle, .cancel_fd = fd };
	pthread_create(&t, NULL, fire_later, (void *)(long)fd);
	int r = cvisor_container_run(&c, id, &co, false, &status, &e);
	pthread_join(t, NULL);
	failed_with(r, e, ECANCELED, "run: cancelled", "a cancelled run");
	char *s = status_of(&c, id);
	check(strcmp(s, "gone") == 0, "a cancelled run leaves no container (%s)", s);
	free(s);
	close(fd);

	/* exec: the process is killed, the container goes on */
	struct cvisor_create_options co2 = { .struct_size = sizeof(co2), .bundle = bundle };
	e = NULL;
	if (!succeeded(cvisor_container_run(&c, id, &co2, true, NULL, &e), e, "run --detach %s", id))
		return;
	fd = eventfd(0, EFD_CLOEXEC);
	char *const sleeper[] = { "sleep", "1000", NULL };
	struct cvisor_exec_options xo = { .struct_size = sizeof(xo), .args = sleeper, .cancel_fd = fd };
	pthread_create(&t, NULL, fire_later, (void *)(long)fd);
	e = NULL;
	r = cvisor_exec(&c, id, &xo, &status, &e);
	pthread_join(t, NULL);
	failed_with(r, e, ECANCELED, "exec: cancelled", "a cancelled exec");
	close(fd);
	pid_t *pids = NULL;
	size_t npids = 0;
	e = NULL;
	if (succeeded(cvisor_pids(&c, id, &pids, &npids, &e), e, "pids"))
		check(npids == 1, "the cancelled exec's process is gone, the container's remains (%zu)", npids);
	cvisor_free(pids);

	/* events */
	fd = eventfd(0, EFD_CLOEXEC);
	struct cvisor_events_options eo = { .struct_size = sizeof(eo), .interval_ms = 100000, .cancel_fd = fd };
	pthread_create(&t, NULL, fire_later, (void *)(long)fd);
	e = NULL;
	r = cvisor_events(&c, id, &eo, stop_events, NULL, &e);
	pthread_join(t, NULL);
	failed_with(r, e, ECANCELED, "events: cancelled", "cancelled events");
	close(fd);
	e = NULL;
	succeeded(cvisor_delete(&c, id, true, &e), e, "delete --force %s", id);
	(void)path;
}

/* ---- fds handed over a unix socket (console and pidfd sockets) ---- */

static int listen_at(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(fd, 1) < 0) {
		check(false, "listen at %s: %s", path, strerror(errno));
		return -1;
	}
	return fd;
}

/* The fd the runtime sent to the listening socket (it connected and sent
 * before returning: the connection waits in the backlog). */
static int received_fd(int lfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char name[64];
	struct iovec iov = { name, sizeof(name) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	int fd = -1;
	int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (c >= 0 && recvmsg(c, &mh, MSG_CMSG_CLOEXEC) > 0 && CMSG_FIRSTHDR(&mh))
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
	if (c >= 0)
		close(c);
	close(lfd);
	return fd;
}

static void sockets(void)
{
	struct cvisor_context c = context();
	char id[64], path[128];
	cvisor_error *e = NULL;

	/* run --detach --pidfd-socket: a pidfd of the container's process */
	snprintf(id, sizeof(id), "embed-%d-sockets", (int)getpid());
	snprintf(path, sizeof(path), "%s.pidfd.sock", root);
	int lfd = listen_at(path);
	struct cvisor_create_options co = { .struct_size = sizeof(co), .bundle = bundle, .pidfd_socket = path };
	if (lfd < 0 || !succeeded(cvisor_container_run(&c, id, &co, true, NULL, &e), e, "run --detach --pidfd-socket"))
		return;
	int pidfd = received_fd(lfd);
	unlink(path);
	char fdinfo[64], buf[4096] = "", *json = NULL;
	snprintf(fdinfo, sizeof(fdinfo), "/proc/self/fdinfo/%d", pidfd);
	int fd = open(fdinfo, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	e = NULL;
	if (succeeded(cvisor_state_json(&c, id, &json, &e), e, "state")) {
		const char *p = strstr(json, "\"pid\"");
		long pid = p ? strtol(p + strcspn(p, "0123456789"), NULL, 10) : -1;
		char want[32];
		snprintf(want, sizeof(want), "Pid:\t%ld\n", pid);
		check(pidfd >= 0 && strstr(buf, want), "the pidfd socket got a pidfd of the container's process (%ld)",
		      pid);
		cvisor_free(json);
	}
	if (pidfd >= 0)
		close(pidfd);

	/* exec --tty --console-socket: the pseudo-terminal's master */
	snprintf(path, sizeof(path), "%s.console.sock", root);
	lfd = listen_at(path);
	char *const hello[] = { "sh", "-c", "echo hello-tty", NULL };
	struct cvisor_exec_options xo = { .struct_size = sizeof(xo),
					  .args = hello,
					  .tty = true,
					  .detach = true,
					  .console_socket = path };
	int status = -1;
	e = NULL;
	if (lfd >= 0 && succeeded(cvisor_exec(&c, id, &xo, &status, &e), e, "exec --tty --console-socket --detach")) {
		int master = received_fd(lfd);
		char out[256] = "";
		size_t got = 0;
		for (int i = 0; master >= 0 && i < 100 && !strstr(out, "hello-tty"); i++) {
			struct pollfd p = { master, POLLIN, 0 };
			if (poll(&p, 1, 100) == 1 && (n = read(master, out + got, sizeof(out) - 1 - got)) > 0)
				got += (size_t)n;
			out[got] = '\0';
		}
		check(strstr(out, "hello-tty") != NULL, "the console socket got the terminal: \"%s\"", out);
		if (master >= 0)
			close(master);
	}
	unlink(path);
	e = NULL;
	succeeded(cvisor_delete(&c, id, true, &e), e, "delete --force %s", id);
}

/* ---- the rest, one at a time ---- */

static void errors_and_options(void)
{
	struct cvisor_context c = context();
	char id[64], want[128], path[4096];
	cvisor_error *e = NULL;
	int status = -1, r;

	snprintf(id, sizeof(id), "embed-%d-single", (int)getpid());
	struct cvisor_create_options co = { .struct_size = sizeof(co), .bundle = bundle };
	if (!succeeded(cvisor_create(&c, id, &co, &e), e, "create %s", id))
		return;
	e = NULL;
	r = cvisor_create(&c, id, &co, &e);
	snprintf(want, sizeof(want), "container \"%s\" already exists", id);
	failed_with(r, e, EEXIST, want, "a second create of the same id");
	e = NULL;
	r = cvisor_create(&c, "bad/id", &co, &e);
	failed_with(r, e, EINVAL, "invalid container id \"bad/id\"", "create of a bad id");
	e = NULL;
	succeeded(cvisor_start(&c, id, &e), e, "start %s", id);

	/* fd 3, close-on-exec here, reaches the process as fd 3 */
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		check(false, "pipe: %s", strerror(errno));
		return;
	}
	/* the read end away from 3, the write end onto it */
	int rd = fcntl(pipefd[0], F_DUPFD_CLOEXEC, 10);
	close(pipefd[0]);
	pipefd[0] = rd;
	if (rd < 0 || dup3(pipefd[1], 3, O_CLOEXEC) < 0) {
		check(false, "pipe: %s", strerror(errno));
		return;
	}
	close(pipefd[1]);
	char *const echo3[] = { "sh", "-c", "echo through-fd-3 >&3", NULL };
	struct cvisor_exec_options xo = { .struct_size = sizeof(xo), .args = echo3, .preserve_fds = 1 };
	e = NULL;
	r = cvisor_exec(&c, id, &xo, &status, &e);
	close(3);
	char buf[64] = "";
	ssize_t n = read(pipefd[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	if (succeeded(r, e, "exec --preserve-fds 1"))
		check(status == 0 && strcmp(buf, "through-fd-3\n") == 0, "preserve_fds passes fd 3 (%d, \"%s\")",
		      status, buf);
	xo.preserve_fds = 1; /* fd 3 is closed now */
	e = NULL;
	r = cvisor_exec(&c, id, &xo, &status, &e);
	failed_with(r, e, EBADF, "preserve_fds 1: fd 3 is not open", "preserve_fds over a closed fd");

	/* this program ignores SIGPIPE (as python does): not the container
	 * (grep itself: busybox sh running one command ignores SIGQUIT) */
	char *const sigign[] = { "grep", "-q", "^SigIgn:[[:space:]]*0*$", "/proc/self/status", NULL };
	struct cvisor_exec_options xo4 = { .struct_size = sizeof(xo4), .args = sigign };
	e = NULL;
	if (succeeded(cvisor_exec(&c, id, &xo4, &status, &e), e, "exec grep SigIgn"))
		check(status == 0, "no signal the caller ignores is ignored in the container (%d)", status);

	char *const missing[] = { "nope", NULL };
	struct cvisor_exec_options xo3 = { .struct_size = sizeof(xo3), .args = missing };
	e = NULL;
	r = cvisor_exec(&c, id, &xo3, &status, &e);
	failed_with(r, e, ENOENT, "\"nope\": executable file not found", "exec of a missing program");
	e = NULL;
	r = cvisor_exec(&c, "embed-none", &xo3, &status, &e);
	failed_with(r, e, ENOENT, "container \"embed-none\" does not exist", "exec in a missing container");
	e = NULL;
	r = cvisor_exec(&c, id, NULL, &status, &e);
	failed_with(r, e, EINVAL, "exec: a command is required", "exec without options");

	/* struct_size */
	struct cvisor_create_options zero = { 0 };
	e = NULL;
	r = cvisor_create(&c, id, &zero, &e);
	failed_with(r, e, EINVAL, "struct cvisor_create_options: struct_size 0 is smaller",
		    "create with struct_size 0");
	struct cvisor_context c0 = c;
	c0.struct_size = 4;
	char *json = NULL;
	e = NULL;
	r = cvisor_state_json(&c0, id, &json, &e);
	failed_with(r, e, EINVAL, "struct cvisor_context: struct_size 4", "state with a context's struct_size 4");
	struct {
		struct cvisor_exec_options o;
		int newer_field;
	} bigger = { .o = { .struct_size = sizeof(bigger), .args = echo3 }, .newer_field = 1 };
	e = NULL;
	r = cvisor_exec(&c, id, &bigger.o, &status, &e);
	failed_with(r, e, E2BIG, "sets fields past", "exec with a field this library does not know");
	bigger.newer_field = 0;
	char *const t[] = { "true", NULL };
	bigger.o.args = t;
	e = NULL;
	r = cvisor_exec(&c, id, &bigger.o, &status, &e);
	succeeded(r, e, "exec with a larger struct_size whose extra bytes are zero");
	e = NULL;
	succeeded(cvisor_delete(&c, id, true, &e), e, "delete --force %s", id);

	/* run with another config (--config), in the foreground */
	snprintf(path, sizeof(path), "%s/config-exit3.json", bundle);
	struct cvisor_create_options ro = { .struct_size = sizeof(ro), .bundle = bundle, .config_path = path };
	e = NULL;
	status = -1;
	if (succeeded(cvisor_container_run(&c, id, &ro, false, &status, &e), e, "run --config config-exit3.json"))
		check(status == 3, "run's exit status is the program's (%d)", status);
	char *s = status_of(&c, id);
	check(strcmp(s, "gone") == 0, "run deleted the container (%s)", s);
	free(s);

	/* a warning of the helper reaches the sink */
	snprintf(path, sizeof(path), "%s/config-warn.json", bundle);
	ro.config_path = path;
	e = NULL;
	succeeded(cvisor_container_run(&c, id, &ro, false, &status, &e), e, "run with a failing poststop hook");
	pthread_mutex_lock(&log_lock);
	check(strstr(logged, "1 poststop hook") != NULL, "the helper's warning reached the log sink: %s", logged);
	pthread_mutex_unlock(&log_lock);

	/* a helper that is not there */
	struct cvisor_context bad = c;
	bad.helper_path = "/nonexistent/cvisor";
	e = NULL;
	r = cvisor_create(&bad, id, &co, &e);
	failed_with(r, e, ENOENT, "run the cvisor helper `/nonexistent/cvisor`", "create with a missing helper");
}

static int threads(int n)
{
	struct self_state before, after;
	struct sigaction sa = { .sa_handler = on_sigchld };
	sigset_t usr1;
	int pipefd[2];

	struct statvfs sv;
	check(access("/proc/self/exe", W_OK) == 0 && statvfs("/proc/self/exe", &sv) == 0 && !(sv.f_flag & ST_RDONLY),
	      "this program's own binary is writable");
	/* a state worth keeping: SIGUSR1 blocked, SIGPIPE ignored (as python
	 * does), a SIGCHLD handler, and a child of our own */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGCHLD, &sa, NULL);
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return 2;
	pid_t own = fork();
	if (own == 0) {
		char b;
		close(pipefd[1]);
		_exit(read(pipefd[0], &b, 1) == 1 ? 42 : 1);
	}
	close(pipefd[0]);
	snapshot(&before);
	cvisor_set_log_sink(sink, NULL, CVISOR_LOG_WARNING);

	pthread_t *t = calloc((size_t)n, sizeof(*t));
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, container_life, (void *)i);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	errors_and_options();
	sockets();
	cancellation();

	cvisor_set_log_sink(NULL, NULL, 0);
	snapshot(&after);
	check(after.dumpable == before.dumpable && before.dumpable == 1, "dumpable unchanged (%d -> %d)",
	      before.dumpable, after.dumpable);
	check(after.subreaper == before.subreaper && before.subreaper == 0, "subreaper unchanged (%d -> %d)",
	      before.subreaper, after.subreaper);
	check(memcmp(&after.mask, &before.mask, sizeof(sigset_t)) == 0 && sigismember(&after.mask, SIGUSR1) == 1,
	      "signal mask unchanged");
	bool same = true;
	for (int sig = 1; sig < _NSIG; sig++)
		if (before.act[sig].sa_handler != after.act[sig].sa_handler ||
		    before.act[sig].sa_flags != after.act[sig].sa_flags)
			same = false;
	check(same, "signal dispositions unchanged");
	check(after.nfds == before.nfds, "no fd left open (%d -> %d)", before.nfds, after.nfds);
	check(atomic_load(&sigchld_count) == 0, "no SIGCHLD from the helpers (%d)", atomic_load(&sigchld_count));
	int st = 0;
	check(waitpid(own, &st, WNOHANG) == 0, "our own child is still there, unreaped");
	if (write(pipefd[1], "x", 1) != 1)
		perror("embed-test: pipe");
	close(pipefd[1]);
	pid_t w = waitpid(own, &st, 0);
	check(w == own && WIFEXITED(st) && WEXITSTATUS(st) == 42, "our own child is ours to wait for (status %d)",
	      WEXITSTATUS(st));
	errno = 0;
	check(waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD, "no other child left behind");
	printf("%d failed\n", atomic_load(&failures));
	return atomic_load(&failures) ? 1 : 0;
}

static int cli(int argc, char **argv)
{
	struct cvisor_context c = context();
	cvisor_error *e = NULL;
	int status = 0, r;

	if (argc == 3 && (strcmp(argv[0], "run") == 0 || strcmp(argv[0], "run-detach") == 0)) {
		struct cvisor_create_options co = { .struct_size = sizeof(co), .bundle = argv[2] };
		r = cvisor_container_run(&c, argv[1], &co, strcmp(argv[0], "run-detach") == 0, &status, &e);
	} else if (argc >= 3 && strcmp(argv[0], "exec") == 0) {
		struct cvisor_exec_options xo = { .struct_size = sizeof(xo), .args = argv + 2 };
		r = cvisor_exec(&c, argv[1], &xo, &status, &e);
	} else if (argc == 2 && strcmp(argv[0], "delete") == 0) {
		r = cvisor_delete(&c, argv[1], true, &e);
	} else if (argc == 2 && strcmp(argv[0], "spec") == 0) {
		struct cvisor_spec_options so = { .struct_size = sizeof(so), .bundle = argv[1] };
		r = cvisor_spec(&so, NULL, &e);
	} else if (argc == 1 && strcmp(argv[0], "features") == 0) {
		char *json = NULL;
		if ((r = cvisor_features_json(NULL, &json, &e)) == 0)
			puts(json);
		cvisor_free(json);
	} else if (argc >= 2 && strcmp(argv[0], "do") == 0) {
		struct cvisor_do_options d = { .struct_size = sizeof(d) };
		r = cvisor_do(&c, argv + 1, &d, &status, &e);
	} else {
		fprintf(stderr, "embed-test: unknown cli call\n");
		return 2;
	}
	if (r < 0) {
		fprintf(stderr, "embed-test: %s\n", cvisor_error_message(e));
		cvisor_error_free(e);
		return 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "threads") == 0) {
		bundle = argv[2];
		root = argv[3];
		helper = argv[4];
		return threads(atoi(argv[5]));
	}
	if (argc >= 5 && strcmp(argv[1], "cli") == 0) {
		root = argv[2];
		helper = argv[3];
		return cli(argc - 4, argv + 4);
	}
	fprintf(stderr, "usage: embed-test threads BUNDLE ROOT HELPER N | cli ROOT HELPER CALL...\n");
	return 2;
}
