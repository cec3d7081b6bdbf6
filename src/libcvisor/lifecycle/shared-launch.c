/* A transient container process sharing the runtime's memory (see
 * shared-launch.h). */
#include "config.h"

#include <errno.h>
#include <linux/sched.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define HAVE_SINGLE_THREADED 1
#endif

#include "io.h"
#include "log.h"
#include "raw-syscall.h"
#include "lifecycle/shared-launch.h"
#include "process/sync.h"

/* The set-up's deepest paths (a tmpcopyup tree, PATH_MAX buffers) stay far
 * below; untouched pages cost nothing. A guard page below it. */
#define STACK_SIZE (2u << 20)
#define GUARD_SIZE 4096u
#define STACK_USED (32u << 10)

static bool allowed;
static const unsigned char *init_image;
static size_t init_image_size;

void cv_shared_launch_allow(const unsigned char *image, size_t size)
{
	allowed = true;
	init_image = image;
	init_image_size = size;
}

/* Not under AddressSanitizer: it takes the child, on a stack it does not
 * know, for our thread, and warns on the container's stderr. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

bool cv_shared_launch_allowed(void)
{
#if CV_HAVE_RAW_SYSCALL && defined(HAVE_SINGLE_THREADED) && !defined(SANITIZED)
	return allowed && __libc_single_threaded;
#else
	return false;
#endif
}

int cv_shared_launch_prepare(struct cv_shared_launch *s, const oci_linux *linux_, bool userns, cv_error_t *err)
{
	s->nmaps = 0;
	if (userns && cv_ns_id_map_files(linux_, s->maps, &s->nmaps) != 0)
		return 0;
	void *m = mmap(NULL, STACK_SIZE + GUARD_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return cv_error_errno(err, "the container process's stack");
	if (mprotect(m, GUARD_SIZE, PROT_NONE) < 0) {
		int e = errno;
		munmap(m, STACK_SIZE + GUARD_SIZE);
		return cv_error(err, e, "the container process's stack: guard page");
	}
	s->stack = m;
	s->stack_size = STACK_SIZE + GUARD_SIZE;
	/* the pages its set-up writes, made in one call (cvisor.c says why) */
	(void)madvise((char *)m + s->stack_size - STACK_USED, STACK_USED, MADV_POPULATE_WRITE);
	return 1;
}

#if defined(__x86_64__)
/* clone3 of FN(ARG) on the stack CA names: the child starts there with our
 * registers, calls FN and exits with what it returns; the parent gets the
 * kernel's return. The C library has no clone3 with a function. */
static long clone3_call(struct clone_args *ca, int (*fn)(void *), void *arg)
{
	register long r12 __asm__("r12") = (long)fn;
	register long r13 __asm__("r13") = (long)arg;
	long ret;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov %[exit], %%eax\n\t"
			 "syscall\n\t"
			 "hlt\n"
			 "1:"
			 : "=a"(ret)
			 : "a"((long)SYS_clone3), "D"(ca), "S"(sizeof(*ca)), "r"(r12), "r"(r13), [exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	return ret;
}
#endif

bool cv_shared_launch_clone_into_cgroup(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;
#endif
}

pid_t cv_shared_launch_clone(struct cv_shared_launch *s, const struct clone_args *args, int (*fn)(void *), void *arg)
{
	struct clone_args ca = *args;
	ca.flags |= CLONE_VM | CLONE_PIDFD;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uint64_t)(uintptr_t)s->stack;
	ca.stack_size = s->stack_size;
#if defined(__x86_64__)
	long r = clone3_call(&ca, fn, arg);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (pid_t)r;
#else
	if (ca.flags & CLONE_INTO_CGROUP) {
		errno = ENOSYS;
		return -1;
	}
	return clone(fn, (char *)s->stack + s->stack_size, (int)ca.flags | SIGCHLD, arg, (int *)(uintptr_t)ca.pidfd);
#endif
}

void cv_shared_launch_release(struct cv_shared_launch *s)
{
	if (s->stack)
		munmap(s->stack, s->stack_size);
	s->stack = NULL;
}

bool cv_shared_launch_image_init(void)
{
	static int dumpable = -1; /* fs.suid_dumpable, read once */
	if (!init_image)
		return false;
	if (dumpable < 0) {
		char v[8];
		ssize_t n = cv_read_buf_at(AT_FDCWD, "/proc/sys/fs/suid_dumpable", v, sizeof(v));
		dumpable = n > 0 && v[0] != '1' ? 0 : 1; /* unreadable: as if 1 */
	}
	return dumpable == 0;
}

int cv_shared_launch_image_fd(cv_error_t *err)
{
	/* MFD_EXEC: kernels since 6.3 ask for it (or warn); older refuse it */
	int fd = memfd_create("cvisor-init", MFD_CLOEXEC | MFD_ALLOW_SEALING | 0x10u);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("cvisor-init", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return cv_error_errno(err, "memfd for the sandbox's init");
	int r = cv_write_all(fd, init_image, init_image_size);
	if (r < 0) {
		close(fd);
		return cv_error(err, -r, "write the sandbox's init into its memfd");
	}
	/* executable, readable by nobody (its execve is then non-dumpable),
	 * and sealed; an O_PATH fd to execute: the memfd's own is a writer
	 * (execve would say ETXTBSY) */
	char self[32];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	int path = -1;
	if (fchmod(fd, 0111) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0 ||
	    (path = open(self, O_PATH | O_CLOEXEC)) < 0) {
		int e = errno;
		close(fd);
		return cv_error(err, e, "seal the sandbox's init in its memfd");
	}
	close(fd);
	return path;
}

/* ---- the wait: raw system calls, our own stack and S only (memcpy
 * touches nothing else) ---- */

static void fail(struct cv_shared_launch *s, long r, const char *step, const char *file)
{
	if (!s->fail) {
		s->fail = (int)(r < 0 ? r : -EIO);
		s->fail_step = step;
		s->fail_file = file;
	}
}

/* "/proc/PID/NAME" into BUF (48 bytes: a pid has 10 digits at most, the
 * names are short). */
static void proc_path(char *buf, pid_t pid, const char *name)
{
	char digits[12];
	size_t n = 0, k = 0;
	unsigned v = (unsigned)pid;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof(digits));
	memcpy(buf, "/proc/", 6);
	k = 6;
	while (n)
		buf[k++] = digits[--n];
	buf[k++] = '/';
	for (size_t i = 0; name[i] && k < 47; i++)
		buf[k++] = name[i];
	buf[k] = '\0';
}

static long write_maps(struct cv_shared_launch *s, pid_t pid)
{
	for (size_t i = 0; i < s->nmaps; i++) {
		const struct cv_ns_map_file *f = &s->maps[i];
		char path[48];
		proc_path(path, pid, f->name);
		long fd = cv_sys4(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC, 0);
		if (fd < 0) {
			fail(s, fd, "open", f->name);
			return fd;
		}
		/* the kernel takes a whole map in one write */
		long n = cv_sys(SYS_write, fd, f->text, f->len);
		cv_sys(SYS_close, fd, 0, 0);
		if (n != (long)f->len) {
			fail(s, n, "write", f->name);
			return -1;
		}
	}
	return 0;
}

static void keep_line(struct cv_shared_launch *s, int32_t level, const char *text, size_t len)
{
	if (s->log_len + 2 + len > sizeof(s->log)) {
		s->log_cut = true;
		return;
	}
	s->log[s->log_len++] = (char)(level < CV_LOG_ERROR   ? CV_LOG_ERROR
				      : level > CV_LOG_DEBUG ? CV_LOG_DEBUG
							     : level);
	memcpy(s->log + s->log_len, text, len);
	s->log_len += len;
	s->log[s->log_len++] = '\0';
}

__attribute__((no_sanitize_address)) void cv_shared_launch_wait(struct cv_shared_launch *s, pid_t pid, int pidfd,
								int sock, int child_end)
{
	/* our copy would hold the end of file back */
	cv_sys(SYS_close, child_end, 0, 0);
	for (;;) {
		char msg[8 + 4096];
		long n = cv_sys6(SYS_recvfrom, sock, (long)msg, sizeof(msg), 0, 0, 0);
		if (n == -EINTR)
			continue;
		if (n == 0)
			return; /* the container process's program runs, or it is gone */
		if (n < 0) {
			/* no end of file to wait for: its exit instead */
			fail(s, n, "receive", NULL);
			cv_sys4(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
			struct pollfd pf = { pidfd, POLLIN, 0 };
			while (cv_sys6(SYS_ppoll, (long)&pf, 1, 0, 0, CV_KERNEL_SIGSET_SIZE, 0) == -EINTR)
				;
			return;
		}
		uint32_t type = 0;
		int32_t errnum = 0;
		if (n >= 8) {
			memcpy((char *)&type, msg, 4);
			memcpy((char *)&errnum, msg + 4, 4);
		}
		const char *text = msg + 8;
		size_t len = n >= 8 ? (size_t)n - 8 : 0;
		if (n >= 8 && type == CV_SYNC_NS_READY) {
			const uint32_t cont[2] = { CV_SYNC_CONTINUE, 0 };
			long r = write_maps(s, pid);
			if (r == 0 && (r = cv_sys6(SYS_sendto, sock, (long)cont, sizeof(cont), MSG_NOSIGNAL, 0, 0)) !=
					      sizeof(cont))
				fail(s, r, "send", NULL);
			if (s->fail)
				cv_sys4(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		} else if (n >= 8 && type == CV_SYNC_READY) {
			s->ready = true;
		} else if (n >= 8 && type == CV_SYNC_LOG) {
			keep_line(s, errnum, text, len);
		} else if (n >= 8 && type == CV_SYNC_ERROR) {
			if (!s->error) {
				s->error = true;
				s->error_after_ready = s->ready;
				s->error_errnum = errnum;
				if (len >= sizeof(s->error_msg))
					len = sizeof(s->error_msg) - 1;
				memcpy(s->error_msg, text, len);
				s->error_msg[len] = '\0';
			}
		} else {
			/* nothing here answers it: the child would wait forever */
			s->unexpected = n >= 8 ? type : UINT32_MAX;
			cv_sys4(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		}
	}
}

/* ---- back to the C library ---- */

int cv_shared_launch_result(struct cv_shared_launch *s, pid_t pid, const struct cv_log_saved *saved, cv_error_t *err)
{
	cv_log_set_sink(saved->sink, saved->data, saved->max_level);
	for (size_t off = 0; off < s->log_len;) {
		int level = s->log[off++];
		const char *line = s->log + off;
		cv_log(level, "%s", line);
		off += strlen(line) + 1;
	}
	if (s->log_cut)
		cv_debug("container process: more lines than kept, the rest dropped");
	if (s->fail && s->fail_file)
		return cv_error(err, -s->fail, "%s `/proc/%d/%s`", s->fail_step, (int)pid, s->fail_file);
	if (s->fail)
		return cv_error(err, -s->fail, "sync: %s", s->fail_step);
	if (s->unexpected)
		return cv_error(err, EPROTO, "sync: unexpected message %u", s->unexpected);
	if (s->error && !s->error_after_ready)
		return cv_error_plain(err, s->error_errnum > 0 ? s->error_errnum : 0, "%s", s->error_msg);
	if (!s->ready)
		return cv_error(err, EPIPE, "container process exited unexpectedly");
	return 0;
}

int cv_shared_launch_program(const struct cv_shared_launch *s, cv_error_t *err)
{
	if (s->error && s->error_after_ready)
		return cv_error_plain(err, s->error_errnum > 0 ? s->error_errnum : 0, "%s", s->error_msg);
	return 0;
}
