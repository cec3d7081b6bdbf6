/* What only the cvisor binary's main (src/cvisor.c) calls in the library,
 * beyond the public cvisor.h: not installed, and not exported by
 * libcvisor.so (the binary links the library statically).
 *
 * The binary's side of the helper (lifecycle/helper.h): in a program
 * embedding libcvisor, create, run and exec run the cvisor binary, which
 * then reports its diagnostics, its error and its exit status to that
 * program instead of printing them. */
#ifndef CVISOR_BINARY_H
#define CVISOR_BINARY_H

#include <stddef.h>

#include "error.h"

/* 1 when this process is a helper (the library named its report socket in
 * the environment, now taken out of it), 0 when not, < 0 when the socket
 * named is unusable. */
int cv_helper_serve(cv_error_t *err);
/* A log sink (cv_log_set_sink) sending each line to the library. */
void cv_helper_log(int level, const char *msg, void *data);
/* The error the command failed with, for the library to return. */
void cv_helper_fail(const cv_error_t e);
/* The exit status main returns, last. */
void cv_helper_exit(int status);

/* libcvisor's sandbox (cvisor.h, CvisorSandbox; sandbox/keeper.h in the
 * library): `cvisor sandbox-keeper`, which the library runs as its helper
 * for each sandbox (not for users); it returns once the library has gone.
 * And the main of the program `cvisor-agent` (src/cvisor-agent.c), which
 * the library runs inside a sandbox to move files in and out: its exit
 * status. */
struct cvisor_context;
int cv_sandbox_keeper(const struct cvisor_context *ctx, cv_error_t *err);
int cv_sandbox_agent(int argc, char **argv);

/* The watcher of a `cvisor do` run (sandbox/watcher.h) executes `cvisor
 * sandbox-reap PID PID_START ID [KEY VALUE]...` when the supervisor died:
 * the run's init and its cgroup paths (the state's cgroup_paths). It kills
 * what is left of the run (its cgroup, then the init if still that
 * process) and removes the cgroup; failures are warnings, as the
 * supervisor's own. ARGV are the arguments after the verb. */
#define CV_SANDBOX_REAP_VERB "sandbox-reap"
int cv_sandbox_reap(int argc, char *const *argv, cv_error_t *err);

/* This process runs one command and exits: a `cvisor do` container
 * process may share its memory until its program runs
 * (lifecycle/shared-launch.h). INIT_IMAGE (SIZE bytes, or NULL): a
 * sandbox's init as a program of its own (process/init-image.c). */
void cv_shared_launch_allow(const unsigned char *init_image, size_t size);
#ifdef CV_INIT_IMAGE
/* made at build time from process/init-image.c (Makefile.am) */
extern const unsigned char cv_init_image[];
extern const size_t cv_init_image_size;
#endif

/* One --log-format json line, {"level":LEVEL,"msg":MSG,"time":TIME}, in
 * *line (free; no newline). MSG is kept even when it is not UTF-8. < 0 when
 * out of memory. */
int cv_log_line_json(const char *level, const char *msg, const char *time, char **line);

#endif
