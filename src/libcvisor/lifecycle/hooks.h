/* OCI hooks: each hook runs with the state JSON on stdin, exactly its own
 * args, its own env (the runtime's environment when it has none, as runc),
 * and an optional timeout after which it is killed. */
#ifndef CVISOR_HOOKS_H
#define CVISOR_HOOKS_H

#include "error.h"
#include "oci/spec.h"

/* Runs the hooks in order; stops at the first failure. `kind` names the hook
 * point in errors ("prestart", "createRuntime", ...). */
int cv_hooks_run(const oci_hook_list *hooks, const char *kind, const char *state_json, cv_error_t *err);
/* Same, but failures become warnings (poststart, poststop). */
void cv_hooks_run_warn(const oci_hook_list *hooks, const char *kind, const char *state_json);

#endif
