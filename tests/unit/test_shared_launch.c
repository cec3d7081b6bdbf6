/* Unit tests for src/libcvisor/lifecycle/shared-launch.c: the runtime's
 * side of the sync protocol while a container process shares its memory.
 * A forked stand-in plays the container process over the same
 * SOCK_SEQPACKET pair: the wait must answer NS_READY with the id maps and
 * CONTINUE, keep READY, errors and log lines for afterwards, end at the
 * end of file, and kill a child that asks what it cannot answer. */
#include "config.h"

#include <errno.h>
#include <linux/sched.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "lifecycle/shared-launch.h"
#include "log.h"
#include "process/sync.h"
#include "tap.h"

/* the lines logged, one after the other */
static char logged[8192];
static void capture(int level, const char *msg, void *data)
{
	(void)data;
	size_t n = strlen(logged);
	snprintf(logged + n, sizeof(logged) - n, "%d:%s|", level, msg);
}

struct child {
	pid_t pid;
	int pidfd, sock;
	int end; /* our copy of its end: the wait closes it */
};

/* Forks the stand-in, which runs SCRIPT(its end of the socket) and exits
 * with what it returns; our copy of its end goes to the wait. */
static struct child start(int (*script)(int sock))
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		exit(1);
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		close(sv[0]);
		alarm(10); /* a wait that never answers fails the test, not CI */
		_exit(script(sv[1]));
	}
	struct child c = { pid, (int)syscall(SYS_pidfd_open, pid, 0), sv[0], sv[1] };
	if (c.pidfd < 0) {
		perror("pidfd_open");
		exit(1);
	}
	return c;
}

static int wait_child(struct child *c, struct cv_shared_launch *s)
{
	cv_shared_launch_wait(s, c->pid, c->pidfd, c->sock, c->end);
	int st = 0;
	waitpid(c->pid, &st, 0);
	close(c->pidfd);
	close(c->sock);
	return st;
}

static void send_msg(int sock, uint32_t type, int errnum, const char *text)
{
	cv_sync_send(sock, type, errnum, text, text ? strlen(text) : 0, -1, NULL);
}

static int expect_continue(int sock)
{
	struct cv_sync_msg m = { .fd = -1 };
	cleanup_error cv_error_t e = NULL;
	int r = cv_sync_expect(sock, CV_SYNC_CONTINUE, &m, &e);
	cv_sync_msg_release(&m);
	return r;
}

/* ---- the scripts ---- */

static int script_ok(int sock)
{
	send_msg(sock, CV_SYNC_LOG, CV_LOG_WARNING, "before the maps");
	send_msg(sock, CV_SYNC_NS_READY, 0, NULL);
	if (expect_continue(sock) < 0)
		return 2;
	send_msg(sock, CV_SYNC_LOG, CV_LOG_DEBUG, "after CONTINUE");
	send_msg(sock, CV_SYNC_READY, 0, NULL);
	return 0;
}

/* in a user namespace of its own: the wait writes its maps */
static int script_userns(int sock)
{
	if (unshare(CLONE_NEWUSER) < 0)
		return 3;
	send_msg(sock, CV_SYNC_NS_READY, 0, NULL);
	if (expect_continue(sock) < 0)
		return 2;
	/* mapped: our uid is the map's container id, 0 */
	send_msg(sock, CV_SYNC_READY, 0, NULL);
	return getuid() == 0 && getgid() == 0 ? 0 : 4;
}

static int script_error_before(int sock)
{
	send_msg(sock, CV_SYNC_ERROR, EACCES, "mount `/proc`: Permission denied");
	return 1;
}

static int script_error_after(int sock)
{
	send_msg(sock, CV_SYNC_READY, 0, NULL);
	send_msg(sock, CV_SYNC_ERROR, ENOENT, "exec `nothing`: No such file or directory");
	return 127;
}

static int script_unexpected(int sock)
{
	send_msg(sock, CV_SYNC_HOOKS, 0, NULL);
	/* waits for an answer that never comes, but its kill */
	struct cv_sync_msg m = { .fd = -1 };
	cleanup_error cv_error_t e = NULL;
	cv_sync_recv(sock, &m, &e);
	return 0;
}

static int script_silent(int sock)
{
	(void)sock;
	return 1;
}

static int script_chatty(int sock)
{
	char line[200];
	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "line %03d %0100d", i, 0);
		send_msg(sock, CV_SYNC_LOG, CV_LOG_INFO, line);
	}
	send_msg(sock, CV_SYNC_READY, 0, NULL);
	return 0;
}

/* ---- the tests ---- */

static int written;
static int write_and_exit(void *arg)
{
	written = *(const int *)arg;
	return 7;
}

static void clone_vm(void)
{
	struct cv_shared_launch s = { 0 };
	oci_linux none = { 0 };
	cleanup_error cv_error_t e = NULL;
	ok(cv_shared_launch_prepare(&s, &none, false, &e) == 1 && s.stack && s.nmaps == 0,
	   "prepare without a user namespace: a stack, no maps");
	int pidfd = -1, value = 42, st = 0;
	struct clone_args ca = { .pidfd = (uint64_t)(uintptr_t)&pidfd };
	pid_t pid = cv_shared_launch_clone(&s, &ca, write_and_exit, &value);
	ok(pid > 0 && pidfd >= 0, "the clone has a pid and a pidfd");
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7,
	   "the child ran the function on its stack and exited with its value");
	ok(written == 42, "in our memory: what it wrote is ours to read");
	if (pidfd >= 0)
		close(pidfd);
	cv_shared_launch_release(&s);
}

static struct cv_log_saved sink_saved(void)
{
	struct cv_log_saved saved;
	cv_log_set_sink(capture, NULL, CV_LOG_DEBUG);
	cv_log_save(&saved);
	/* what the container process does to the globals we share */
	cv_log_set_sink(NULL, NULL, 0);
	logged[0] = '\0';
	return saved;
}

static void handshake(void)
{
	struct cv_shared_launch s = { 0 };
	struct cv_log_saved saved = sink_saved();
	struct child c = start(script_ok);
	int st = wait_child(&c, &s);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "NS_READY is answered with CONTINUE");
	ok(s.ready && !s.error && !s.fail && !s.unexpected, "READY is kept, nothing else");
	cleanup_error cv_error_t e = NULL;
	ok(cv_shared_launch_result(&s, c.pid, &saved, &e) == 0, "the launch succeeded");
	is_str(logged, "1:before the maps|3:after CONTINUE|",
	       "the child's lines are logged afterwards, in order, "
	       "with their levels, through the sink put back");
	ok(cv_shared_launch_program(&s, &e) == 0, "its program started");
}

static void id_maps(void)
{
	struct cv_shared_launch s = { 0 };
	oci_id_mapping um = { .container_id = 0, .host_id = geteuid(), .size = 1 };
	oci_id_mapping gm = { .container_id = 0, .host_id = getegid(), .size = 1 };
	oci_linux linux_ = { .uid_mappings = { .v = &um, .len = 1 }, .gid_mappings = { .v = &gm, .len = 1 } };
	cleanup_error cv_error_t e = NULL;
	int r = cv_shared_launch_prepare(&s, &linux_, true, &e);
	ok(r == 1 && s.stack && s.nmaps == (geteuid() == 0 ? 2u : 3u),
	   "prepare: a stack, and the maps (setgroups too when unprivileged)");
	struct cv_log_saved saved = sink_saved();
	struct child c = start(script_userns);
	int st = wait_child(&c, &s);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the wait wrote the child's uid and gid maps before CONTINUE (%d)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	ok(cv_shared_launch_result(&s, c.pid, &saved, &e) == 0, "and it succeeded");
	cv_shared_launch_release(&s);
	ok(s.stack == NULL, "release unmaps the stack");

	oci_id_mapping many[40];
	for (int i = 0; i < 40; i++)
		many[i] = (oci_id_mapping){ .container_id = 1000000u * (unsigned)i, .host_id = 4000000000u, .size = 1 };
	oci_linux big = { .uid_mappings = { .v = many, .len = 40 }, .gid_mappings = { .v = &gm, .len = 1 } };
	if (geteuid() == 0)
		ok(cv_shared_launch_prepare(&s, &big, true, &e) == 0 && !s.stack,
		   "a map longer than its buffer: not shared (the caller forks)");
	else
		ok(cv_shared_launch_prepare(&s, &big, true, &e) == 0 && !s.stack,
		   "a map of more than our own id: not shared (newuidmap is the fork's)");
}

static void error_before(void)
{
	struct cv_shared_launch s = { 0 };
	struct cv_log_saved saved = sink_saved();
	struct child c = start(script_error_before);
	wait_child(&c, &s);
	cleanup_error cv_error_t e = NULL;
	ok(cv_shared_launch_result(&s, c.pid, &saved, &e) < 0 && e && e->errnum == EACCES &&
		   strcmp(e->msg, "mount `/proc`: Permission denied") == 0,
	   "an error before READY is the launch's, with the child's errno and message");
}

static void error_after(void)
{
	struct cv_shared_launch s = { 0 };
	struct cv_log_saved saved = sink_saved();
	struct child c = start(script_error_after);
	wait_child(&c, &s);
	cleanup_error cv_error_t e = NULL;
	ok(cv_shared_launch_result(&s, c.pid, &saved, &e) == 0, "an error after READY: the launch succeeded");
	ok(cv_shared_launch_program(&s, &e) < 0 && e && e->errnum == ENOENT && strstr(e->msg, "exec `nothing`") != NULL,
	   "but its program did not start: the child's error");
}

static void unexpected(void)
{
	struct cv_shared_launch s = { 0 };
	struct cv_log_saved saved = sink_saved();
	struct child c = start(script_unexpected);
	int st = wait_child(&c, &s);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "a message the wait cannot answer: the child is killed");
	cleanup_error cv_error_t e = NULL;
	ok(cv_shared_launch_result(&s, c.pid, &saved, &e) < 0 && e && e->errnum == EPROTO,
	   "and the launch fails (EPROTO)");
}

static void silent(void)
{
	struct cv_shared_launch s = { 0 };
	struct cv_log_saved saved = sink_saved();
	struct child c = start(script_silent);
	wait_child(&c, &s);
	cleanup_error cv_error_t e = NULL;
	ok(cv_shared_launch_result(&s, c.pid, &saved, &e) < 0 && e && e->errnum == EPIPE &&
		   strstr(e->msg, "exited unexpectedly"),
	   "an end of file without READY: exited unexpectedly");
}

static void chatty(void)
{
	struct cv_shared_launch s = { 0 };
	struct cv_log_saved saved = sink_saved();
	struct child c = start(script_chatty);
	wait_child(&c, &s);
	cleanup_error cv_error_t e = NULL;
	ok(s.log_cut && cv_shared_launch_result(&s, c.pid, &saved, &e) == 0,
	   "more lines than kept: the rest dropped, the launch unharmed");
	ok(strncmp(logged, "2:line 000 ", 11) == 0 && strstr(logged, "line 030") && !strstr(logged, "line 099"),
	   "the first lines are logged, the last dropped");
}

int main(void)
{
	clone_vm();
	handshake();
	id_maps();
	error_before();
	error_after();
	unexpected();
	silent();
	chatty();
	return tap_done();
}
