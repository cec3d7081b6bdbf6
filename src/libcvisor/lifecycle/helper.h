/* The helper: in a program embedding libcvisor, create, run and exec run
 * the cvisor binary with the equivalent command line instead of putting the
 * caller's own image into a container (CVE-2019-5736; see cvisor.h and
 * helper.c). Both sides of that are here: the library spawning the binary
 * and reading what it reports, and the binary reporting. */
#ifndef CVISOR_HELPER_H
#define CVISOR_HELPER_H

#include <stdbool.h>
#include <sys/types.h>

#include "cvisor.h"
#include "cvisor-binary.h"
#include "error.h"

/* The library's side. True in any process but the cvisor binary running a
 * verb that enters a container (cv_exe_guard_armed). */
bool cv_helper_needed(void);
/* `cvisor create` (run false) or `cvisor run` through the helper. The
 * options are already checked (abi.h). */
int cv_helper_create(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts,
		     bool run, bool detach, int *exit_status, cv_error_t *err);
int cv_helper_exec(const struct cvisor_context *ctx, const char *id, const struct cvisor_exec_options *opts,
		   int *exit_status, cv_error_t *err);

/* `cvisor VERB` as a helper that stays: its pidfd and our end of its
 * report socket (the helper's READY, LOG, ERROR and EXIT messages arrive
 * there, process/sync.h), for a verb speaking its own protocol on it (the
 * sandbox keeper). DEBUG adds --debug. */
int cv_helper_start(const struct cvisor_context *ctx, const char *verb, bool debug, int *pidfd, int *sock,
		    cv_error_t *err);
/* EPROTO unless VERSION, a READY message's, is this library's. */
int cv_helper_protocol_check(const struct cvisor_context *ctx, int version, cv_error_t *err);
/* The helper binary (see cvisor.h). */
const char *cv_helper_path(const struct cvisor_context *ctx);

/* The binary's side (main) is cvisor-binary.h, but for this one, which
 * run and exec call: the process now runs the container's program; the
 * library kills it through PIDFD when its call is cancelled. No-op unless
 * serving. */
void cv_helper_announce(pid_t pid, int pidfd);
/* The report socket when serving, else -1: the sandbox keeper speaks its
 * own protocol on it (sandbox/keeper.h). */
int cv_helper_socket(void);

#endif
