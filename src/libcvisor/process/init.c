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
#include "raw-syscall.h"
#include "process/init.h"

/* From here on the init makes raw system calls only: it may share the
 * runtime's memory, errno included (lifecycle/shared-launch.h), and the
 * runtime runs again once the sync socket is closed. */

/* Every signal stays blocked: pending, not lost (a blocked signal is
 * queued even for a pid namespace's init, which ignores unhandled ones) and
 * taken here one at a time. */
static noreturn void init_loop(pid_t program, int status_fd, const sigset_t *all)
{
	for (;;) {
		siginfo_t si;
		long sig = cv_sys4(SYS_rt_sigtimedwait, all, &si, NULL, CV_KERNEL_SIGSET_SIZE);
		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			(void)cv_sys(SYS_kill, program, sig, 0);
			continue;
		}
		int st;
		long w;
		while ((w = cv_sys4(SYS_wait4, -1, &st, WNOHANG, NULL)) > 0) {
			if (w != program)
				continue;
			/* a full pipe of our own making: 4 bytes always fit */
			if (status_fd >= 0 && cv_sys(SYS_write, status_fd, &st, sizeof(st)) != sizeof(st))
				cv_sys(SYS_exit_group, 255, 0, 0);
			/* our exit ends the pid namespace, and every process left in it */
			cv_sys(SYS_exit_group, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 0, 0);
		}
	}
}

/* Closes the fds from FIRST to LAST but KEEP; -errno on failure. */
static long close_range_but(unsigned first, unsigned last, int keep)
{
	if (keep < 0 || (unsigned)keep < first || (unsigned)keep > last)
		return cv_sys(SYS_close_range, first, last, 0u);
	long r = (unsigned)keep > first ? cv_sys(SYS_close_range, first, (unsigned)keep - 1, 0u) : 0;
	if (r < 0)
		return r;
	return (unsigned)keep < last ? cv_sys(SYS_close_range, (unsigned)keep + 1, last, 0u) : 0;
}

/* Closes every fd but KEEP (-1: all of them). The runtime's procfs goes
 * last, in a call of its own: a detached mount, whose dissolve waits for an
 * RCU grace period, which must not hold back the sync socket's end of file
 * (that tells the runtime the program runs). */
static long close_all_but(int keep)
{
	int late = cv_procfs_cached();
	if (late < 0 || late == keep)
		return close_range_but(0, ~0u, keep);
	long r = late > 0 ? close_range_but(0, (unsigned)late - 1, keep) : 0;
	if (r == 0)
		r = close_range_but((unsigned)late + 1, ~0u, keep);
	if (r < 0)
		return r;
	r = cv_sys(SYS_close, late, 0, 0);
	return r == -EINTR ? 0 : r;
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
		(void)cv_sys(SYS_kill, pid, SIGKILL, 0);
		cv_sys(SYS_exit_group, 127, 0, 0);
	}
	init_loop(pid, status_fd, &all);
}
