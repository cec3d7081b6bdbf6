/* The runtime's image as a sandbox's init: see init-early.h. Run from the
 * entry point before the C library starts: raw system calls, the stack and
 * string literals only (exe-guard-early.c). */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>

#include "init-early.h"
#include "init-loop.h"

#define NO_LIBC __attribute__((no_stack_protector))

static NO_LIBC bool streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* A decimal int, -1 allowed. */
static NO_LIBC bool fd_number(const char *s, long *out)
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

NO_LIBC void cv_init_early(int argc, char **argv)
{
	long program, status, gate, late;
	if (argc != 6 || !streq(argv[1], CV_INIT_EARLY_VERB) || !fd_number(argv[2], &program) || program < 2 ||
	    !fd_number(argv[3], &status) || !fd_number(argv[4], &gate) || gate < 0 || !fd_number(argv[5], &late))
		return;
	if (cv_sys(SYS_getpid, 0, 0, 0) != 1)
		return;
	/* execve made us dumpable again: not so before the program starts */
	if (cv_sys(SYS_prctl, PR_SET_DUMPABLE, 0, 0) < 0)
		cv_sys(SYS_exit_group, 127, 0, 0);
	char go = 1;
	if (cv_sys(SYS_write, gate, &go, 1) != 1)
		cv_sys(SYS_exit_group, 127, 0, 0);
	(void)cv_sys(SYS_prctl, PR_SET_NAME, (long)"cvisor-init", 0);
	/* the program runs: it holds the sync socket, whose end of file at
	 * its execve tells the runtime so; ours closed at our execve */
	if (cv_init_close_all_but((int)status, (int)late) < 0)
		cv_sys(SYS_exit_group, 127, 0, 0);
	/* every signal, blocked since before our execve, which kept the mask */
	uint64_t all = ~(uint64_t)0;
	cv_init_loop((pid_t)program, (int)status, &all);
}
