/* sandbox-bench: libcvisor's sandbox calls against `cvisor do` and
 * bubblewrap, in interleaved rounds (tests/bench/sandbox-bench.sh builds
 * and runs it): per round, one cvisor_run_argv of `true` on a sandbox made
 * once (its keeper started before the rounds), one session's start to its
 * first byte of output, one `cvisor do --network none -- true` and one
 * bwrap of `true` with the isolation of bench.sh's bwrap but its seccomp
 * filter (both spawned and waited for from here), each 50 ms after the call before. Prints median,
 * p10, p90 (ms) of each. */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cvisor.h"

extern char **environ;

#define GAP_US 50000

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double rank(const double *v, int n, double p)
{
	int k = (int)(p * n + 0.999999);
	return v[k < 1 ? 0 : k - 1];
}

static double spawn_wait(char *const *argv)
{
	pid_t pid;
	int st;
	double a = now_ms();
	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		fprintf(stderr, "sandbox-bench: %s failed\n", argv[0]);
		exit(1);
	}
	return now_ms() - a;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: sandbox-bench ROUNDS CVISOR\n");
		return 2;
	}
	int rounds = atoi(argv[1]);
	if (rounds < 1 || rounds > 100000)
		return 2;
	char *do_argv[] = { argv[2], "do", "--network", "none", "--", "true", NULL };
	/* the isolation of bench.sh's bwrap (--mode do), without the seccomp
	 * filter it takes from cvisor do there */
	char *bwrap_argv[] = { "bwrap",
			       "--unshare-user",
			       "--unshare-pid",
			       "--unshare-net",
			       "--unshare-ipc",
			       "--unshare-uts",
			       "--ro-bind",
			       "/",
			       "/",
			       "--tmpfs",
			       "/tmp",
			       "--tmpfs",
			       "/run",
			       "--proc",
			       "/proc",
			       "--dev",
			       "/dev",
			       "--tmpfs",
			       "/root",
			       "--ro-bind",
			       "/dev/null",
			       "/etc/shadow",
			       "--ro-bind",
			       "/dev/null",
			       "/etc/gshadow",
			       "--tmpfs",
			       "/etc/ssh",
			       "--cap-drop",
			       "ALL",
			       "true",
			       NULL };
	const char *true_argv[] = { "true", NULL };
	const char *names[] = { "cvisor_run", "session-1st-byte", "cvisor-do", "bwrap" };
	double *t[4];
	for (int k = 0; k < 4; k++)
		if (!(t[k] = calloc((size_t)rounds, sizeof(double))))
			return 1;
	CvisorSandbox *sb = cvisor_sandbox_new();
	cvisor_sandbox_set_allow_network(sb, 0);
	/* the keeper's start, and a warm-up of each path */
	for (int w = 0; w < 2; w++) {
		cvisor_output_free(cvisor_run_argv(sb, true_argv, NULL, NULL, 0, 0));
		spawn_wait(do_argv);
		spawn_wait(bwrap_argv);
	}
	for (int r = 0; r < rounds; r++) {
		/* each call 50 ms after the last, as an agent's come: what one
		 * leaves working (the sandbox's next run being prepared, a network
		 * namespace's cleanup) slows no other */
		usleep(GAP_US);
		double a = now_ms();
		CvisorOutput *o = cvisor_run_argv(sb, true_argv, NULL, NULL, 0, 0);
		t[0][r] = now_ms() - a;
		if (!o || cvisor_output_exit_code(o) != 0) {
			fprintf(stderr, "sandbox-bench: cvisor_run: %s\n", o ? "exit status" : cvisor_last_error());
			return 1;
		}
		cvisor_output_free(o);
		usleep(GAP_US);
		a = now_ms();
		CvisorSession *s = cvisor_session_start(sb, "echo x", 0);
		if (!s) {
			fprintf(stderr, "sandbox-bench: session: %s\n", cvisor_last_error());
			return 1;
		}
		for (;;) {
			size_t n = 0;
			uint8_t *b = cvisor_session_read_stdout(s, &n);
			if (b) {
				cvisor_bytes_free(b, n);
				break;
			}
			usleep(50);
		}
		t[1][r] = now_ms() - a;
		cvisor_session_wait(s);
		cvisor_session_free(s);
		usleep(GAP_US);
		t[2][r] = spawn_wait(do_argv);
		usleep(GAP_US);
		t[3][r] = spawn_wait(bwrap_argv);
	}
	cvisor_sandbox_free(sb);
	printf("%-18s %9s %9s %9s\n", "path", "median", "p10", "p90");
	double med[4];
	for (int k = 0; k < 4; k++) {
		qsort(t[k], (size_t)rounds, sizeof(double), cmp);
		med[k] = rounds % 2 ? t[k][rounds / 2] : (t[k][rounds / 2 - 1] + t[k][rounds / 2]) / 2;
		printf("%-18s %9.2f %9.2f %9.2f\n", names[k], med[k], rank(t[k], rounds, 0.1), rank(t[k], rounds, 0.9));
	}
	printf("\ncvisor_run - cvisor-do   %+.2f ms (goal: at most +1.5)\n", med[0] - med[2]);
	printf("ratio bwrap/cvisor_run   %.2f\n", med[3] / med[0]);
	return 0;
}
