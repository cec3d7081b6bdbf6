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
#include "process/init-early.h"
#include "process/init-loop.h"
#include "process/sync.h"

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
	/* behind the gate (start_gated) */
	int gate_r, gate_w, sync_fd;
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
	if (p->sync_fd >= 0) { /* behind the gate: the init is another image */
		cv_error_t err = NULL;
		program_error(p, &err);
		cv_sync_send_error(p->sync_fd, err);
	}
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
	if (sigprocmask(SIG_SETMASK, &p->mask, NULL) < 0)
		program_failed(p, errno, "restore the program's signal mask");
	execve(p->exe, p->argv, p->envp);
	program_failed(p, errno, "exec");
}

/* Its stack: the container process is single-threaded, and suspended while
 * the child uses it. */
static char program_stack[64 * 1024] __attribute__((aligned(16)));

/* The program's process when the init executes the runtime's image
 * (init-early.h): it waits for the init's byte through the gate, so it
 * never meets a dumpable init, and reports a failure itself, over the sync
 * socket (still its until its execve: the runtime's end of file). It runs
 * in the memory the init left, the runtime's when shared, which the runtime
 * does not touch until that end of file. An end of file at the gate is the
 * init gone: so is the sandbox then. */
static int start_gated(void *arg)
{
	struct program *p = arg;
	char go = 0;
	long r;
	(void)cv_sys(SYS_close, p->gate_w, 0, 0);
	while ((r = cv_sys(SYS_read, p->gate_r, &go, 1)) == -EINTR)
		;
	if (r != 1)
		_exit(127);
	return start_program(p);
}

/* The init as the runtime's image afresh (init-early.h); returns only on
 * failure, the program's process gone. */
static int start_image_init(struct program *prog, const struct cv_init_start *s, cv_error_t *err)
{
	int gate[2];
	if (pipe2(gate, O_CLOEXEC) < 0)
		return cv_error_errno(err, "init: pipe");
	prog->gate_r = gate[0];
	prog->gate_w = gate[1];
	prog->sync_fd = s->sync_fd;
	pid_t pid = clone(start_gated, program_stack + sizeof(program_stack), CLONE_VM | SIGCHLD, prog);
	if (pid < 0) {
		int e = errno;
		close(gate[0]);
		close(gate[1]);
		return cv_error(err, e, "init: start the program");
	}
	close(gate[0]);
	/* what our execve keeps: the status fd, the gate and the procfs the
	 * new image closes last (init-loop.h) */
	int late = cv_procfs_cached();
	int keep[] = { s->status_fd, gate[1], late };
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (keep[i] >= 0 && fcntl(keep[i], F_SETFD, 0) < 0) {
			int e = errno;
			(void)kill(pid, SIGKILL);
			return cv_error(err, e, "init: keep fd %d over execve", keep[i]);
		}
	char spid[16], sstatus[16], sgate[16], slate[16];
	snprintf(spid, sizeof(spid), "%d", (int)pid);
	snprintf(sstatus, sizeof(sstatus), "%d", s->status_fd);
	snprintf(sgate, sizeof(sgate), "%d", gate[1]);
	snprintf(slate, sizeof(slate), "%d", late);
	char *const args[] = { "cvisor-init", CV_INIT_EARLY_VERB, spid, sstatus, sgate, slate, NULL };
	char *const env[] = { NULL };
	syscall(SYS_execveat, s->image_fd, "", args, env, AT_EMPTY_PATH);
	int e = errno;
	(void)kill(pid, SIGKILL);
	return cv_error(err, e, "init: execute the runtime's image as the sandbox's init");
}

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
				.gate_r = -1,
				.gate_w = -1,
				.sync_fd = -1 };
	sigset_t all;
	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, &prog.mask) < 0)
		return cv_error_errno(err, "init: block signals");
	if (s->image_fd >= 0) {
		int r = start_image_init(&prog, s, err);
		(void)sigprocmask(SIG_SETMASK, &prog.mask, NULL);
		return r;
	}
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
	/* From here on the init makes raw system calls only: it may share the
	 * runtime's memory, errno included (lifecycle/shared-launch.h), and
	 * the runtime runs again once the sync socket is closed: by this
	 * close, now that the program's execve closed the other copy, which
	 * tells the runtime that it runs. */
	if (cv_init_close_all_but(s->status_fd, cv_procfs_cached()) < 0) {
		(void)cv_sys(SYS_kill, pid, SIGKILL, 0);
		cv_sys(SYS_exit_group, 127, 0, 0);
	}
	cv_init_loop(pid, s->status_fd, &all);
}
