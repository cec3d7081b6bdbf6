/* The supervisor of `cvisor do`: one sandboxed program, start to finish.
 *
 * It builds the config.json of cv_sandbox_spec() in a memfd and launches it
 * with cv_run_transient(): the ordinary lifecycle code, but with no record
 * in the state store (nothing of a run is written to disk, `cvisor list`
 * does not show it) and a container process that dies with the supervisor
 * (PR_SET_PDEATHSIG). That process stays as the sandbox's init (init.h),
 * the program its child. The supervisor then waits: for the init, for the
 * timeout (SIGKILL to the cgroup and to the init, which takes every process
 * of the pid namespace with it), and for signals, which it forwards to the
 * program. The program's stdio is the caller's, except: a terminal becomes
 * a pty of the sandbox's own, a regular file or a capped stream a pipe,
 * copied by threads (relay.h) so that no reader can stall the loop that
 * enforces the timeout. Before removing the cgroup it reads what it
 * recorded (OOM kills, pids limit hits, CPU time, peak memory) for the
 * report.
 *
 * Cleanup when the supervisor itself dies (even by SIGKILL): its program
 * dies with it, and a watcher process (watcher.h), started once the program
 * runs, holds the read end of a pipe only the supervisor writes;
 * end-of-file without the supervisor's "done" byte makes it execute
 * `cvisor sandbox-reap`, which removes the cgroup. A run without a
 * cgroup needs no watcher, nor one whose parent watches it (libcvisor's
 * keeper: cv_sandbox_run_remove). If the watcher was killed too,
 * cv_sandbox_gc() finds the cgroup directories of runs whose byte of the
 * bundles directory's lock file nobody holds and whose supervisor's pid is
 * gone.
 *
 * After the program ran, the supervisor touches on the host only: the
 * cgroup files it reads and the directories it removes (kernfs: no symlink,
 * no FIFO can be made there), /proc/thread-self/children, its own fds (the
 * caller's stdio, the pty master, pipes) and, for the gc of other runs
 * while the program runs, the bundles directory's lock file (in the state
 * root, outside the sandbox's reach).
 * The report file, which may lie in the workspace, is written by
 * cvisor_do() (do.c) through a directory fd opened before the run
 * (cv_write_file_atomic). */
#ifndef CVISOR_SUPERVISOR_H
#define CVISOR_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cvisor.h"
#include "error.h"
#include "sandbox/policy.h"

/* Runs ARGS under POLICY; fills *report (exit_code is the program's). The
 * cgroup's figures (peak memory, OOM kills, pids limit hits, CPU time) are
 * read only when FIGURES: they cost a few file reads after the program.
 * KILL_FD (-1: none) readable or hung up kills the whole sandbox, as the
 * timeout does: libcvisor's keeper passes the read end of a pipe whose
 * writer is the library (a kill, or the library's process gone).
 * WATCHED: our parent removes the run's cgroup should we die
 * (cv_sandbox_run_remove) and runs the gc itself: no watcher, no gc here. */
int cv_sandbox_do(const struct cvisor_context *ctx, const cv_policy *policy, char *const *args, bool figures,
		  bool watched, int kill_fd, cv_sandbox_report *report, cv_error_t *err);

/* A prepared run: what comes with the request for it. */
struct cv_sandbox_start {
	char *args;          /* "ARG\0" for each argument, malloc'd (taken over) */
	size_t args_len;     /* bytes of args, every NUL counted */
	int stdin_fd;        /* the program's fd 0 (taken over), or -1: ours */
	int kill_fd;         /* as cv_sandbox_do's, -1: none (stays the caller's) */
	uint64_t timeout_ms; /* 0: none */
};
typedef int (*cv_sandbox_await_fn)(void *arg, struct cv_sandbox_start *start, cv_error_t *err);
/* cv_sandbox_do as a watched run, but made before its program is known:
 * everything of the sandbox is set up (namespaces, mounts, cgroup,
 * credentials), then AWAIT blocks until the run is wanted. It fills *start
 * and makes our fds 1 and 2 the run's stdout and stderr (they get relays:
 * the stream caps hold as in any run); the program then runs with POLICY's
 * environment and cwd. AWAIT failing (nothing to run after all) ends the
 * sandbox, and this fails with its error. Nothing of POLICY may differ
 * from what a run made at once would use but timeout_ms, which comes from
 * *start instead. */
int cv_sandbox_do_prepared(const struct cvisor_context *ctx, const cv_policy *policy, bool figures,
			   cv_sandbox_await_fn await, void *arg, cv_sandbox_report *report, cv_error_t *err);

/* <state root>SUFFIX: a directory beside the state root, not in it (every
 * directory there is taken for a container). */
int cv_state_root_sibling(const struct cvisor_context *ctx, const char *suffix, char **out, cv_error_t *err);
/* <state root>-sandbox: the runs' lock file. */
int cv_sandbox_bundles_dir(const struct cvisor_context *ctx, char **out, cv_error_t *err);

/* Removes the cgroup directories of `cvisor do` runs whose supervisor and
 * watcher are gone; *removed counts the directories. */
int cv_sandbox_gc(const struct cvisor_context *ctx, unsigned *removed, cv_error_t *err);
/* The watch of a parent over its watched runs: removes the cgroup
 * directories of the run whose supervisor was process PID, dead and reaped;
 * *left counts those still there (its init may be dying yet: try again). */
int cv_sandbox_run_remove(const struct cvisor_context *ctx, pid_t pid, unsigned *left, cv_error_t *err);

/* What the watcher executes when the supervisor died, `cvisor
 * sandbox-reap`, is cv_sandbox_reap() in cvisor-binary.h. */

/* Writes to OUT how each limit is enforced on this machine, one line each,
 * found by trying (a probe cgroup is created and removed). */
int cv_sandbox_check(const struct cvisor_context *ctx, FILE *out, cv_error_t *err);

#endif
