/* The watcher of a `cvisor do` run (watcher.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"
#include "raw-syscall.h"
#include "sandbox/watcher.h"

#define DONE_BYTE 'd'
#define WATCHER_STACK (16 * 1024)
#define WATCHER_MAX_DROP 16

/* At the start of the watcher's memory; ARGV's strings follow. */
struct watcher_args {
	int rfd, wfd; /* the pipe's ends: the copy of ours closed at once */
	size_t ndrop;
	int drop[WATCHER_MAX_DROP];
	char **argv;
	char *envp[1];
};

/* The kernel's struct sigaction (x86-64 and arm64 both have sa_restorer). */
struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

__attribute__((no_sanitize_address)) static int watcher_main(void *arg)
{
	struct watcher_args *a = arg;
	cv_sys(SYS_close, a->wfd, 0, 0);
	for (size_t i = 0; i < a->ndrop; i++)
		cv_sys(SYS_close, a->drop[i], 0, 0);
	cv_sys(SYS_setpgid, 0, 0, 0);
	struct kernel_sigaction ign = { .handler = SIG_IGN };
	static const int ignored[] = { SIGINT, SIGHUP, SIGTERM };
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		cv_sys4(SYS_rt_sigaction, ignored[i], &ign, 0, sizeof(ign.mask));
	long null = cv_sys4(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC, 0);
	if (null >= 0) {
		cv_sys(SYS_dup3, null, STDIN_FILENO, 0);
		cv_sys(SYS_dup3, null, STDOUT_FILENO, 0);
		cv_sys(SYS_close, null, 0, 0);
	}
	char b = 0;
	long n;
	do
		n = cv_sys(SYS_read, a->rfd, &b, 1);
	while (n == -EINTR);
	if (n == 1 && b == DONE_BYTE)
		cv_sys(SYS_exit_group, 0, 0, 0);
	cv_sys(SYS_execve, a->argv[0], a->argv, a->envp);
	cv_sys(SYS_exit_group, 127, 0, 0);
	return 127;
}

/* The memory of a watcher that was reaped, kept for the next one: its
 * munmap flushed the TLB of every CPU the supervisor, its init and the
 * watcher ran on (~0.1 ms at the end of a run here), and a process's exit
 * unmaps it anyway. Its size is in its first word while it waits. One is
 * kept; a second is unmapped. */
static _Atomic(void *) spare_mem;

static void *memory_take(size_t *size)
{
	void *m = atomic_exchange(&spare_mem, NULL);
	if (m && *(size_t *)m >= *size) {
		*size = *(size_t *)m;
		return m;
	}
	if (m)
		munmap(m, *(size_t *)m);
	m = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

static void memory_give_back(void *m, size_t size)
{
	void *none = NULL;
	*(size_t *)m = size;
	if (!atomic_compare_exchange_strong(&spare_mem, &none, m))
		munmap(m, size);
}

/* ARGV laid out in W's memory after the header; the header filled. */
static int watcher_memory(struct cv_watcher *w, char *const *argv, const int *drop, size_t ndrop, int rfd,
			  struct watcher_args **out, cv_error_t *err)
{
	size_t argc = 0, strings = 0;
	for (; argv[argc]; argc++)
		strings += strlen(argv[argc]) + 1;
	if (ndrop > WATCHER_MAX_DROP)
		return cv_error(err, E2BIG, "sandbox watcher: %zu fds to close", ndrop);
	size_t head = sizeof(struct watcher_args) + (argc + 1) * sizeof(char *) + strings;
	w->mem_size = ((head + 4095) & ~(size_t)4095) + WATCHER_STACK;
	w->mem = memory_take(&w->mem_size);
	if (!w->mem)
		return cv_error_errno(err, "sandbox watcher: memory");
	struct watcher_args *a = w->mem;
	*a = (struct watcher_args){ 0 }; /* a kept one holds the last run's */
	a->rfd = rfd;
	a->wfd = w->wfd;
	for (size_t i = 0; i < ndrop; i++)
		if (drop[i] >= 0)
			a->drop[a->ndrop++] = drop[i];
	a->argv = (char **)(a + 1);
	char *s = (char *)(a->argv + argc + 1);
	for (size_t i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]) + 1;
		a->argv[i] = memcpy(s, argv[i], len);
		s += len;
	}
	a->argv[argc] = NULL;
	a->envp[0] = NULL;
	*out = a;
	return 0;
}

int cv_watcher_start(struct cv_watcher *w, char *const *argv, const int *drop, size_t ndrop, cv_error_t *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return cv_error_errno(err, "sandbox watcher: pipe");
	cleanup_close int rfd = p[0];
	w->wfd = p[1];
	struct watcher_args *a = NULL;
	if (watcher_memory(w, argv, drop, ndrop, rfd, &a, err) < 0) {
		cv_watcher_release(w);
		return -1;
	}
#if CV_HAVE_RAW_SYSCALL
	w->pid = clone(watcher_main, (char *)w->mem + w->mem_size, CLONE_VM | CLONE_PIDFD | SIGCHLD, a, &w->pidfd);
#else
	w->pid = fork();
	if (w->pid == 0)
		_exit(watcher_main(a));
	if (w->pid > 0)
		w->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0);
#endif
	if (w->pid < 0) {
		int e = errno;
		cv_watcher_release(w);
		return cv_error(err, e, "sandbox: start the watcher");
	}
	return 0;
}

void cv_watcher_done(struct cv_watcher *w)
{
	char b = DONE_BYTE;
	if (w->wfd < 0)
		return;
	if (w->pid > 0 && write(w->wfd, &b, 1) != 1)
		cv_warn("sandbox: tell the watcher we are done: %s", strerror(errno));
	close(w->wfd);
	w->wfd = -1;
}

void cv_watcher_release(struct cv_watcher *w)
{
	cv_watcher_done(w);
	bool reaped = w->pid <= 0;
	if (!reaped) {
		struct pollfd pf = { w->pidfd, POLLIN, 0 };
		int r;
		do
			r = w->pidfd >= 0 ? poll(&pf, 1, 1000) : 1;
		while (r < 0 && errno == EINTR);
		pid_t got;
		do
			got = waitpid(w->pid, NULL, r > 0 ? 0 : WNOHANG);
		while (got < 0 && errno == EINTR);
		reaped = got == w->pid;
		if (!reaped)
			cv_warn("sandbox: the watcher %d has not exited", (int)w->pid);
		w->pid = -1;
	}
	if (w->pidfd >= 0) {
		close(w->pidfd);
		w->pidfd = -1;
	}
	/* its stack: never taken from under it */
	if (w->mem && reaped)
		memory_give_back(w->mem, w->mem_size);
	w->mem = NULL;
}
