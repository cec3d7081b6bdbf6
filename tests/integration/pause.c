/* pause: the process of a pod's sandbox container (cri.bats packs it, linked
 * static, as the only file of a "pause" image). It holds the pod's
 * namespaces open and does nothing else: it sleeps until a signal, reaps the
 * children it inherits as pid 1, and exits 0 on SIGTERM or SIGINT.
 * Handlers are installed because pid 1 of a pid namespace does not get
 * signals whose action is the default. Built by the test itself (no
 * config.h): the build's flags may carry sanitizers, which cannot link
 * static. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int sig)
{
	(void)sig;
	_exit(0);
}

static void on_child(int sig)
{
	int saved = errno;
	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = saved;
}

static int handle(int sig, void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0) {
		fprintf(stderr, "pause: sigaction %s: %s\n", strsignal(sig), strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fputs("usage: pause (no arguments)\n", stderr);
		return 2;
	}
	if (handle(SIGTERM, on_stop) < 0 || handle(SIGINT, on_stop) < 0 || handle(SIGCHLD, on_child) < 0)
		return 1;
	for (;;)
		pause();
}
