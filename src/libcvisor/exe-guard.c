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
 * re-execute themselves, from a constructor before main, from an image no
 * handle can write: a detached read-only bind mount of the binary (no copy;
 * needs CAP_SYS_ADMIN), else a sealed memfd copy (write, grow, shrink and
 * seal sealed: every write fails with EPERM). Nothing is done when
 * /proc/self/exe already is such an image or a file on a read-only mount. Other
 * verbs (state, kill, list ...) never enter a container and skip it. The
 * cost is one execve (~0.7 ms, measured; plus the copy on the memfd path);
 * the non-dumpable runtime remains as a second layer. */
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
#include <unistd.h>

#include "exe-guard.h"

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
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals >= 0 && (seals & F_SEAL_WRITE) && (seals & F_SEAL_SEAL))
		return true;
	struct statvfs sv;
	return fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

/* The verb of `cvisor [GLOBAL FLAGS] VERB ...`: global flags taking a value
 * are skipped with it (the CLI's list in src/cvisor.c). */
static bool verb_enters_container(char *args, size_t len)
{
	static const char *const with_value[] = { "--root", "--log", "--log-format", "--rootless", "--criu" };
	static const char *const verbs[] = { "create", "run", "exec", "do" };
	char *p = args, *end = args + len;
	if (p < end)
		p += strlen(p) + 1; /* argv[0] */
	while (p < end) {
		if (p[0] == '-') {
			bool skip_next = false;
			for (size_t i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++)
				if (strcmp(p, with_value[i]) == 0 || (p[1] != '-' && strcmp(p, with_value[i] + 1) == 0))
					skip_next = true;
			p += strlen(p) + 1;
			if (skip_next && p < end)
				p += strlen(p) + 1;
			continue;
		}
		for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
			if (strcmp(p, verbs[i]) == 0)
				return true;
		return false;
	}
	return false;
}

static int fail(const char *step)
{
	guard_errno = errno ? errno : EIO;
	guard_step = step;
	return -1;
}

static int reexec_fd(int fd, char *args, size_t len)
{
	size_t argc = 0;
	for (char *p = args; p < args + len; p += strlen(p) + 1)
		argc++;
	char **argv = calloc(argc + 1, sizeof(char *));
	if (!argv) {
		close(fd);
		return fail("re-exec");
	}
	size_t i = 0;
	for (char *p = args; p < args + len; p += strlen(p) + 1)
		argv[i++] = p;
	syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
	int e = errno;
	free(argv);
	close(fd);
	errno = e;
	return fail("re-exec the protected image");
}

static int reexec_sealed(char *args, size_t len)
{
	int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe < 0)
		return fail("open /proc/self/exe");
	if (fd_is_safe(exe)) {
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
			return reexec_fd(tree, args, len);
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
	return reexec_fd(mfd, args, len);
}

__attribute__((constructor)) static void cv_exe_guard_init(void)
{
	char buf[65536];
	size_t len = 0;
	int saved = errno;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errno = saved;
		return;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(buf) - 1)
			break;
	}
	close(fd);
	buf[len] = '\0';
	if (len && buf[len - 1] != '\0')
		buf[len++] = '\0';
	if (verb_enters_container(buf, len)) {
		if (len >= sizeof(buf) - 1) {
			errno = E2BIG; /* re-executing a truncated command line would be wrong */
			(void)fail("read /proc/self/cmdline");
		} else
			(void)reexec_sealed(buf, len);
	}
	errno = saved;
}

int cv_exe_guard_check(cv_error_t *err)
{
	if (guard_errno == 0)
		return 0;
	if (guard_errno > 0)
		return cv_error(err, guard_errno, "protect the runtime binary (CVE-2019-5736): %s", guard_step);
	/* Not set up before main (a program embedding libcvisor): accept only
	 * an image that is already safe. */
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
