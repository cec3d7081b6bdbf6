/* bench-timer: run a command and report its wall time, peak RSS and CPU time.
 *
 * Usage: bench-timer OUTFILE COMMAND [ARG]...
 *
 * Appends one line "NANOSECONDS MAXRSS_KB EXIT_STATUS USER_US SYS_US" to
 * OUTFILE. The clock is CLOCK_MONOTONIC read immediately before fork and
 * immediately after wait4, so the figure covers the command's fork, execve,
 * run and exit and nothing of the shell that started the timer. MAXRSS, USER
 * and SYS come from wait4's rusage: the command and every descendant it (or
 * they) waited for, the same figures GNU time prints. Exits with the
 * command's own status (128+signal when it was killed), so callers can
 * check it.
 *
 * A compiled timer instead of `date +%s%N` pairs: `date` is itself a
 * fork+execve (about 1 ms here), which would blur differences of a few ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0) {
		perror("bench-timer: clock_gettime");
		exit(125);
	}
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long tv_us(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000LL + tv.tv_usec;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	long long t0, t1;
	int status, code, fd;
	pid_t pid;
	char line[160];
	int len;

	if (argc < 3) {
		fprintf(stderr, "usage: bench-timer OUTFILE COMMAND [ARG]...\n");
		return 125;
	}

	/* Open the result file first so a bad path fails before the command runs. */
	fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "bench-timer: open `%s`: %s\n", argv[1], strerror(errno));
		return 125;
	}

	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("bench-timer: fork");
		return 125;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "bench-timer: execute `%s`: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("bench-timer: wait4");
			return 125;
		}
	}
	t1 = now_ns();

	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	len = snprintf(line, sizeof(line), "%lld %ld %d %lld %lld\n", t1 - t0, ru.ru_maxrss, code, tv_us(ru.ru_utime),
		       tv_us(ru.ru_stime));
	if (len < 0 || (size_t)len >= sizeof(line) || write(fd, line, (size_t)len) != len) {
		fprintf(stderr, "bench-timer: write `%s`: %s\n", argv[1], strerror(errno));
		return 125;
	}
	if (close(fd) < 0) {
		fprintf(stderr, "bench-timer: close `%s`: %s\n", argv[1], strerror(errno));
		return 125;
	}
	return code;
}
