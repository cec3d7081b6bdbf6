/* The public calls of the sandbox (cvisor.h): cvisor_do runs one program
 * under a policy through the supervisor, and writes its report;
 * cvisor_do_check and cvisor_do_gc wrap the supervisor's. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cleanup.h"
#include "io.h"
#include "fs/safe-path.h"
#include "lifecycle/abi.h"
#include "lifecycle/helper.h"
#include "sandbox/keeper.h"
#include "sandbox/policy.h"
#include "sandbox/supervisor.h"

/* The report goes where the caller named it, but the program may have
 * planted anything at that name meanwhile (the workspace is its own): the
 * directory was opened before the run, and the file replaces the name
 * instead of being opened through it (no symlink followed, no FIFO waited
 * on, see cv_write_file_atomic). */
static int write_report(int dirfd, const char *name, const char *path, const cv_sandbox_report *rep, cv_error_t *err)
{
	cleanup_free char *json = NULL;
	size_t len = 0;
	int r;
	if ((r = cv_sandbox_report_emit(rep, &json, &len, err)) < 0)
		return r;
	json[len] = '\n'; /* over the terminating NUL: the file ends with a newline */
	if (cv_write_file_atomic(dirfd, name, json, len + 1, 0644, err) < 0)
		return cv_error_prefix(err, "report `%s`", path);
	return 0;
}

int cvisor_do(const struct cvisor_context *ctx, char *const *args, const struct cvisor_do_options *opts,
	      int *exit_status, cvisor_error **err)
{
	struct cvisor_context c;
	struct cvisor_do_options o;
	int r;

	if ((r = cv_abi_context(ctx, &c, err)) < 0 || (r = cv_abi_do_options(opts, &o, err)) < 0)
		return r;
	if (!args || !args[0])
		return cv_error(err, EINVAL, "do: no program given");
	if (o.policy_len && (!o.policy_keys || !o.policy_values))
		return cv_error(err, EINVAL, "do: policy_len without policy_keys and policy_values");
	/* the supervisor's process enters the sandbox: only the cvisor binary's
	 * image is protected for that (lifecycle/exe-guard.c) */
	if (cv_helper_needed())
		return cv_error(err, ENOTSUP, "do: only the cvisor binary runs a sandbox (run `cvisor do`)");

	cleanup_policy cv_policy *policy = NULL;
	if ((r = o.policy_path ? cv_policy_load(o.policy_path, &policy, err) : cv_policy_new(&policy, err)) < 0)
		return r;
	for (size_t i = 0; i < o.policy_len; i++)
		if ((r = cv_policy_set(policy, o.policy_keys[i], o.policy_values[i], err)) < 0)
			return r;

	/* bad input fails before the program runs */
	const char *report_name = NULL;
	cleanup_close int report_dir = o.report_path ? cv_open_parent_dir(o.report_path, &report_name, err) : -1;
	if (o.report_path && report_dir < 0)
		return cv_error_prefix(err, "--report");
	cv_sandbox_report rep;
	if ((r = cv_sandbox_do(&c, policy, args, o.report_path != NULL, false, -1, &rep, err)) < 0)
		return r;
	if (o.report_path && (r = write_report(report_dir, report_name, o.report_path, &rep, err)) < 0)
		return r;
	if (exit_status)
		*exit_status = rep.exit_code;
	return 0;
}

int cvisor_do_check(const struct cvisor_context *ctx, char **text, cvisor_error **err)
{
	struct cvisor_context c;
	cleanup_free char *buf = NULL;
	size_t len = 0;
	int r;

	if ((r = cv_abi_context(ctx, &c, err)) < 0)
		return r;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		return cv_error_errno(err, "do --check");
	r = cv_sandbox_check(&c, out, err);
	if (fclose(out) != 0 && r >= 0)
		r = cv_error_errno(err, "do --check");
	if (r < 0)
		return r;
	*text = steal_pointer(&buf);
	return 0;
}

int cvisor_do_gc(const struct cvisor_context *ctx, unsigned *removed, cvisor_error **err)
{
	struct cvisor_context c;
	unsigned n = 0;
	int r;

	if ((r = cv_abi_context(ctx, &c, err)) < 0 || (r = cv_sandbox_gc(&c, &n, err)) < 0)
		return r;
	cv_keeper_gc(&c, &n);
	if (removed)
		*removed = n;
	return 0;
}
