#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "unix-socket.h"

#define MAX_IOV 8
/* room for a few fds: a peer sending more than one must not leak them */
#define MAX_FDS 8

int cv_unix_connect(const char *path, cv_error_t *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(addr.sun_path))
		return cv_error(err, ENAMETOOLONG, "connect to `%s`", path);
	strcpy(addr.sun_path, path);
	cleanup_close int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return cv_error_errno(err, "connect to `%s`: socket", path);
	if (connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return cv_error_errno(err, "connect to `%s`", path);
	return steal_fd(&sock);
}

int cv_fd_send_to_socket(const char *path, int fd, const char *name, cv_error_t *err)
{
	cleanup_close int sock = cv_unix_connect(path, err);
	struct iovec iov = { (void *)name, strlen(name) };
	int r;

	if (sock < 0)
		return sock;
	if ((r = cv_send_fd(sock, &iov, 1, fd)) < 0)
		return cv_error(err, -r, "send fd to `%s`", path);
	return 0;
}

int cv_send_fd(int sock, const struct iovec *iov, size_t iovcnt, int fd)
{
	return cv_send_fds(sock, iov, iovcnt, &fd, fd >= 0);
}

int cv_send_fds(int sock, const struct iovec *iov, size_t iovcnt, const int *fds, size_t nfds)
{
	struct iovec v[MAX_IOV];
	union {
		char buf[CMSG_SPACE(MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = v, .msg_iovlen = iovcnt };
	size_t left = 0;

	if (iovcnt > MAX_IOV || nfds > MAX_FDS)
		return -EINVAL;
	for (size_t i = 0; i < iovcnt; i++) {
		v[i] = iov[i];
		left += iov[i].iov_len;
	}
	if (nfds) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	do {
		ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0 && left > 0)
			return -EIO; /* never spin on a socket that takes nothing */
		/* the fds went with the first byte */
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
		left -= (size_t)n;
		while (n > 0 && mh.msg_iovlen > 0) {
			size_t k = (size_t)n < mh.msg_iov->iov_len ? (size_t)n : mh.msg_iov->iov_len;
			mh.msg_iov->iov_base = (char *)mh.msg_iov->iov_base + k;
			mh.msg_iov->iov_len -= k;
			n -= (ssize_t)k;
			if (mh.msg_iov->iov_len == 0) {
				mh.msg_iov++;
				mh.msg_iovlen--;
			}
		}
	} while (left > 0);
	return 0;
}

ssize_t cv_recv_fd(int sock, struct iovec *iov, size_t iovcnt, int *fd)
{
	union {
		char buf[CMSG_SPACE(MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = iov,
			     .msg_iovlen = iovcnt,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfds; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = got;
			else
				close(got);
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EMSGSIZE;
	}
	return n;
}
