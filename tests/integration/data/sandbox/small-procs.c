/* Many small processes that together exhaust a sandbox's memory limit:
 * each touches ~300 kB and has a tiny image (static), so every one of
 * them is smaller than cvisor's init when that shares cvisor do's memory
 * (about 1 MB resident). The OOM killer takes the largest process of the
 * cgroup, and every process sharing its memory with it. Prints how many
 * children were killed; exits 0. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile char block[300000];

int main(void)
{
	for (int i = 0; i < 150; i++)
		if (fork() == 0) {
			for (unsigned j = 0; j < sizeof(block); j += 4096)
				block[j] = 1;
			struct timespec t = { 2, 0 };
			nanosleep(&t, NULL);
			_exit(0);
		}
	int status, killed = 0;
	while (wait(&status) > 0)
		killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	printf("killed %d\n", killed);
	return 0;
}
