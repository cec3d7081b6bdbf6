/* seccomp-dump PID FILE: writes the classic BPF program of PID's (only)
 * seccomp filter to FILE, as bwrap --seccomp reads it. The bench gives
 * bubblewrap the very filter `cvisor do` loads, so that both do the same
 * work. Needs CAP_SYS_ADMIN (PTRACE_SECCOMP_GET_FILTER). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER 0x420c
#endif

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: seccomp-dump PID FILE\n");
		return 2;
	}
	pid_t pid = (pid_t)atoi(argv[1]);
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0 || ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0) {
		fprintf(stderr, "seccomp-dump: attach to %d: %s\n", (int)pid, strerror(errno));
		return 1;
	}
	if (waitpid(pid, NULL, __WALL) < 0) {
		fprintf(stderr, "seccomp-dump: wait for %d: %s\n", (int)pid, strerror(errno));
		return 1;
	}
	/* index 0 is the newest filter; a second one would be a surprise */
	long n = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, 0, NULL);
	struct sock_filter *insns = n > 0 ? calloc((size_t)n, sizeof(*insns)) : NULL;
	if (n <= 0 || !insns || ptrace(PTRACE_SECCOMP_GET_FILTER, pid, 0, insns) != n) {
		fprintf(stderr, "seccomp-dump: filter of %d: %s\n", (int)pid, n == 0 ? "none" : strerror(errno));
		return 1;
	}
	if (ptrace(PTRACE_SECCOMP_GET_FILTER, pid, 1, NULL) >= 0) {
		fprintf(stderr, "seccomp-dump: %d has more than one filter\n", (int)pid);
		return 1;
	}
	(void)ptrace(PTRACE_DETACH, pid, 0, 0);
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t len = (size_t)n * sizeof(*insns);
	if (fd < 0 || write(fd, insns, len) != (ssize_t)len || close(fd) < 0) {
		fprintf(stderr, "seccomp-dump: write %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	free(insns);
	printf("%ld\n", n);
	return 0;
}
