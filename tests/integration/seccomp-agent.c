/* A minimal seccomp agent for the test suite.
 *
 *   seccomp-agent SOCKET ERRNO MESSAGE-FILE
 *
 * Listens on the unix socket SOCKET, takes one connection from the runtime,
 * receives the listener fd (SCM_RIGHTS) with the containerProcessState JSON,
 * writes that JSON to MESSAGE-FILE, then answers every notified syscall
 * without running it: with success (0) when ERRNO is 0, else with -ERRNO.
 * Exits when the last process using the filter is gone. Prints "ready" on
 * stdout once it listens. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "seccomp-agent: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	static char msg[1 << 16];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) - 1 };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *cm;
	int lsock, conn, nfd = -1, answer, out;
	size_t total = 0;
	ssize_t n;

	if (argc != 4) {
		fprintf(stderr, "usage: seccomp-agent SOCKET ERRNO MESSAGE-FILE\n");
		return 2;
	}
	answer = atoi(argv[2]);
	if (strlen(argv[1]) >= sizeof(addr.sun_path))
		return 2;
	strcpy(addr.sun_path, argv[1]);
	lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lsock < 0)
		die("socket");
	if (bind(lsock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("bind");
	if (listen(lsock, 1) < 0)
		die("listen");
	printf("ready\n");
	fflush(stdout);

	conn = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0)
		die("accept");
	n = recvmsg(conn, &mh, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		die("recvmsg");
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&nfd, CMSG_DATA(cm), sizeof(int));
	if (nfd < 0) {
		fprintf(stderr, "seccomp-agent: no fd received\n");
		return 1;
	}
	total = n;
	/* the rest of the document, if it came in several pieces */
	while (total < sizeof(msg) - 1 && (n = read(conn, msg + total, sizeof(msg) - 1 - total)) > 0)
		total += n;
	msg[total] = '\0';
	out = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || write(out, msg, total) != (ssize_t)total || close(out) < 0)
		die("write message file");
	close(conn);
	close(lsock);

	for (;;) {
		struct pollfd p = { .fd = nfd, .events = POLLIN };
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p.revents & POLLHUP)
			return 0; /* no process left in the filter */
		memset(&req, 0, sizeof(req));
		if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			die("SECCOMP_IOCTL_NOTIF_RECV");
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.val = 0;
		resp.error = answer ? -answer : 0;
		if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
			die("SECCOMP_IOCTL_NOTIF_SEND");
	}
}
