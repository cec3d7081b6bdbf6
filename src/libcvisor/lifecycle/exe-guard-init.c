/* The exe-guard's constructor (see exe-guard.c), linked into the cvisor
 * binary only: a program loading libcvisor keeps its own image and its own
 * arguments are never read. */
#include "config.h"

#include <errno.h>

/* found beside this file: the binary's include path has no library folder */
#include "exe-guard.h"

int cv_exe_guard_safe_at_entry;

/* glibc passes init functions the program's argc, argv and environment. In
 * the static cvisor binary on x86-64 the early entry point has done this
 * already, before the C library started (exe-guard-early.c): its verdict
 * stands (the image cannot change in between), and the six system calls of
 * the check are not made twice. */
__attribute__((constructor)) static void cv_exe_guard_init(int argc, char **argv, char **envp)
{
	(void)envp;
	int saved = errno;
	if (cv_exe_guard_safe_at_entry)
		cv_exe_guard_protected();
	else if (argv)
		cv_exe_guard_protect(argc, argv);
	errno = saved;
}
