/* recvtty SOCKET: a --console-socket receiver for tests. Listens on SOCKET,
 * takes one pty master fd sent with SCM_RIGHTS, copies everything the
 * container writes to the pty to stdout until the pty closes.
 * recvtty --pidfd SOCKET: a --pidfd-socket receiver: takes one fd the same
 * way and prints the "Pid:" line of its /proc/self/fdinfo entry (the pid a
 * pidfd refers to), then exits. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int print_fdinfo_pid(int fd)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "re");
	if (!f) {
		perror("recvtty: open fdinfo");
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Pid:", 4) == 0) {
			fputs(line, stdout);
			fclose(f);
			return 0;
		}
	fclose(f);
	fprintf(stderr, "recvtty: fd %d has no Pid: line (not a pidfd)\n", fd);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char name[256], buf[4096];
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	int master = -1;

	bool pidfd_mode = argc == 3 && strcmp(argv[1], "--pidfd") == 0;
	if (pidfd_mode) {
		argv++;
		argc--;
	}
	if (argc != 2 || strlen(argv[1]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "usage: recvtty [--pidfd] SOCKET\n");
		return 2;
	}
	strcpy(addr.sun_path, argv[1]);
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(l, 1) < 0) {
		perror("recvtty: listen");
		return 1;
	}
	int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0) {
		perror("recvtty: accept");
		return 1;
	}
	struct iovec iov = { name, sizeof(name) - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	ssize_t n = recvmsg(c, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0) {
		perror("recvtty: recvmsg");
		return 1;
	}
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&master, CMSG_DATA(cm), sizeof(int));
	if (master < 0) {
		fprintf(stderr, "recvtty: no fd received\n");
		return 1;
	}
	name[n] = '\0';
	fprintf(stderr, "recvtty: got %s\n", name);
	close(c);
	if (pidfd_mode)
		return print_fdinfo_pid(master);
	for (;;) {
		n = read(master, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* EIO once every slave fd is closed */
		if (write(1, buf, (size_t)n) != n)
			return 1;
	}
	return 0;
}
