/* Many small processes that together exhaust a sandbox's memory limit:
 * each touches ~1 MB and has a tiny image (static), so every one of them
 * is smaller than cvisor's init, whose memory, when it shares cvisor do's,
 * is the whole of cvisor's image. The OOM killer takes the largest. */
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile char block[1100000];

int main(void)
{
	for (int i = 0; i < 60; i++)
		if (fork() == 0) {
			for (unsigned j = 0; j < sizeof(block); j += 4096)
				block[j] = 1;
			struct timespec t = { 2, 0 };
			nanosleep(&t, NULL);
			_exit(0);
		}
	while (wait(NULL) > 0)
		;
	return 0;
}
