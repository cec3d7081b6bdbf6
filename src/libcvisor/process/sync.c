#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"
#include "unix-socket.h"
#include "process/sync.h"

struct hdr {
	uint32_t type;
	int32_t errnum;
};

int cv_sync_send(int sock, uint32_t type, int errnum, const void *payload, size_t len, int fd, cv_error_t *err)
{
	struct hdr h = { type, errnum };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, len } };
	int r;

	if (len > CV_SYNC_MAX_PAYLOAD)
		return cv_error(err, EMSGSIZE, "sync: message of %zu bytes", len);
	if ((r = cv_send_fd(sock, iov, payload && len ? 2 : 1, fd)) < 0)
		return cv_error(err, -r, "sync: send");
	return 0;
}

void cv_sync_log_sink(int level, const char *msg, void *data)
{
	int sock = *(const int *)data;
	struct hdr h = { CV_SYNC_LOG, level };
	size_t len = strlen(msg);
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)msg, len > 4096 ? 4096 : len } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	/* never waits: a parent that stopped reading loses the line */
	(void)sendmsg(sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void cv_sync_send_error(int sock, cv_error_t e)
{
	const char *msg = e && e->msg ? e->msg : "unknown error";
	size_t len = strlen(msg);
	if (len > CV_SYNC_MAX_PAYLOAD)
		len = CV_SYNC_MAX_PAYLOAD;
	/* Best effort: if the parent is gone there is nobody to tell. */
	(void)cv_sync_send(sock, CV_SYNC_ERROR, e ? e->errnum : 0, msg, len, -1, NULL);
}

/* The next message's whole length, left queued (MSG_TRUNC: a datagram's
 * real length, SOCK_SEQPACKET included), or -errno; 0 at end of file. A
 * buffer of the largest payload for every message was a fresh 256 KB of
 * heap each time: page faults in both processes, to hold a few bytes. */
static ssize_t peek_len(int sock)
{
	struct hdr h;
	struct iovec iov = { &h, sizeof(h) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;
	do
		n = recvmsg(sock, &mh, MSG_PEEK | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int cv_sync_recv(int sock, struct cv_sync_msg *m, cv_error_t *err)
{
	struct hdr h;
	ssize_t n;

	m->fd = -1;
	m->payload = NULL;
	m->len = 0;
	n = peek_len(sock);
	if (n < 0)
		return cv_error(err, (int)-n, "sync: receive");
	if (n == 0)
		return cv_error(err, EPIPE, "container process exited unexpectedly");
	/* a larger one is cut here, and refused below as before */
	size_t size = (size_t)n > sizeof(h) ? (size_t)n - sizeof(h) : 0;
	if (size > CV_SYNC_MAX_PAYLOAD)
		size = CV_SYNC_MAX_PAYLOAD;
	cleanup_free char *payload = malloc(size + 1);
	struct iovec iov[2] = { { &h, sizeof(h) }, { payload, size } };
	if (!payload)
		return cv_error(err, ENOMEM, "sync: receive");
	n = cv_recv_fd(sock, iov, 2, &m->fd);
	if (n == -EMSGSIZE)
		return cv_error(err, EPROTO, "sync: malformed message");
	if (n < 0)
		return cv_error(err, (int)-n, "sync: receive");
	if (n == 0)
		return cv_error(err, EPIPE, "container process exited unexpectedly");
	if ((size_t)n < sizeof(h)) {
		if (m->fd >= 0)
			close(m->fd);
		m->fd = -1;
		return cv_error(err, EPROTO, "sync: malformed message");
	}
	m->type = h.type;
	m->errnum = h.errnum;
	m->len = (uint32_t)(n - sizeof(h));
	payload[m->len] = '\0';
	m->payload = steal_pointer(&payload);
	return 0;
}

void cv_sync_prefer_child_error(int sock, cv_error_t *err)
{
	struct pollfd pf = { sock, POLLIN, 0 };
	struct cv_sync_msg m = { .fd = -1 };
	cv_error_t e = NULL;

	/* what is queued only: the child's lines first, then maybe its error */
	while (sock >= 0 && poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN)) {
		if (cv_sync_recv(sock, &m, &e) < 0) {
			cv_error_release(&e);
			return;
		}
		if (m.type == CV_SYNC_LOG) {
			cv_log(m.errnum < CV_LOG_ERROR   ? CV_LOG_ERROR
			       : m.errnum > CV_LOG_DEBUG ? CV_LOG_DEBUG
							 : m.errnum,
			       "%s", m.payload ? m.payload : "");
			cv_sync_msg_release(&m);
			continue;
		}
		if (m.type == CV_SYNC_ERROR) {
			cv_sync_msg_error(&m, "sync", &e);
			cv_error_move(err, &e);
		}
		cv_sync_msg_release(&m);
		return;
	}
}

int cv_sync_recv_logged(int sock, struct cv_sync_msg *m, cv_error_t *err)
{
	for (;;) {
		int r = cv_sync_recv(sock, m, err);
		if (r < 0 || m->type != CV_SYNC_LOG)
			return r;
		int level = m->errnum < CV_LOG_ERROR   ? CV_LOG_ERROR
			    : m->errnum > CV_LOG_DEBUG ? CV_LOG_DEBUG
						       : m->errnum;
		cv_log(level, "%s", m->payload ? m->payload : "");
		cv_sync_msg_release(m);
	}
}

int cv_sync_expect(int sock, uint32_t type, struct cv_sync_msg *m, cv_error_t *err)
{
	int r = cv_sync_recv_logged(sock, m, err);
	if (r < 0)
		return r;
	if (m->type != type)
		return cv_sync_msg_error(m, "sync", err);
	return 0;
}

int cv_sync_msg_error(struct cv_sync_msg *m, const char *who, cv_error_t *err)
{
	int r;
	if (m->type == CV_SYNC_ERROR)
		/* the child's message already carries its context and strerror */
		r = cv_error_plain(err, m->errnum > 0 ? m->errnum : 0, "%s", m->payload ? m->payload : "unknown error");
	else
		r = cv_error(err, EPROTO, "%s: unexpected message %u", who, m->type);
	cv_sync_msg_release(m);
	return r;
}

void cv_sync_msg_release(struct cv_sync_msg *m)
{
	free(m->payload);
	m->payload = NULL;
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}

int cv_sync_write_plain(int sock, uint32_t type, int errnum, cv_error_t *err)
{
	struct hdr h = { type, errnum };
	ssize_t n;
	do
		n = write(sock, &h, sizeof(h));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(h))
		return cv_error_errno(err, "sync: send");
	return 0;
}

int cv_sync_read_plain(int sock, uint32_t type, cv_error_t *err)
{
	struct hdr h;
	ssize_t n;
	do
		n = read(sock, &h, sizeof(h));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return cv_error_errno(err, "sync: receive");
	if (n != (ssize_t)sizeof(h))
		return cv_error(err, EPIPE, "sync: the runtime went away");
	if (h.type == CV_SYNC_ERROR)
		return cv_error(err, h.errnum > 0 ? h.errnum : EIO, "sync: the runtime failed");
	if (h.type != type)
		return cv_error(err, EPROTO, "sync: unexpected message %u (wanted %u)", h.type, type);
	return 0;
}
