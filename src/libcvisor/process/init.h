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
 * writes the program's raw wait status (an int) to the status fd, when it
 * has one, for the caller to tell "killed by signal N" from "exit 128+N".
 *
 * It runs the cvisor image inside the sandbox, hence: non-dumpable (the
 * program, without CAP_SYS_PTRACE, cannot open its /proc/1/mem, environ, fd
 * or exe), no fd but the status fd, and an image that no handle can write
 * (exe-guard.c: a read-only bind or a sealed memfd). With an image fd it
 * executes that image afresh as the init (init-early.h). */
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
	/* >= 0: the runtime's image (an fd of it), executed as the init once
	 * the program's process waits (init-early.h); the program's process
	 * then reports its failure over SYNC_FD itself */
	int image_fd, sync_fd;
};

/* Starts the program as our child and becomes the init: never returns
 * once the program's execve ran (or, with an image, once the image runs).
 * Returns an error when the program could not start (its execve failed:
 * "exec `EXE`: ..."), or the image could not be executed. */
int cv_init_exec(const struct cv_init_start *s, cv_error_t *err);

#endif
