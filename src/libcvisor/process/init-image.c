/* A sandbox's init as a program of its own, for a run with a memory limit
 * whose container process shared the runtime's memory
 * (lifecycle/shared-launch.h). Such an init would keep the runtime's whole
 * image as its RSS, the likeliest victim of the sandbox's OOM killer, which
 * kills every process sharing its victim's memory: the runtime too. (A v1
 * memory hierarchy needs none of this: the init leaves that cgroup before
 * the program starts, cgroups.h: cv_cgroup_memory_apart.)
 *
 * Once the program runs, the container process (cv_init_exec) executes
 * this program, about a kB built freestanding and static (no C library:
 * raw system calls, the stack and string literals only; x86-64) and
 * embedded in the cvisor binary (Makefile.am: cv_init_image), from a
 * sealed memfd that nobody may read (mode 0111):
 *   cvisor-init PROGRAM_PID STATUS_FD [LEAVE_FD...]
 * An image its process may not read makes the execve non-dumpable
 * (fs.suid_dumpable 0 or 2), so the program, which started just before,
 * never meets a dumpable init; with fs.suid_dumpable 1 such a run forks
 * instead (cv_shared_launch_image_init). The container process closed
 * every other fd (or they close on the execve); the new init makes itself
 * non-dumpable again and runs the init's loop (init-loop.h), in a few pages
 * of memory of its own. */
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/prctl.h>

#include "init-loop.h"

/* A decimal fd or pid, -1 allowed. */
static bool number(const char *s, long *out)
{
	bool neg = *s == '-';
	long v = 0;
	s += neg;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 1 << 24)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = neg ? -v : v;
	return !neg || v == 1;
}

noreturn void cv_init_image_main(uintptr_t *sp);

noreturn void cv_init_image_main(uintptr_t *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	long program, status, fd;
	if (argc < 3 || argc > 3 + CV_INIT_MAX_LEAVE || !number(argv[1], &program) || program < 2 ||
	    !number(argv[2], &status))
		cv_sys(SYS_exit_group, 127, 0, 0);
	/* the fds that take us out of the container's cgroup (init.h) */
	int leave[CV_INIT_MAX_LEAVE];
	size_t nleave = 0;
	for (int i = 3; i < argc; i++) {
		if (!number(argv[i], &fd) || fd < 0)
			cv_sys(SYS_exit_group, 127, 0, 0);
		leave[nleave++] = (int)fd;
	}
	/* non-dumpable already (an image we may not read): so it stays */
	if (cv_sys(SYS_prctl, PR_SET_DUMPABLE, 0, 0) < 0)
		cv_sys(SYS_exit_group, 127, 0, 0);
	(void)cv_sys(SYS_prctl, PR_SET_NAME, (long)"cvisor-init", 0);
	/* every signal, blocked since before our execve, which kept the mask */
	uint64_t all = ~(uint64_t)0;
	cv_init_loop((pid_t)program, (int)status, leave, nleave, &all);
}

/* The kernel enters with %rsp at argc. */
__asm__(".text\n"
	".globl _start\n"
	".type _start,@function\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call cv_init_image_main\n"
	"	hlt\n"
	".size _start, .-_start\n");
