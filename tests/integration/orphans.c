/* orphans: runs a command as a child subreaper and names what it left
 * behind. Once the command has exited, every child we have besides it was
 * one of its descendants, handed to us by the kernel: each is printed as
 * "orphan PID STATE COMM" on stderr, then killed and reaped. Exits with the
 * command's status (125 when it could not be run). A PID 1 that reaps late
 * or never would keep such a process, and what it holds, for that long. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* STATE and COMM of PID from /proc/PID/stat, "? ?" when it is gone. */
static void describe(pid_t pid, char *state, size_t slen, char *comm, size_t clen)
{
	char path[64], buf[512];
	snprintf(state, slen, "?");
	snprintf(comm, clen, "?");
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	if (!open || !close || close < open || close[1] != ' ')
		return;
	snprintf(comm, clen, "%.*s", (int)(close - open - 1), open + 1);
	snprintf(state, slen, "%c", close[2]);
}

/* Our children now, from every thread's list (we have one thread). */
static int children(pid_t *out, int max)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "orphans: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	int k = 0;
	for (char *save = NULL, *t = strtok_r(buf, " \n", &save); t && k < max; t = strtok_r(NULL, " \n", &save))
		out[k++] = (pid_t)atoi(t);
	return k;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: orphans COMMAND [ARG...]\n");
		return 125;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		fprintf(stderr, "orphans: PR_SET_CHILD_SUBREAPER: %s\n", strerror(errno));
		return 125;
	}
	pid_t cmd = fork();
	if (cmd < 0) {
		fprintf(stderr, "orphans: fork: %s\n", strerror(errno));
		return 125;
	}
	if (cmd == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "orphans: %s: %s\n", argv[1], strerror(errno));
		_exit(125);
	}
	int status;
	while (waitpid(cmd, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "orphans: waitpid: %s\n", strerror(errno));
			return 125;
		}
	pid_t left[256];
	int n = children(left, 256);
	if (n < 0)
		return 125;
	for (int i = 0; i < n; i++) {
		char state[4], comm[64];
		describe(left[i], state, sizeof(state), comm, sizeof(comm));
		fprintf(stderr, "orphan %d %s %s\n", (int)left[i], state, comm);
		kill(left[i], SIGKILL);
	}
	for (int i = 0; i < n; i++)
		while (waitpid(left[i], NULL, 0) < 0 && errno == EINTR)
			;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
