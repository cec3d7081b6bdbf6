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

/* The binary's side (main) is cvisor-binary.h, but for this one, which
 * run and exec call: the process now runs the container's program; the
 * library kills it through PIDFD when its call is cancelled. No-op unless
 * serving. */
void cv_helper_announce(pid_t pid, int pidfd);

#endif
