/* The minimal init of a container's pid namespace (see init.h). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdnoreturn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "process/init.h"

/* Every signal stays blocked: pending, not lost (a blocked signal is
 * queued even for a pid namespace's init, which ignores unhandled ones) and
 * taken here one at a time. */
static noreturn void init_loop(pid_t program, int status_fd, const sigset_t *all)
{
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(all, &si);
		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			(void)kill(program, sig);
			continue;
		}
		int st;
		pid_t w;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
			if (w != program)
				continue;
			/* a full pipe of our own making: 4 bytes always fit */
			if (status_fd >= 0 && write(status_fd, &st, sizeof(st)) != sizeof(st))
				_exit(255);
			/* our exit ends the pid namespace, and every process left in it */
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		}
	}
}

/* Closes every fd but KEEP (-1: all of them). */
static int close_all_but(int keep)
{
	if (keep > 0 && syscall(SYS_close_range, 0u, (unsigned)keep - 1, 0u) < 0)
		return -1;
	return (int)syscall(SYS_close_range, (unsigned)(keep + 1), ~0u, 0u);
}

int cv_init_fork(int status_fd, bool foreground, cv_error_t *err)
{
	/* set before the fork: the program's execve resets both, and a change
	 * of credentials may have made us dumpable again (fs.suid_dumpable) */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return cv_error_errno(err, "init: prctl PR_SET_DUMPABLE");
	if (prctl(PR_SET_NAME, "cvisor-init", 0, 0, 0) < 0)
		return cv_error_errno(err, "init: prctl PR_SET_NAME");
	sigset_t all, old;
	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, &old) < 0)
		return cv_error_errno(err, "init: block signals");
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
		return cv_error(err, e, "init: fork the program");
	}
	if (pid == 0) {
		if (foreground) {
			/* SIGTTOU is blocked: a background group may take the terminal */
			if (setpgid(0, 0) < 0)
				return cv_error_errno(err, "init: setpgid");
			int fd = 0;
			while (fd < 3 && tcsetpgrp(fd, getpid()) < 0)
				fd++;
			if (fd == 3)
				return cv_error(err, ENOTTY, "init: no stdio fd is the controlling terminal");
		}
		if (sigprocmask(SIG_SETMASK, &old, NULL) < 0)
			return cv_error_errno(err, "init: restore the signal mask of the program");
		return 0;
	}
	/* the sync socket goes too: its end-of-file, once the program's execve
	 * closed the child's copy, tells the runtime that the program runs */
	if (close_all_but(status_fd) < 0) {
		(void)kill(pid, SIGKILL);
		_exit(127);
	}
	init_loop(pid, status_fd, &all);
}
