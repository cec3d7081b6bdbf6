/* The init's last steps (init.h), for both of its forms: the container
 * process that stays as the init (init.c), and the init as a program of its
 * own (init-image.c). Raw system calls only: the first may share the
 * runtime's memory, errno included (lifecycle/shared-launch.h); the second
 * has no C library. */
#ifndef CVISOR_INIT_LOOP_H
#define CVISOR_INIT_LOOP_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

/* relative: the binary's include path has no library folder */
#include "../base/raw-syscall.h"

/* At most this many fds take the init out of the container's cgroup
 * (init.h: cv_init_start.leave_fds). */
#define CV_INIT_MAX_LEAVE 8

/* Closes every fd but those of KEEP (N of them; < 0: none); -errno on
 * failure. */
static inline long cv_init_close_except(const int *keep, size_t n)
{
	unsigned first = 0;
	for (;;) {
		/* the lowest kept fd at or above FIRST */
		long next = -1;
		for (size_t i = 0; i < n; i++)
			if (keep[i] >= 0 && (unsigned)keep[i] >= first && (next < 0 || keep[i] < next))
				next = keep[i];
		if (next < 0)
			return cv_sys(SYS_close_range, first, ~0u, 0u);
		if ((unsigned)next > first) {
			long r = cv_sys(SYS_close_range, first, (unsigned)next - 1, 0u);
			if (r < 0)
				return r;
		}
		first = (unsigned)next + 1;
	}
}

/* Closes every fd but the N of KEEP (-1 skipped), then LATE (-1: none) in
 * a call of its own: the runtime's procfs, a detached mount, whose dissolve
 * waits for an RCU grace period, which must not hold back what the other
 * closes tell (the sync socket's end of file: the program runs). N is at
 * most 1 + CV_INIT_MAX_LEAVE. */
static inline long cv_init_close_all_but(const int *keep, size_t n, int late)
{
	int k[2 + CV_INIT_MAX_LEAVE];
	bool kept_late = false;
	for (size_t i = 0; i < n; i++) {
		k[i] = keep[i];
		kept_late |= keep[i] == late;
	}
	k[n] = late;
	long r = cv_init_close_except(k, n + 1);
	if (r < 0 || late < 0 || kept_late)
		return r;
	r = cv_sys(SYS_close, late, 0, 0);
	return r == -EINTR ? 0 : r;
}

/* PROGRAM has ended: as PID 1 of a pid namespace, every other process in
 * it is killed and our children (every orphan of the namespace comes to
 * us) reaped, so that once the status is written nothing of the container
 * runs. The kernel would kill them too, but only in our exit, after it has
 * torn down our namespaces (~0.4 ms of a `cvisor do true` here), which the
 * status lets the supervisor skip (sandbox/supervisor.c). Anywhere else
 * (an init without a pid namespace of its own) -1 is the caller's world:
 * nothing is killed. */
static inline void cv_init_end_namespace(void)
{
	if (cv_sys(SYS_getpid, 0, 0, 0) != 1)
		return;
	(void)cv_sys(SYS_kill, -1, SIGKILL, 0);
	long w;
	do
		w = cv_sys4(SYS_wait4, -1, NULL, __WALL, NULL);
	while (w > 0 || w == -EINTR);
}

/* What the init writes to its status fd: the program's wait status + 1,
 * 8 bytes, which an eventfd takes (a zero would not wake its reader). */
static inline uint64_t cv_init_status_word(int wait_status)
{
	return (uint64_t)(uint32_t)wait_status + 1;
}

/* The reader's side: the wait status in WORD; false for no word (0). */
static inline bool cv_init_status_of_word(uint64_t word, int *wait_status)
{
	if (!word)
		return false;
	*wait_status = (int)(uint32_t)(word - 1);
	return true;
}

/* Every signal stays blocked (ALL, the kernel's sigset): pending, not lost
 * (a blocked signal is queued even for a pid namespace's init, which
 * ignores unhandled ones) and taken here one at a time. Forwards each to
 * PROGRAM, reaps every child, and on PROGRAM's end ends the namespace's
 * other processes (cv_init_end_namespace), leaves the container's cgroup
 * through the NLEAVE fds of LEAVE (init.h), writes PROGRAM's wait status
 * to STATUS_FD (when >= 0; cv_init_status_word) and exits with its status. */
static inline _Noreturn void cv_init_loop(pid_t program, int status_fd, const int *leave, size_t nleave,
					  const void *all)
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
			cv_init_end_namespace();
			/* a failure leaves the cgroup busy: its remover then
			 * waits for our exit, as without these */
			for (size_t i = 0; i < nleave; i++)
				(void)cv_sys(SYS_write, leave[i], "0", 1);
			/* an empty eventfd (or pipe) of our own: it always fits */
			uint64_t word = cv_init_status_word(st);
			if (status_fd >= 0 && cv_sys(SYS_write, status_fd, &word, sizeof(word)) != sizeof(word))
				cv_sys(SYS_exit_group, 255, 0, 0);
			/* our exit ends the pid namespace, and every process left in it */
			cv_sys(SYS_exit_group, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 0, 0);
		}
	}
}

#endif
