/* The minimal init of a container's pid namespace (see init.h). */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <stdnoreturn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "fs/safe-path.h"
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

/* Closes the fds from FIRST to LAST but KEEP. */
static int close_range_but(unsigned first, unsigned last, int keep)
{
	if (keep < 0 || (unsigned)keep < first || (unsigned)keep > last)
		return (int)syscall(SYS_close_range, first, last, 0u);
	if ((unsigned)keep > first && syscall(SYS_close_range, first, (unsigned)keep - 1, 0u) < 0)
		return -1;
	return (unsigned)keep < last ? (int)syscall(SYS_close_range, (unsigned)keep + 1, last, 0u) : 0;
}

/* Closes every fd but KEEP (-1: all of them). The runtime's procfs goes
 * last, in a call of its own: a detached mount, whose dissolve waits for an
 * RCU grace period, which must not hold back the sync socket's end of file
 * (that tells the runtime the program runs). */
static int close_all_but(int keep)
{
	int late = cv_procfs_cached();
	if (late < 0 || late == keep)
		return close_range_but(0, ~0u, keep);
	if ((late > 0 && close_range_but(0, (unsigned)late - 1, keep) < 0) ||
	    close_range_but((unsigned)late + 1, ~0u, keep) < 0)
		return -1;
	return close(late) < 0 && errno != EINTR ? -1 : 0;
}

/* The child shares our memory until its execve (CLONE_VM | CLONE_VFORK:
 * no copy of the address space, and it runs at once, on our time, which a
 * fork's child on a busy machine waits for). It only makes system calls,
 * on a stack of its own, and leaves how its execve went in ->error. */
struct program {
	const char *exe;
	char *const *argv, *const *envp;
	sigset_t mask; /* the program's signal mask: ours before the init's */
	bool foreground;
	int error; /* errno of the failed step, 0 when execve ran */
	const char *step;
};

static int start_program(void *arg)
{
	struct program *p = arg;
	if (p->foreground) {
		/* SIGTTOU is blocked: a background group may take the terminal */
		if (setpgid(0, 0) < 0) {
			p->error = errno;
			p->step = "setpgid";
			_exit(127);
		}
		int fd = 0;
		while (fd < 3 && tcsetpgrp(fd, getpid()) < 0)
			fd++;
		if (fd == 3) {
			p->error = ENOTTY;
			p->step = "make the program the terminal's foreground process group";
			_exit(127);
		}
	}
	if (sigprocmask(SIG_SETMASK, &p->mask, NULL) < 0) {
		p->error = errno;
		p->step = "restore the program's signal mask";
		_exit(127);
	}
	execve(p->exe, p->argv, p->envp);
	p->error = errno;
	p->step = "exec";
	_exit(127);
}

/* Its stack: the container process is single-threaded, and suspended while
 * the child uses it. */
static char program_stack[64 * 1024] __attribute__((aligned(16)));

int cv_init_exec(const char *exe, char *const *argv, char *const *envp, int status_fd, bool foreground, cv_error_t *err)
{
	/* set now: the program's execve resets both, and a change of
	 * credentials may have made us dumpable again (fs.suid_dumpable) */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return cv_error_errno(err, "init: prctl PR_SET_DUMPABLE");
	if (prctl(PR_SET_NAME, "cvisor-init", 0, 0, 0) < 0)
		return cv_error_errno(err, "init: prctl PR_SET_NAME");
	struct program prog = { .exe = exe, .argv = argv, .envp = envp, .foreground = foreground };
	sigset_t all;
	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, &prog.mask) < 0)
		return cv_error_errno(err, "init: block signals");
	pid_t pid = clone(start_program, program_stack + sizeof(program_stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
			  &prog);
	if (pid < 0 || prog.error) {
		int e = pid < 0 ? errno : prog.error;
		(void)sigprocmask(SIG_SETMASK, &prog.mask, NULL);
		if (pid < 0)
			return cv_error(err, e, "init: start the program");
		/* it exited: the pid namespace goes with us */
		if (!strcmp(prog.step, "exec"))
			return cv_error(err, e, "exec `%s`", exe);
		return cv_error(err, e, "init: %s", prog.step);
	}
	/* the sync socket goes too: its end of file, now that the program's
	 * execve closed the other copy, tells the runtime that it runs */
	if (close_all_but(status_fd) < 0) {
		(void)kill(pid, SIGKILL);
		_exit(127);
	}
	init_loop(pid, status_fd, &all);
}
