/* The minimal init of a container's pid namespace, so that the program is
 * never PID 1 (as bubblewrap's): asked for by the annotation
 * CV_INIT_ANNOTATION, which `cvisor do` sets; other containers are
 * unchanged.
 *
 * The container process starts the program as its child instead of its
 * execve, once seccomp, its credentials and no_new_privs are in place, and
 * stays as PID 1. It reaps every process
 * re-parented to it, forwards every signal it receives to the program, and
 * exits with the program's status (128+N when signal N killed it). A pid
 * namespace's init cannot die of a signal sent from inside, so it also
 * writes the program's raw wait status (cv_init_status_word) to the status fd, when it
 * has one, for the caller to tell "killed by signal N" from "exit 128+N".
 *
 * It runs the cvisor image inside the sandbox, hence: non-dumpable (the
 * program, without CAP_SYS_PTRACE, cannot open its /proc/1/mem, environ, fd
 * or exe), no fd but the status fd, and an image that no handle can write
 * (exe-guard.c: a read-only bind or a sealed memfd). With an image, once
 * the program runs, it executes that program of its own as the init
 * (init-image.c). */
#ifndef CVISOR_INIT_H
#define CVISOR_INIT_H

#include <stdbool.h>

#include "error.h"

/* "true" or "false" (the default). */
#define CV_INIT_ANNOTATION "org.cvisor.init"

/* What the init starts, and how. */
struct cv_init_start {
	const char *exe; /* the program: its path, arguments and environment */
	char *const *argv, *const *envp;
	int status_fd; /* where the init writes the program's wait status, or -1 */
	/* process.terminal: the program takes a process group of its own and
	 * makes it the terminal's foreground one, so that ^C reaches the
	 * program and not the init */
	bool foreground;
	/* >= 0: an fd of the init as a program of its own (init-image.c),
	 * executed once the program runs; on failure the init stays as it is */
	int image_fd;
	/* NLEAVE (at most CV_INIT_MAX_LEAVE) fds that move their writer out
	 * of the container's cgroup (cv_cgroup_leave_open), written once the
	 * program ended and the namespace is empty, before the status */
	const int *leave_fds;
	size_t nleave;
	/* The v1 memory cgroup kept from the init, which shares the runtime's
	 * memory, so that its OOM killer never meets the runtime
	 * (cv_cgroup_memory_apart): the init writes MEMORY_LEAVE before the
	 * program starts, the program MEMORY_JOIN before its execve. -1
	 * both when the init stays in it (no limit, or an image). */
	int memory_leave_fd, memory_join_fd;
};

/* Starts the program as our child and becomes the init: never returns
 * once the program's execve ran. Returns an error when the program could
 * not start (its execve failed: "exec `EXE`: ..."). */
int cv_init_exec(const struct cv_init_start *s, cv_error_t *err);

#endif
