/* CVE-2019-5736 class: a container process must never obtain a writable
 * handle on the runtime binary.
 *
 * The runtime's child runs the cvisor image inside the container's
 * namespaces until it execve's the user program, and `exec` clones it
 * straight into the container's pid namespace. Two ways reach that image:
 *  - the container's program can be a script starting `#!/proc/self/exe`:
 *    the kernel resolves the interpreter in our child, so the "user
 *    program" becomes the cvisor binary itself, running in the container,
 *    dumpable, where the container opens /proc/PID/exe and writes the host
 *    binary once the runtime has exited (PR_SET_DUMPABLE cannot help: it is
 *    reset by that very execve);
 *  - a container holding CAP_SYS_PTRACE in the initial user namespace
 *    opens /proc/PID/exe of the (non-dumpable) child directly.
 * Both end at the file behind /proc/PID/exe. So create, run, exec and do
 * re-execute themselves, from a constructor of the cvisor binary before
 * main (exe-guard-init.c, linked into the binary only), from an image no
 * handle can write: a detached read-only bind mount of the binary (no copy;
 * needs CAP_SYS_ADMIN), else a sealed memfd copy (write, grow, shrink and
 * seal sealed: every write fails with EPERM). Nothing is done when
 * /proc/self/exe already is such an image or a file on a read-only mount, nor
 * for the sandbox verbs (do, sandbox-keeper) when the image is one their
 * program cannot write (cv_guard_sandbox_image_safe). Other
 * verbs (state, kill, list ...) never enter a container and skip it. The
 * static binary on x86-64 takes the bind-mount step at its entry point,
 * before the C library starts (src/exe-guard-early.c); this constructor then
 * takes its verdict of a safe image, or tries again with the fallback. The
 * cost is one execve (~0.3 ms from the entry point; plus the copy on the
 * memfd path); the non-dumpable runtime remains as a second layer.
 *
 * A program embedding the library has no such constructor: it cannot
 * re-execute itself, and its own arguments are none of our business. Its
 * create, run and exec run the cvisor binary instead (helper.c), which
 * protects itself; cv_exe_guard_armed() tells the two apart. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mount.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "lifecycle/exe-guard.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

extern char **environ;

/* -1: the constructor did not act (not a container verb); 0: protected;
 * >0: errno of the failed step. */
static int guard_errno = -1;
static const char *guard_step = "";

static bool fd_is_safe(int fd)
{
	struct statvfs sv;
	long seals = fcntl(fd, F_GET_SEALS);
	bool ok = seals < 0 && fstatvfs(fd, &sv) == 0;
	return cv_guard_image_safe(seals, ok, ok ? sv.f_flag : 0);
}

static int fail(const char *step)
{
	guard_errno = errno ? errno : EIO;
	guard_step = step;
	return -1;
}

static int reexec_fd(int fd, char **argv)
{
	syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
	int e = errno;
	close(fd);
	errno = e;
	return fail("re-exec the protected image");
}

/* See cv_guard_sandbox_image_safe. */
static bool sandbox_cannot_write(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return false;
	bool acl = fgetxattr(fd, "system.posix_acl_access", NULL, 0) >= 0 || (errno != ENODATA && errno != EOPNOTSUPP);
	return cv_guard_sandbox_image_safe(st.st_uid, st.st_mode, acl);
}

static int reexec_sealed(enum cv_guard_verb verb, char **argv)
{
	int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe < 0)
		return fail("open /proc/self/exe");
	if (fd_is_safe(exe) || (verb == CV_GUARD_VERB_SANDBOX && sandbox_cannot_write(exe))) {
		close(exe);
		guard_errno = 0;
		return 0;
	}
	/* First choice: a detached read-only bind mount of the binary itself
	 * (no copy, the page cache stays shared); it needs CAP_SYS_ADMIN. */
	int tree = (int)syscall(SYS_open_tree, exe, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree >= 0) {
		struct mount_attr ma = { .attr_set = MOUNT_ATTR_RDONLY };
		if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &ma, sizeof(ma)) == 0) {
			close(exe);
			return reexec_fd(tree, argv);
		}
		close(tree);
	}
	struct stat st;
	if (fstat(exe, &st) < 0) {
		close(exe);
		return fail("stat /proc/self/exe");
	}
	unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	int mfd = (int)syscall(SYS_memfd_create, "cvisor", flags | MFD_EXEC);
	if (mfd < 0 && errno == EINVAL)
		mfd = (int)syscall(SYS_memfd_create, "cvisor", flags);
	if (mfd < 0) {
		close(exe);
		return fail("memfd_create");
	}
	off_t off = 0;
	while (off < st.st_size) {
		ssize_t n = sendfile(mfd, exe, &off, (size_t)(st.st_size - off));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			close(exe);
			close(mfd);
			return fail("copy the binary into a memfd");
		}
	}
	close(exe);
	if (fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		close(mfd);
		return fail("seal the memfd copy");
	}
	return reexec_fd(mfd, argv);
}

void cv_exe_guard_protect(int argc, char **argv)
{
	enum cv_guard_verb verb = cv_guard_verb(argc, argv);
	if (verb != CV_GUARD_VERB_OTHER)
		(void)reexec_sealed(verb, argv);
}

void cv_exe_guard_protected(void)
{
	guard_errno = 0;
}

bool cv_exe_guard_armed(void)
{
	return guard_errno >= 0;
}

int cv_exe_guard_check(cv_error_t *err)
{
	if (guard_errno == 0)
		return 0;
	if (guard_errno > 0)
		return cv_error(err, guard_errno, "protect the runtime binary (CVE-2019-5736): %s", guard_step);
	/* Not set up before main: a program embedding libcvisor, whose calls
	 * entering a container run the helper and never get here. Should one
	 * get here all the same, accept only an image that is already safe. */
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "protect the runtime binary (CVE-2019-5736): open /proc/self/exe");
	bool safe = fd_is_safe(fd);
	close(fd);
	if (!safe)
		return cv_error(err, EPERM,
				"the runtime binary is writable and this process does not run from a sealed copy "
				"(CVE-2019-5736): run create, run and exec through the cvisor command");
	guard_errno = 0;
	return 0;
}
