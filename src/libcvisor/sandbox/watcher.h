/* The watcher of a `cvisor do` run: cleanup should the supervisor die,
 * even by SIGKILL (supervisor.h says when a run has one).
 *
 * It shares the supervisor's memory (clone with CLONE_VM, as posix_spawn
 * does) instead of copying it: a fork of the supervisor cost ~1 ms of a
 * short run with limits on two CPUs, for a process that waits. It runs on
 * a stack of its own and makes raw system calls only, since the C
 * library's per-thread state (errno, locks) is the supervisor's. It holds
 * the read end of a pipe only the supervisor writes; the supervisor's
 * "done" byte makes it exit, end-of-file without it (the supervisor died)
 * makes it execute ARGV: the cvisor binary's `sandbox-reap`, which kills
 * what is left in the run's cgroup and removes it. That is the first thing
 * done with the shared memory after the supervisor is gone: no lock the
 * supervisor may have died holding is taken. */
#ifndef CVISOR_WATCHER_H
#define CVISOR_WATCHER_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

struct cv_watcher {
	pid_t pid; /* -1: none */
	int pidfd; /* -1: none */
	int wfd;   /* our end of the pipe, -1 once released */
	void *mem; /* its stack and a copy of ARGV; kept for the next watcher once it is reaped */
	size_t mem_size;
};
#define CV_WATCHER_INIT                                                                                                \
	{                                                                                                              \
		.pid = -1, .pidfd = -1, .wfd = -1, .mem = NULL, .mem_size = 0                                          \
	}

/* Starts the watcher. ARGV (NULL-terminated, ARGV[0] an absolute path) is
 * copied. DROP lists NDROP of our fds (-1 skipped) it closes first: the
 * supervisor's ends of the program's pipes, which held by it would keep
 * the program's stdin open and its writes from failing once nobody reads.
 * Its stdin and stdout become /dev/null (it may outlive us: a reader of
 * ours sees the end when we end), it leaves the caller's process group and
 * ignores SIGINT, SIGHUP and SIGTERM (a ^C aimed at the program must not
 * take the cleanup down with it). */
int cv_watcher_start(struct cv_watcher *w, char *const *argv, const int *drop, size_t ndrop, cv_error_t *err);

/* The run is over: the "done" byte; the watcher exits on it. */
void cv_watcher_done(struct cv_watcher *w);
/* cv_watcher_done if not yet, then the watcher is
 * reaped (it exits at once; waited for 1 s at most, else left to the
 * child subreaper's end with its memory). Safe on a watcher never
 * started, and twice. */
void cv_watcher_release(struct cv_watcher *w);

#endif
