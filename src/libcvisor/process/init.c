/* The minimal init of a container's pid namespace (see init.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
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
#include "process/init-loop.h"

/* The child shares our memory until its execve (CLONE_VM | CLONE_VFORK:
 * no copy of the address space, and it runs at once, on our time, which a
 * fork's child on a busy machine waits for). It only makes system calls,
 * on a stack of its own, and leaves how its execve went in ->error. */
struct program {
	const char *exe;
	char *const *argv, *const *envp;
	sigset_t mask; /* the program's signal mask: ours before the init's */
	bool foreground;
	int memory_join; /* cv_init_start.memory_join_fd */
	int error;       /* errno of the failed step, 0 when execve ran */
	const char *step;
};

/* The error of the program's failed start in *err. */
static int program_error(const struct program *p, cv_error_t *err)
{
	if (!strcmp(p->step, "exec"))
		return cv_error(err, p->error, "exec `%s`", p->exe);
	return cv_error(err, p->error, "init: %s", p->step);
}

static noreturn void program_failed(struct program *p, int errnum, const char *step)
{
	p->error = errnum;
	p->step = step;
	_exit(127);
}

static int start_program(void *arg)
{
	struct program *p = arg;
	if (p->foreground) {
		/* SIGTTOU is blocked: a background group may take the terminal */
		if (setpgid(0, 0) < 0)
			program_failed(p, errno, "setpgid");
		int fd = 0;
		while (fd < 3 && tcsetpgrp(fd, getpid()) < 0)
			fd++;
		if (fd == 3)
			program_failed(p, ENOTTY, "make the program the terminal's foreground process group");
	}
	if (p->memory_join >= 0 && write(p->memory_join, "0", 1) != 1)
		program_failed(p, errno, "join the memory cgroup");
	if (sigprocmask(SIG_SETMASK, &p->mask, NULL) < 0)
		program_failed(p, errno, "restore the program's signal mask");
	execve(p->exe, p->argv, p->envp);
	program_failed(p, errno, "exec");
}

/* Its stack: the container process is single-threaded, and suspended while
 * the child uses it. */
static char program_stack[64 * 1024] __attribute__((aligned(16)));

int cv_init_exec(const struct cv_init_start *s, cv_error_t *err)
{
	/* set now: the program's execve resets both, and a change of
	 * credentials may have made us dumpable again (fs.suid_dumpable) */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return cv_error_errno(err, "init: prctl PR_SET_DUMPABLE");
	if (prctl(PR_SET_NAME, "cvisor-init", 0, 0, 0) < 0)
		return cv_error_errno(err, "init: prctl PR_SET_NAME");
	struct program prog = { .exe = s->exe,
				.argv = s->argv,
				.envp = s->envp,
				.foreground = s->foreground,
				.memory_join = s->memory_join_fd };
	/* out before the program runs: it may fill the cgroup at once */
	if (s->memory_leave_fd >= 0 && write(s->memory_leave_fd, "0", 1) != 1)
		return cv_error_errno(err, "init: leave the memory cgroup");
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
		return program_error(&prog, err);
	}
	/* the fds kept: on our stack, since the runtime's memory is its own
	 * again once the sync socket closes */
	size_t nleave = s->nleave < CV_INIT_MAX_LEAVE ? s->nleave : CV_INIT_MAX_LEAVE;
	int keep[1 + CV_INIT_MAX_LEAVE] = { s->status_fd };
	for (size_t i = 0; i < nleave; i++)
		keep[1 + i] = s->leave_fds[i];
	const int *leave = keep + 1;
	/* the image's command line, while the C library is still ours */
	char spid[16] = "", sstatus[16] = "", sleave[CV_INIT_MAX_LEAVE][16];
	char *image_args[4 + CV_INIT_MAX_LEAVE] = { "cvisor-init", spid, sstatus, NULL };
	if (s->image_fd >= 0) {
		snprintf(spid, sizeof(spid), "%d", (int)pid);
		snprintf(sstatus, sizeof(sstatus), "%d", s->status_fd);
		for (size_t i = 0; i < nleave; i++) {
			snprintf(sleave[i], sizeof(sleave[i]), "%d", leave[i]);
			image_args[3 + i] = sleave[i];
		}
		image_args[3 + nleave] = NULL;
	}
	char *const image_env[] = { NULL };
	int late = cv_procfs_cached();
	/* From here on the init makes raw system calls only: it may share the
	 * runtime's memory, errno included (lifecycle/shared-launch.h), and
	 * the runtime runs again once the sync socket is closed: by this
	 * close, now that the program's execve closed the other copy, which
	 * tells the runtime that it runs. */
	if (s->image_fd >= 0) {
		/* the image and the procfs close on its execve; the others
		 * stay open across it */
		int keep_image[3 + 1 + CV_INIT_MAX_LEAVE] = { s->image_fd, late };
		for (size_t i = 0; i < 1 + nleave; i++)
			keep_image[2 + i] = keep[i];
		bool kept = cv_init_close_except(keep_image, 3 + nleave) >= 0;
		for (size_t i = 0; i < 1 + nleave && kept; i++)
			kept = keep[i] < 0 || cv_sys(SYS_fcntl, keep[i], F_SETFD, 0) >= 0;
		if (!kept) {
			(void)cv_sys(SYS_kill, pid, SIGKILL, 0);
			cv_sys(SYS_exit_group, 127, 0, 0);
		}
		(void)cv_sys6(SYS_execveat, s->image_fd, (long)"", (long)image_args, (long)image_env, AT_EMPTY_PATH, 0);
		/* the program runs: stay the init as we are */
		(void)cv_sys(SYS_close, s->image_fd, 0, 0);
	}
	if (cv_init_close_all_but(keep, 1 + nleave, late) < 0) {
		(void)cv_sys(SYS_kill, pid, SIGKILL, 0);
		cv_sys(SYS_exit_group, 127, 0, 0);
	}
	cv_init_loop(pid, s->status_fd, leave, nleave, &all);
}
