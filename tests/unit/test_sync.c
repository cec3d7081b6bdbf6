/* Unit tests for src/libcvisor/process/sync.c: the parent/child protocol of
 * create and exec, over a SOCK_SEQPACKET pair as the runtime makes it.
 * What a hostile or dying peer can send (a short header, an oversized
 * message, nothing at all) must come back as an error, never as a message. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "process/sync.h"
#include "tap.h"

static void pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		exit(1);
	}
}

static bool same_file(int a, int b)
{
	struct stat x, y;
	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

static void roundtrip(void)
{
	int sv[2];
	pair(sv);
	cleanup_close int a = sv[0], b = sv[1];
	cleanup_error cv_error_t e = NULL;
	struct cv_sync_msg m = { .fd = -1 };

	ok(cv_sync_send(a, CV_SYNC_CONTINUE, 7, "{\"pid\":1}", 9, -1, &e) == 0, "a message with a payload is sent");
	ok(cv_sync_expect(b, CV_SYNC_CONTINUE, &m, &e) == 0, "and received as the expected type");
	ok(m.errnum == 7 && m.len == 9 && m.payload && strcmp(m.payload, "{\"pid\":1}") == 0 && m.fd == -1,
	   "errnum, length and payload (NUL-terminated) arrive whole, no fd");
	cv_sync_msg_release(&m);

	cleanup_close int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ok(cv_sync_send(a, CV_SYNC_CONSOLE, 0, NULL, 0, devnull, &e) == 0, "a message carrying an fd is sent");
	ok(cv_sync_recv(b, &m, &e) == 0 && m.type == CV_SYNC_CONSOLE && m.len == 0, "and received");
	ok(m.fd >= 0 && m.fd != devnull && same_file(m.fd, devnull), "the fd received is a new one on the same file");
	ok(m.fd >= 0 && (fcntl(m.fd, F_GETFD) & FD_CLOEXEC), "received close-on-exec");
	cv_sync_msg_release(&m);
	ok(m.fd == -1 && m.payload == NULL, "release closes the fd and frees the payload");
}

/* Each message's buffer is sized to it (the length peeked first): two
 * queued messages of different sizes, an fd with the second, arrive each
 * whole, the first taking nothing of the second. */
static void sized(void)
{
	int sv[2];
	pair(sv);
	cleanup_close int a = sv[0], b = sv[1];
	cleanup_error cv_error_t e = NULL;
	struct cv_sync_msg m = { .fd = -1 };
	static char big[100000];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);

	cleanup_close int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ok(cv_sync_send(a, CV_SYNC_HOOKS, 0, big, sizeof(big), -1, &e) == 0, "sent 100000 bytes");
	ok(cv_sync_send(a, CV_SYNC_CONSOLE, 3, "x", 1, devnull, &e) == 0, "then 1 byte with an fd");
	ok(cv_sync_recv(b, &m, &e) == 0 && m.type == CV_SYNC_HOOKS && m.len == sizeof(big) && m.fd == -1,
	   "the first arrives with its length (%u) and no fd", m.len);
	ok(m.payload && memcmp(m.payload, big, sizeof(big)) == 0 && m.payload[sizeof(big)] == '\0',
	   "its bytes whole, NUL-terminated");
	cv_sync_msg_release(&m);
	ok(cv_sync_recv(b, &m, &e) == 0 && m.type == CV_SYNC_CONSOLE && m.errnum == 3 && m.len == 1 && m.payload &&
		   strcmp(m.payload, "x") == 0,
	   "the second arrives whole after it");
	ok(m.fd >= 0 && same_file(m.fd, devnull), "with its fd");
	cv_sync_msg_release(&m);
	ok(cv_sync_send(a, CV_SYNC_READY, 0, NULL, 0, -1, &e) == 0 && cv_sync_recv(b, &m, &e) == 0 &&
		   m.type == CV_SYNC_READY && m.len == 0 && m.payload && m.payload[0] == '\0',
	   "a header alone has an empty payload");
	cv_sync_msg_release(&m);
}

static void errors(void)
{
	int sv[2];
	pair(sv);
	cleanup_close int a = sv[0], b = sv[1];
	cleanup_error cv_error_t e = NULL, child = NULL;
	struct cv_sync_msg m = { .fd = -1 };

	cv_error(&child, EACCES, "mount /proc on /rootfs/proc");
	cv_sync_send_error(a, child);
	ok(cv_sync_expect(b, CV_SYNC_READY, &m, &e) < 0 && e, "an error message fails the wait for another type");
	ok(e && e->errnum == EACCES && strstr(e->msg, "mount /proc on /rootfs/proc"),
	   "with the child's errno and its message, context kept (%s)", e ? e->msg : "");
	ok(m.payload == NULL && m.fd == -1, "the message is released");
	cv_error_release(&e);

	ok(cv_sync_send(a, CV_SYNC_HOOKS, 0, NULL, 0, -1, &e) == 0, "sent HOOKS");
	ok(cv_sync_expect(b, CV_SYNC_READY, &m, &e) < 0 && e && e->errnum == EPROTO &&
		   strstr(e->msg, "unexpected message"),
	   "another type than the expected one is EPROTO (%s)", e ? e->msg : "");
	cv_error_release(&e);

	static char big[CV_SYNC_MAX_PAYLOAD + 1];
	ok(cv_sync_send(a, CV_SYNC_CONTINUE, 0, big, sizeof(big), -1, &e) < 0 && e && e->errnum == EMSGSIZE,
	   "a payload over the bound is refused on send");
	cv_error_release(&e);

	/* a peer that is not ours: a short header, then a message larger than
	 * any the protocol has (truncated by the kernel: MSG_TRUNC) */
	char three[3] = { 1, 2, 3 };
	ok(send(a, three, sizeof(three), 0) == 3, "sent a 3-byte datagram");
	ok(cv_sync_recv(b, &m, &e) < 0 && e && e->errnum == EPROTO, "a short header is malformed, not a message");
	cv_error_release(&e);
	static char huge[CV_SYNC_MAX_PAYLOAD + 64];
	int size = 1 << 20;
	/* more than the default send buffer: root may force it */
	if (setsockopt(a, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(a, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (send(a, huge, sizeof(huge), 0) != (ssize_t)sizeof(huge)) {
		ok(errno == EMSGSIZE, "# SKIP the send buffer cannot hold an oversized datagram (%s)", strerror(errno));
	} else {
		ok(cv_sync_recv(b, &m, &e) < 0 && e && e->errnum == EPROTO,
		   "an oversized message is malformed, not cut short (%s)", e ? e->msg : "");
		ok(m.payload == NULL && m.fd == -1, "and nothing of it is kept");
	}
	cv_error_release(&e);
}

static void eof(void)
{
	int sv[2];
	pair(sv);
	cleanup_close int b = sv[1];
	cleanup_error cv_error_t e = NULL;
	struct cv_sync_msg m = { .fd = -1 };

	close(sv[0]);
	ok(cv_sync_recv(b, &m, &e) < 0 && e && e->errnum == EPIPE && strstr(e->msg, "exited unexpectedly"),
	   "the peer gone is an error: %s", e ? e->msg : "");
}

static void prefer_child_error(void)
{
	int sv[2];
	pair(sv);
	cleanup_close int a = sv[0], b = sv[1];
	cleanup_error cv_error_t ours = NULL, child = NULL;

	cv_error(&ours, ESRCH, "read the start time of pid 42");
	cv_sync_prefer_child_error(b, &ours);
	ok(ours && ours->errnum == ESRCH, "nothing waiting: our error stays, and the call did not block");

	cv_error(&child, EINVAL, "linux.sysctl: \"net.ipv4.ip_forward\" needs its own network namespace");
	cv_sync_send_error(a, child);
	cv_sync_prefer_child_error(b, &ours);
	ok(ours && ours->errnum == EINVAL && strstr(ours->msg, "linux.sysctl"),
	   "the child's waiting error replaces the symptom (%s)", ours ? ours->msg : "");

	cleanup_error cv_error_t e = NULL;
	ok(cv_sync_send(a, CV_SYNC_READY, 0, NULL, 0, -1, &e) == 0, "sent READY");
	cv_sync_prefer_child_error(b, &ours);
	ok(ours && ours->errnum == EINVAL, "a waiting message that is no error leaves ours");
}

static void plain(void)
{
	int sv[2];
	pair(sv);
	cleanup_close int a = sv[0], b = sv[1];
	cleanup_error cv_error_t e = NULL;

	ok(cv_sync_write_plain(a, CV_SYNC_SECCOMP, 5, &e) == 0, "a header-only message through write(2)");
	ok(cv_sync_read_plain(b, CV_SYNC_SECCOMP, &e) == 0, "read back through read(2)");
	ok(cv_sync_write_plain(a, CV_SYNC_START, 0, &e) == 0, "sent START");
	ok(cv_sync_read_plain(b, CV_SYNC_SECCOMP, &e) < 0 && e && e->errnum == EPROTO, "another type is EPROTO (%s)",
	   e ? e->msg : "");
	cv_error_release(&e);
	ok(cv_sync_write_plain(a, CV_SYNC_ERROR, EPERM, &e) == 0, "sent ERROR");
	ok(cv_sync_read_plain(b, CV_SYNC_SECCOMP, &e) < 0 && e && e->errnum == EPERM, "an error carries its errno");
	cv_error_release(&e);
	close(a);
	a = -1;
	ok(cv_sync_read_plain(b, CV_SYNC_SECCOMP, &e) < 0 && e && e->errnum == EPIPE, "the peer gone is EPIPE");
}

int main(void)
{
	roundtrip();
	sized();
	errors();
	eof();
	prefer_child_error();
	plain();
	return tap_done();
}
