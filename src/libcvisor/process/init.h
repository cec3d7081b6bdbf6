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
 * (exe-guard.c: a read-only bind or a sealed memfd). */
#ifndef CVISOR_INIT_H
#define CVISOR_INIT_H

#include <stdbool.h>

#include "error.h"

/* "true" or "false" (the default). */
#define CV_INIT_ANNOTATION "org.cvisor.init"

/* Starts the program (EXE, ARGV, ENVP) as our child and becomes the init:
 * never returns once the program's execve ran. STATUS_FD: where the init
 * writes the program's wait status, or -1. FOREGROUND: the process has a
 * controlling terminal (process.terminal): the program takes a process
 * group of its own and makes it the terminal's foreground one, so that ^C
 * reaches the program and not the init. Returns an error when the program
 * could not start (its execve failed: "exec `EXE`: ..."). */
int cv_init_exec(const char *exe, char *const *argv, char *const *envp, int status_fd, bool foreground,
		 cv_error_t *err);

#endif
