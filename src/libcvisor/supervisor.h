/* The supervisor of `cvisor do`: one sandboxed program, start to finish.
 *
 * It writes a private bundle (a 0700 directory next to the state root) with
 * the config.json of cv_sandbox_spec(), creates and starts the container
 * through the ordinary lifecycle code (the container's init is its child),
 * then waits: for the program, for the timeout (SIGKILL to the cgroup and to
 * the pid namespace's init, which takes every process with it), and copies
 * stdout/stderr through pipes when max_output_bytes caps them. Before
 * deleting the container it reads what the cgroup recorded (OOM kills, pids
 * limit hits, CPU time, peak memory) for the report.
 *
 * Cleanup when the supervisor itself dies (even by SIGKILL): a watcher
 * process forked first holds the read end of a pipe only the supervisor can
 * write; end-of-file without the supervisor's "done" byte makes it kill and
 * delete the container and remove the bundle. Whatever still remains (the
 * machine rebooted, the watcher was killed too) is found by
 * cv_sandbox_gc(): a bundle whose lock nobody holds is stale. */
#ifndef CVISOR_SUPERVISOR_H
#define CVISOR_SUPERVISOR_H

#include <stdio.h>

#include "cvisor.h"
#include "error.h"
#include "oci/policy.h"

/* Runs ARGS under POLICY; fills *report (exit_code is the program's). */
int cv_sandbox_do(const struct cvisor_context *ctx, const oci_policy *policy, char *const *args,
		  oci_sandbox_report *report, cv_error_t *err);

/* Removes the containers and bundles of `cvisor do` runs whose supervisor
 * is gone; *removed counts them. */
int cv_sandbox_gc(const struct cvisor_context *ctx, unsigned *removed, cv_error_t *err);

/* Writes to OUT how each limit is enforced on this machine, one line each,
 * found by trying (a probe cgroup is created and removed). */
int cv_sandbox_check(const struct cvisor_context *ctx, FILE *out, cv_error_t *err);

#endif
