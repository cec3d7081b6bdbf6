/* The exe-guard's first step (see src/libcvisor/exe-guard.c), taken at the
 * program's entry point, before the C library starts: the static binary's
 * entry is cv_entry (-Wl,-e,cv_entry), which re-executes a container verb
 * from a read-only detached bind mount of the binary and otherwise goes on to
 * the C library's _start. Starting the C library costs ~0.3 ms here (its CPU
 * feature probing executes CPUID some fifty times, each a trap to the
 * hypervisor in a virtual machine, then self-relocation), and the image that
 * re-executes gets nothing from it.
 *
 * Nothing here may need the C library or relocated data: raw system calls,
 * the stack, string literals (reached relative to the instruction pointer).
 * Any failure returns to _start, where the constructor tries again with its
 * fallbacks (a sealed memfd copy) and reports. x86-64 only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "early-prefault.h"
#include "exe-guard.h"
/* the binary's include path has no library folder */
#include "../base/raw-syscall.h"

/* The kernel enters with %rsp at argc and %rdx at the dynamic linker's
 * fini function (0 for a static binary), as _start expects them: both are
 * kept in callee-saved registers around the C calls. The writable pages
 * are made first (early-prefault.c): the C library's start needs them. */
__asm__(".text\n"
	".globl cv_entry\n"
	".type cv_entry,@function\n"
	"cv_entry:\n"
	"	endbr64\n"
	"	mov %rsp, %rbx\n"
	"	mov %rdx, %r12\n"
	"	and $-16, %rsp\n"
	"	call cv_early_prefault\n"
	"	mov %rbx, %rdi\n"
	"	call cv_early_exec\n"
	"	mov %rbx, %rsp\n"
	"	mov %r12, %rdx\n"
	"	jmp _start\n"
	".size cv_entry, .-cv_entry\n");

#define NO_LIBC __attribute__((no_stack_protector))

/* A sealed copy or a file on a read-only mount; for the sandbox verbs also
 * a root-owned image their program cannot write (the ACL's absence reads
 * ENODATA, or EOPNOTSUPP where there are none). As reexec_sealed judges
 * it in exe-guard.c. */
NO_LIBC static bool image_safe(long exe, enum cv_guard_verb verb)
{
	struct statfs sf;
	long seals = cv_raw_syscall6(SYS_fcntl, exe, F_GET_SEALS, 0, 0, 0, 0);
	bool ok = seals < 0 && cv_raw_syscall6(SYS_fstatfs, exe, (long)&sf, 0, 0, 0, 0) == 0;
	if (cv_guard_image_safe(seals, ok, ok ? (unsigned long)sf.f_flags : 0))
		return true;
	struct stat st;
	if (verb != CV_GUARD_VERB_SANDBOX || cv_raw_syscall6(SYS_fstat, exe, (long)&st, 0, 0, 0, 0) != 0)
		return false;
	long acl = cv_raw_syscall6(SYS_fgetxattr, exe, (long)"system.posix_acl_access", 0, 0, 0, 0);
	return (acl == -ENODATA || acl == -EOPNOTSUPP) && cv_guard_sandbox_image_safe(st.st_uid, st.st_mode, false);
}

void cv_early_exec(uintptr_t *sp);

NO_LIBC void cv_early_exec(uintptr_t *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	enum cv_guard_verb verb = cv_guard_verb(argc, argv);
	if (verb == CV_GUARD_VERB_OTHER)
		return;
	long exe = cv_raw_syscall6(SYS_openat, AT_FDCWD, (long)"/proc/self/exe", O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (exe < 0)
		return;
	/* safe as it is: nothing to do, and the constructor takes the verdict */
	if (image_safe(exe, verb)) {
		cv_raw_syscall6(SYS_close, exe, 0, 0, 0, 0, 0);
		cv_exe_guard_safe_at_entry = 1;
		return;
	}
	long tree = cv_raw_syscall6(SYS_open_tree, exe, (long)"", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH,
				    0, 0, 0);
	cv_raw_syscall6(SYS_close, exe, 0, 0, 0, 0, 0);
	if (tree < 0)
		return;
	struct mount_attr ma;
	ma.attr_set = MOUNT_ATTR_RDONLY;
	ma.attr_clr = 0;
	ma.propagation = 0;
	ma.userns_fd = 0;
	if (cv_raw_syscall6(SYS_mount_setattr, tree, (long)"", AT_EMPTY_PATH, (long)&ma, sizeof(ma), 0) == 0)
		cv_raw_syscall6(SYS_execveat, tree, (long)"", (long)argv, (long)envp, AT_EMPTY_PATH, 0);
	cv_raw_syscall6(SYS_close, tree, 0, 0, 0, 0, 0);
}
