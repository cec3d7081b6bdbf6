/* A transient container process that shares the runtime's memory.
 *
 * A forked container process costs the runtime a copy of its page tables,
 * then both processes a copy-on-write fault for each page they write, and
 * the init's exit the teardown of its copy. On a VM with shadow page tables
 * that was 1.5 ms of a 9 ms `cvisor do true` (tests/bench/README.md).
 * clone(CLONE_VM) instead runs the container process's set-up, the
 * runtime's own code, in the runtime's memory: its heap, its globals and
 * its thread pointer, so its errno.
 *
 * That is sound only while the runtime touches none of it. From the clone
 * until the container process closes the sync socket (its program runs,
 * or it failed and exited) the runtime only waits in cv_shared_launch_wait:
 * raw system calls, on its own stack, into this struct. What the child
 * needs of the runtime meanwhile, its id maps, is formatted before the
 * clone. Past that point the container process is the init, which makes
 * raw system calls only (process/init.c), or (a memory limit) has executed
 * a program of its own (process/init-image.c); the global it changed, the log
 * sink, is put back by cv_shared_launch_result.
 *
 * Allowed only in the cvisor binary's one-shot commands
 * (cv_shared_launch_allow: no signal handlers, nothing else running, and
 * the child's allocations and stack never given back), single-threaded
 * (the C library's set*id then go straight to the kernel, instead of
 * signalling every thread it knows, which are ours), for a launch that
 * needs nothing else of the runtime before its program runs (create.c
 * decides). Everything else forks as before.
 *
 * The init then runs in the runtime's memory inside the sandbox: it stays
 * non-dumpable, so the program, without CAP_SYS_PTRACE over the runtime's
 * user namespace, can neither ptrace it nor read or write its memory
 * (sandbox-attacks.bats). A fork's init was the same, with a copy. */
#ifndef CVISOR_SHARED_LAUNCH_H
#define CVISOR_SHARED_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "process/namespaces.h"

struct cv_shared_launch {
	/* the container process's stack: its set-up, then the init's loop */
	void *stack;
	size_t stack_size;
	/* written on NS_READY, before CONTINUE (cv_ns_id_map_files) */
	struct cv_ns_map_file maps[3];
	size_t nmaps;
	/* what the wait saw */
	bool ready;             /* READY came */
	bool error;             /* CV_SYNC_ERROR came (the first one is kept) */
	bool error_after_ready; /* after READY: the program did not start */
	int error_errnum;
	char error_msg[1024];
	int fail;              /* -errno of a step of the wait's own, or 0 */
	const char *fail_step; /* its static description */
	const char *fail_file; /* the map file it wrote, or NULL */
	unsigned unexpected;   /* a message type the wait cannot answer */
	size_t log_len;        /* LOG lines: a level byte, the text, NUL */
	bool log_cut;
	char log[4096];
};

/* For the cvisor binary's one-shot commands: see above. INIT_IMAGE, SIZE
 * bytes (NULL: none), is the sandbox's init as a program of its own
 * (process/init-image.c). */
void cv_shared_launch_allow(const unsigned char *init_image, size_t size);
/* Whether this process may share its memory with a container process now. */
bool cv_shared_launch_allowed(void);

/* Formats the id maps (LINUX's, for a new user namespace when USERNS) and
 * maps the stack. 1 when ready, 0 when this launch cannot share (a map
 * needs the setuid helpers, or is too long: the caller forks), < 0 on
 * error. */
int cv_shared_launch_prepare(struct cv_shared_launch *s, const oci_linux *linux_, bool userns, cv_error_t *err);

/* clone3 of ARGS (flags, pidfd, cgroup) with CLONE_VM, of FN(ARG) on the
 * stack; the pid, or -1 with errno. CLONE_INTO_CGROUP only where
 * cv_shared_launch_clone_into_cgroup() (x86-64): elsewhere ENOSYS. */
struct clone_args;
pid_t cv_shared_launch_clone(struct cv_shared_launch *s, const struct clone_args *args, int (*fn)(void *), void *arg);
bool cv_shared_launch_clone_into_cgroup(void);

/* The runtime's side of the sync protocol until the socket's end of file:
 * closes CHILD_END (our copy of the child's end) first, writes the id maps
 * of PID on NS_READY and answers CONTINUE, and keeps READY, errors and log
 * lines here. A failure of its own kills the child (PIDFD). Raw system
 * calls only: see above. */
void cv_shared_launch_wait(struct cv_shared_launch *s, pid_t pid, int pidfd, int sock, int child_end);

/* After the wait: the log sink SAVED_* put back, the child's lines logged,
 * and its error (or ours) in *err: < 0 when the container is not ready.
 * An error that came after READY is left for cv_shared_launch_program. */
struct cv_log_saved;
int cv_shared_launch_result(struct cv_shared_launch *s, pid_t pid, const struct cv_log_saved *saved, cv_error_t *err);
/* < 0 with the container process's error when its program did not start. */
int cv_shared_launch_program(const struct cv_shared_launch *s, cv_error_t *err);

/* The OOM killer kills every process sharing its victim's memory: an init
 * chosen in the sandbox's memory cgroup (where its RSS, the runtime's
 * whole image, may be the largest: a program of small processes) would
 * take the runtime and its watcher along, and with them the report and
 * the cleanup. A run with a memory limit therefore shares only where the
 * init can execute a program of its own once the program runs
 * (process/init-image.c: cv_shared_launch_allow's INIT_IMAGE, and
 * fs.suid_dumpable not 1, under which that execve would be dumpable);
 * elsewhere it forks. _fd makes the image's memfd: an O_PATH fd, or -1. */
bool cv_shared_launch_image_init(void);
int cv_shared_launch_image_fd(cv_error_t *err);

/* Unmaps the stack: only once the container process is gone (reaped). */
void cv_shared_launch_release(struct cv_shared_launch *s);

#endif
