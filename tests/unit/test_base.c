/* base: error objects (error.h), whole reads and writes (io.h), unix
 * sockets and fd passing (unix-socket.h), the monotonic clock (clock.h).
 *
 * Linked with -Wl,--wrap=calloc: fail_calloc makes the next calloc fail,
 * for the error module's out-of-memory fallback. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "error.h"
#include "io.h"
#include "tap.h"
#include "unix-socket.h"

static bool fail_calloc;
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_calloc) {
		fail_calloc = false;
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

static char tmpdir[] = "/tmp/cvisor-test-base-XXXXXX";

/* ---- error.h ---- */

static void test_error(void)
{
	cv_error_t err = NULL;

	ok(cv_error(&err, ENOENT, "open `%s`", "/x") == -ENOENT, "cv_error returns -errnum");
	is_str(err ? err->msg : NULL, "open `/x`: No such file or directory", "the message ends in strerror");
	ok(err && err->errnum == ENOENT, "the errno is kept");

	ok(cv_error(&err, 0, "bad value %d", 7) == -1, "errnum 0: returns -1");
	is_str(err ? err->msg : NULL, "bad value 7", "errnum 0: the message as formatted (the old error replaced)");
	ok(err && err->errnum == 0, "errnum 0 kept");

	ok(cv_error_plain(&err, ENOENT, "container \"%s\" does not exist", "c") == -ENOENT,
	   "cv_error_plain returns -errnum");
	is_str(err ? err->msg : NULL, "container \"c\" does not exist", "cv_error_plain appends nothing");
	ok(err && err->errnum == ENOENT, "cv_error_plain keeps the errno");

	errno = EACCES;
	ok(cv_error_errno(&err, "write `%s`", "f") == -EACCES, "cv_error_errno takes errno");
	is_str(err ? err->msg : NULL, "write `f`: Permission denied", "cv_error_errno message");

	ok(cv_error_prefix(&err, "container \"%s\"", "c") == -EACCES, "cv_error_prefix returns the error's value");
	is_str(err ? err->msg : NULL, "container \"c\": write `f`: Permission denied", "cv_error_prefix prepends");
	ok(cv_error_ret(err) == -EACCES, "cv_error_ret");

	cv_error_t other = NULL;
	cv_error_move(&other, &err);
	ok(err == NULL && other && other->errnum == EACCES, "cv_error_move hands the error over");
	cv_error_release(&other);
	ok(other == NULL, "cv_error_release clears the pointer");
	cv_error_release(&other); /* twice: a no-op */

	ok(cv_error_prefix(&err, "nothing") == -1 && err == NULL, "cv_error_prefix without an error: -1, none made");
	ok(cv_error(NULL, EIO, "ignored") == -EIO, "no error object asked for: only the value");
	ok(cv_error_ret(NULL) == -1, "cv_error_ret(NULL) is -1");

	/* out of memory: the static fallback, never NULL, never freed */
	fail_calloc = true;
	ok(cv_error(&err, EINVAL, "lost %s", "message") == -EINVAL, "OOM: still returns -errnum");
	ok(err && err->errnum == ENOMEM, "OOM: an error with ENOMEM");
	is_str(err ? err->msg : NULL, "out of memory", "OOM: a static message");
	cv_error_t oom = err;
	ok(cv_error_prefix(&err, "ctx") == -ENOMEM && err == oom, "OOM: prefixing leaves the static error alone");
	is_str(err ? err->msg : NULL, "out of memory", "OOM: the message is unchanged");
	cv_error_release(&err);
	ok(err == NULL, "OOM: released (not freed)");
	ok(cv_error(&err, E2BIG, "after") == -E2BIG && err && err != oom &&
		   strcmp(err->msg, "after: Argument list too long") == 0,
	   "after OOM: errors are allocated again");
	cv_error_release(&err);
}

/* ---- io.h ---- */

static int tmpfile_with(const char *name, const char *data, size_t len)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || cv_write_all(fd, data, len) < 0)
		return -1;
	close(fd);
	return 0;
}

static int count_dir(const char *dir)
{
	cleanup_dir DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	return n;
}

static int count_fds(void)
{
	return count_dir("/proc/self/fd") - 1; /* the directory's own */
}

static void test_read_buf(void)
{
	char buf[8];
	int p[2];

	ok(pipe2(p, O_CLOEXEC) == 0, "pipe");
	ok(write(p[1], "abc", 3) == 3, "write 3 bytes");
	close(p[1]);
	ok(cv_read_buf(p[0], buf, sizeof(buf)) == 3 && strcmp(buf, "abc") == 0,
	   "cv_read_buf reads to EOF, NUL-terminated");
	close(p[0]);

	ok(pipe2(p, O_CLOEXEC) == 0 && write(p[1], "1234567", 7) == 7, "7 bytes for an 8-byte buffer");
	close(p[1]);
	ok(cv_read_buf(p[0], buf, sizeof(buf)) == 7 && strcmp(buf, "1234567") == 0, "exactly SIZE - 1 bytes fit");
	close(p[0]);

	ok(pipe2(p, O_CLOEXEC) == 0 && write(p[1], "12345678", 8) == 8, "8 bytes for an 8-byte buffer");
	close(p[1]);
	ok(cv_read_buf(p[0], buf, sizeof(buf)) == -EFBIG, "one byte more: -EFBIG, not a silent truncation");
	close(p[0]);

	ok(cv_read_buf_at(AT_FDCWD, "/nonexistent/x", buf, sizeof(buf)) == -ENOENT,
	   "cv_read_buf_at: -errno of the open");
	char status[4096];
	ssize_t n = cv_read_buf_at(AT_FDCWD, "/proc/self/status", status, sizeof(status));
	ok(n > 0 && strstr(status, "Pid:") != NULL, "cv_read_buf_at reads a procfs file (size 0 in stat)");
}

static void test_read_file(void)
{
	cleanup_close int dfd = open(tmpdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cv_error_t err = NULL;
	char *data = NULL;
	size_t len = 99;

	ok(tmpfile_with("empty", "", 0) == 0, "an empty file");
	ok(cv_read_file_at(dfd, "empty", 16, CV_READ_REGULAR, &data, &len, &err) == 0 && len == 0 && data &&
		   data[0] == '\0',
	   "an empty file reads as \"\"");
	free(data);

	ok(tmpfile_with("sixteen", "0123456789abcdef", 16) == 0, "a 16-byte file");
	ok(cv_read_file_at(dfd, "sixteen", 16, CV_READ_REGULAR, &data, &len, &err) == 0 && len == 16 &&
		   strcmp(data, "0123456789abcdef") == 0,
	   "a file of exactly the limit is read whole");
	free(data);
	data = NULL;
	ok(cv_read_file_at(dfd, "sixteen", 15, 0, &data, &len, &err) < 0 && err && err->errnum == EFBIG && !data,
	   "one byte over the limit is refused");
	is_str(err ? err->msg : NULL, "`sixteen`: too large (16 bytes, the limit is 15 bytes)",
	       "the message names file, size and limit");
	cv_error_release(&err);

	ok(cv_read_file_at(AT_FDCWD, "/nonexistent/config.json", 16, 0, &data, &len, &err) < 0 && err &&
		   err->errnum == ENOENT,
	   "a missing file: ENOENT");
	is_str(err ? err->msg : NULL, "open `/nonexistent/config.json`: No such file or directory",
	       "the message names the path");
	cv_error_release(&err);

	ok(cv_read_file_at(AT_FDCWD, tmpdir, 16, CV_READ_REGULAR, &data, &len, &err) < 0 && err,
	   "a directory is refused");
	ok(err && strstr(err->msg, ": not a regular file"), "... as not a regular file: %s", err ? err->msg : "");
	cv_error_release(&err);

	char fifo[256];
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	ok(mkfifo(fifo, 0600) == 0, "a FIFO");
	/* no writer: a blocking open would hang here */
	ok(cv_read_file_at(AT_FDCWD, fifo, 16, CV_READ_REGULAR, &data, &len, &err) < 0 && err &&
		   strstr(err->msg, "not a regular file"),
	   "CV_READ_REGULAR refuses a FIFO without blocking on it");
	cv_error_release(&err);

	char link[256];
	snprintf(link, sizeof(link), "%s/link", tmpdir);
	ok(symlink("sixteen", link) == 0, "a symlink to the 16-byte file");
	ok(cv_read_file_at(dfd, "link", 16, 0, &data, &len, &err) == 0 && len == 16, "followed by default");
	free(data);
	ok(cv_read_file_at(dfd, "link", 16, CV_READ_NOFOLLOW, &data, &len, &err) < 0 && err && err->errnum == ELOOP,
	   "CV_READ_NOFOLLOW refuses it (ELOOP)");
	cv_error_release(&err);

	/* a large regular file in one go, and a pipe growing the buffer */
	size_t big = 3 * 65536 + 17;
	char *src = malloc(big);
	for (size_t i = 0; i < big; i++)
		src[i] = (char)('a' + i % 26);
	ok(tmpfile_with("big", src, big) == 0, "a %zu-byte file", big);
	ok(cv_read_file_at(dfd, "big", 1 << 20, CV_READ_REGULAR, &data, &len, &err) == 0 && len == big &&
		   memcmp(data, src, big) == 0,
	   "read whole and intact");
	free(data);

	int p[2];
	ok(pipe2(p, O_CLOEXEC) == 0, "pipe");
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(cv_write_all(p[1], src, big) == 0 ? 0 : 1);
	}
	close(p[1]);
	ok(cv_read_fd(p[0], "the pipe", 1 << 20, &data, &len, &err) == 0 && len == big && memcmp(data, src, big) == 0,
	   "cv_read_fd: a pipe of unknown size, read whole");
	free(data);
	close(p[0]);
	waitpid(pid, NULL, 0);

	ok(pipe2(p, O_CLOEXEC) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(cv_write_all(p[1], src, big) == 0 ? 0 : 1);
	}
	close(p[1]);
	data = NULL;
	ok(cv_read_fd(p[0], "the pipe", 65536, &data, &len, &err) < 0 && err && err->errnum == EFBIG && !data,
	   "cv_read_fd: a pipe over the limit is refused");
	is_str(err ? err->msg : NULL, "the pipe: too large (the limit is 64 KiB)",
	       "the message names WHAT and the limit");
	cv_error_release(&err);
	close(p[0]);
	waitpid(pid, NULL, 0); /* the writer got EPIPE */
	free(src);
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* EINTR and short transfers: a timer interrupts every few milliseconds
 * (no SA_RESTART) while the read or write is blocked on a slow peer. */
static void test_interrupted(void)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval every = { { 0, 3000 }, { 0, 3000 } }, stop = { 0 };
	size_t big = 1 << 20;
	char *src = malloc(big);
	char *data = NULL;
	size_t len = 0;
	cv_error_t err = NULL;
	int p[2], status = -1;

	for (size_t i = 0; i < big; i++)
		src[i] = (char)(i * 7);
	sigaction(SIGALRM, &sa, &old);

	/* read: the writer starts 100 ms late */
	ok(pipe2(p, O_CLOEXEC) == 0, "pipe");
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		usleep(100000);
		_exit(cv_write_all(p[1], src, big) == 0 ? 0 : 1);
	}
	close(p[1]);
	alarms = 0;
	setitimer(ITIMER_REAL, &every, NULL);
	int r = cv_read_fd(p[0], "the pipe", big, &data, &len, &err);
	setitimer(ITIMER_REAL, &stop, NULL);
	ok(r == 0 && len == big && memcmp(data, src, big) == 0, "cv_read_fd gets everything through %d interrupts",
	   (int)alarms);
	ok(alarms > 0, "the read was interrupted");
	free(data);
	cv_error_release(&err);
	close(p[0]);
	waitpid(pid, NULL, 0);

	/* write: the reader starts 100 ms late; the pipe fills, the write
	 * blocks and returns short or EINTR at each interrupt */
	ok(pipe2(p, O_CLOEXEC) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		char *got = NULL;
		size_t n = 0;
		close(p[1]);
		usleep(100000);
		_exit(cv_read_fd(p[0], "pipe", big, &got, &n, NULL) == 0 && n == big && memcmp(got, src, big) == 0 ? 0
														   : 1);
	}
	close(p[0]);
	alarms = 0;
	setitimer(ITIMER_REAL, &every, NULL);
	r = cv_write_all(p[1], src, big);
	setitimer(ITIMER_REAL, &stop, NULL);
	close(p[1]);
	waitpid(pid, &status, 0);
	ok(r == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "cv_write_all delivers every byte through %d interrupts", (int)alarms);
	ok(alarms > 0, "the write was interrupted");
	sigaction(SIGALRM, &old, NULL);

	ok(pipe2(p, O_CLOEXEC) == 0, "pipe");
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	ok(cv_write_all(p[1], "x", 1) == -EPIPE, "cv_write_all: -errno on failure (EPIPE)");
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
	free(src);
}

static void test_write_atomic(void)
{
	char dir[256], path[512];
	cleanup_close int dfd = -1;
	cv_error_t err = NULL;
	struct stat st;
	char buf[64];

	snprintf(dir, sizeof(dir), "%s/atomic", tmpdir);
	ok(mkdir(dir, 0700) == 0, "a directory");
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	umask(022);

	ok(cv_write_file_atomic(dfd, "state.json", "{\"a\":1}", 7, 0600, &err) == 0, "a new file");
	snprintf(path, sizeof(path), "%s/state.json", dir);
	ok(cv_read_buf_at(AT_FDCWD, path, buf, sizeof(buf)) == 7 && strcmp(buf, "{\"a\":1}") == 0, "holds the data");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "with the mode asked for (%o)", st.st_mode & 07777);
	ok(cv_write_file_atomic(dfd, "state.json", "{}", 2, 0644, &err) == 0, "replaced");
	ok(cv_read_buf_at(AT_FDCWD, path, buf, sizeof(buf)) == 2 && strcmp(buf, "{}") == 0, "holds the new data only");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644, "the new file's mode (%o)", st.st_mode & 07777);
	ok(count_dir(dir) == 1, "no temporary file left behind");

	/* a symlink in its place is replaced, never followed */
	char outside[512], link[512];
	snprintf(outside, sizeof(outside), "%s/outside", tmpdir);
	snprintf(link, sizeof(link), "%s/pid", dir);
	ok(tmpfile_with("outside", "keep", 4) == 0 && symlink(outside, link) == 0, "a symlink to a file outside");
	ok(cv_write_file_atomic(dfd, "pid", "42", 2, 0644, &err) == 0, "written over the symlink");
	ok(lstat(link, &st) == 0 && S_ISREG(st.st_mode), "the symlink itself was replaced by the file");
	ok(cv_read_buf_at(AT_FDCWD, outside, buf, sizeof(buf)) == 4 && strcmp(buf, "keep") == 0,
	   "its target untouched");

	ok(cv_write_file_atomic(dfd, "nodir/x", "x", 1, 0600, &err) < 0 && err && err->errnum == ENOENT,
	   "a missing directory: ENOENT");
	ok(err && strstr(err->msg, "`nodir/x`"), "the error names the file: %s", err ? err->msg : "");
	cv_error_release(&err);
	char longname[NAME_MAX + 2];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ok(cv_write_file_atomic(dfd, longname, "x", 1, 0600, &err) < 0 && err, "a name over NAME_MAX fails");
	cv_error_release(&err);
	char sub[512];
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	ok(mkdir(sub, 0700) == 0, "a directory where the file should go");
	ok(cv_write_file_atomic(dfd, "sub", "x", 1, 0600, &err) < 0 && err && err->errnum == EISDIR,
	   "the rename fails (EISDIR)");
	cv_error_release(&err);
	ok(count_dir(dir) == 3, "nothing left behind by the failures (the temporary file removed)");
}

/* ---- unix-socket.h ---- */

static bool same_file(int a, int b)
{
	struct stat sa, sb;
	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void test_fd_passing(void)
{
	int sv[2], p[2], fd = -1;
	char buf[64] = "";
	struct iovec iov = { buf, sizeof(buf) - 1 };

	ok(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0 && pipe2(p, O_CLOEXEC) == 0, "socketpair, pipe");
	struct iovec out = { (void *)"hello", 5 };
	ok(cv_send_fd(sv[0], &out, 1, p[1]) == 0, "cv_send_fd: a stream socket, one fd");
	ssize_t n = cv_recv_fd(sv[1], &iov, 1, &fd);
	ok(n == 5 && memcmp(buf, "hello", 5) == 0, "the bytes arrive");
	ok(fd >= 0 && same_file(fd, p[1]), "the fd arrives, the same pipe");
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "received close-on-exec");
	if (fd >= 0)
		close(fd);

	ok(cv_send_fd(sv[0], &out, 1, -1) == 0, "no fd");
	memset(buf, 0, sizeof(buf));
	n = cv_recv_fd(sv[1], &iov, 1, &fd);
	ok(n == 5 && fd == -1, "bytes only, *fd is -1");
	close(sv[0]);
	close(sv[1]);

	/* seqpacket: two buffers, one message, and one too big for the receiver */
	ok(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0, "seqpacket socketpair");
	uint32_t hdr = 7;
	struct iovec two[2] = { { &hdr, sizeof(hdr) }, { (void *)"payload", 7 } };
	ok(cv_send_fd(sv[0], two, 2, p[0]) == 0, "two buffers and an fd");
	uint32_t rhdr = 0;
	char pay[16] = "";
	struct iovec in2[2] = { { &rhdr, sizeof(rhdr) }, { pay, sizeof(pay) } };
	n = cv_recv_fd(sv[1], in2, 2, &fd);
	ok(n == 11 && rhdr == 7 && memcmp(pay, "payload", 7) == 0 && fd >= 0 && same_file(fd, p[0]),
	   "one message: header, payload, fd");
	if (fd >= 0)
		close(fd);

	int before = count_fds();
	ok(cv_send_fd(sv[0], two, 2, p[0]) == 0, "the same again");
	struct iovec small = { &rhdr, 2 };
	ok(cv_recv_fd(sv[1], &small, 1, &fd) == -EMSGSIZE && fd == -1, "a receiver too small: -EMSGSIZE, no fd");
	ok(count_fds() == before, "the fd that came with it is closed (%d fds, %d before)", count_fds(), before);

	/* a peer sending two fds: one kept, the other closed */
	union {
		char b[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof(u));
	struct msghdr mh = { .msg_iov = two, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(c), p, 2 * sizeof(int));
	ok(sendmsg(sv[0], &mh, 0) == (ssize_t)sizeof(hdr), "a message with two fds");
	before = count_fds();
	n = cv_recv_fd(sv[1], in2, 2, &fd);
	ok(n == (ssize_t)sizeof(hdr) && fd >= 0 && same_file(fd, p[0]), "the first fd kept");
	ok(count_fds() == before + 1, "the second one closed, not leaked");
	if (fd >= 0)
		close(fd);

	close(sv[0]);
	ok(cv_recv_fd(sv[1], in2, 2, &fd) == 0 && fd == -1, "EOF: 0");
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static void test_unix_connect(void)
{
	cv_error_t err = NULL;
	char path[256], longpath[200];
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	ok(cv_unix_connect(longpath, &err) < 0 && err && err->errnum == ENAMETOOLONG,
	   "a path over sun_path: ENAMETOOLONG");
	cv_error_release(&err);

	snprintf(path, sizeof(path), "%s/none.sock", tmpdir);
	ok(cv_unix_connect(path, &err) < 0 && err && err->errnum == ENOENT, "nothing there: ENOENT");
	ok(err && strncmp(err->msg, "connect to `", 12) == 0 && strstr(err->msg, "none.sock`"),
	   "the error names the socket: %s", err ? err->msg : "");
	cv_error_release(&err);

	snprintf(path, sizeof(path), "%s/recv.sock", tmpdir);
	strcpy(addr.sun_path, path);
	cleanup_close int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok(l >= 0 && bind(l, (struct sockaddr *)&addr, sizeof(addr)) == 0 && listen(l, 1) == 0, "a listening socket");
	int p[2];
	ok(pipe2(p, O_CLOEXEC) == 0, "pipe");
	ok(cv_fd_send_to_socket(path, p[1], "pidfd", &err) == 0, "cv_fd_send_to_socket");
	cleanup_close int a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	char name[16] = "";
	struct iovec iov = { name, sizeof(name) - 1 };
	int fd = -1;
	ok(a >= 0 && cv_recv_fd(a, &iov, 1, &fd) == 5 && strcmp(name, "pidfd") == 0 && fd >= 0 && same_file(fd, p[1]),
	   "the receiver gets the name and the fd");
	if (fd >= 0)
		close(fd);
	close(p[0]);
	close(p[1]);
}

/* ---- clock.h ---- */

static void test_clock(void)
{
	uint64_t a = cv_now_ns(), ms = cv_now_ms();
	usleep(20000);
	uint64_t b = cv_now_ns();
	ok(b >= a + 20000000u, "cv_now_ns advances at least by a 20 ms sleep (%llu ns)", (unsigned long long)(b - a));
	ok(ms >= a / 1000000u && ms <= b / 1000000u, "cv_now_ms is the same clock in milliseconds");
}

/* cv_closep by hand leaves -1: a second call (a loop, the cleanup at the
 * end of the scope) must not close the number again, which by then may be
 * another thread's fd (the sandbox API's runs did, under threads). */
static void test_closep(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		ok(0, "pipe2");
		return;
	}
	int fd = p[0];
	cv_closep(&fd);
	ok(fd == -1, "cv_closep sets the fd to -1 (%d)", fd);
	int reused = dup(p[1]); /* the lowest free number: p[0]'s */
	ok(reused == p[0], "the number is reused (%d, %d)", reused, p[0]);
	cv_closep(&fd);
	ok(fcntl(reused, F_GETFD) >= 0, "a second cv_closep leaves the new fd open");
	errno = EINTR;
	cv_closep(&reused);
	ok(errno == EINTR, "cv_closep keeps errno");
	close(p[1]);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		ok(0, "mkdtemp");
		return tap_done();
	}
	test_error();
	test_read_buf();
	test_read_file();
	test_interrupted();
	test_write_atomic();
	test_fd_passing();
	test_unix_connect();
	test_clock();
	test_closep();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		ok(0, "remove %s", tmpdir);
	return tap_done();
}
