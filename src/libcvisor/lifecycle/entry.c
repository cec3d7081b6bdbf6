/* The public calls that put a process into a container: create, run and
 * exec. Their arguments are checked against the ABI (abi.h); then the cvisor
 * binary, whose image is protected (exe-guard.c), does the work in-process,
 * and any other program through the helper (helper.c). */
#include "config.h"

#include <errno.h>

#include "lifecycle/abi.h"
#include "lifecycle/create.h"
#include "lifecycle/helper.h"

/* Cancellation is for programs embedding the library, where these calls
 * wait for the helper; the cvisor binary never asks for it. */
static int no_cancel_fd(int fd, const char *what, cv_error_t *err)
{
	if (fd > 0)
		return cv_error(err, EINVAL,
				"%s: cancel_fd is only supported in a program embedding libcvisor, "
				"not in the cvisor binary",
				what);
	return 0;
}

int cvisor_create(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts,
		  cvisor_error **err)
{
	struct cvisor_context c;
	struct cvisor_create_options o;
	int r;

	if ((r = cv_abi_context(ctx, &c, err)) < 0 || (r = cv_abi_create_options(opts, &o, err)) < 0)
		return r;
	if (cv_helper_needed())
		return cv_helper_create(&c, id, &o, false, false, NULL, err);
	if ((r = no_cancel_fd(o.cancel_fd, "create", err)) < 0)
		return r;
	return cv_create(&c, id, &o, err);
}

int cvisor_container_run(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts,
			 bool detach, int *exit_status, cvisor_error **err)
{
	struct cvisor_context c;
	struct cvisor_create_options o;
	int status = 0, r;

	if ((r = cv_abi_context(ctx, &c, err)) < 0 || (r = cv_abi_create_options(opts, &o, err)) < 0)
		return r;
	if (cv_helper_needed())
		r = cv_helper_create(&c, id, &o, true, detach, &status, err);
	else if ((r = no_cancel_fd(o.cancel_fd, "run", err)) == 0)
		r = cv_run(&c, id, &o, detach, &status, err);
	if (r == 0 && !detach && exit_status)
		*exit_status = status;
	return r;
}

int cvisor_exec(const struct cvisor_context *ctx, const char *id, const struct cvisor_exec_options *opts,
		int *exit_status, cvisor_error **err)
{
	struct cvisor_context c;
	struct cvisor_exec_options o;
	int status = 0, r;

	if ((r = cv_abi_context(ctx, &c, err)) < 0 || (r = cv_abi_exec_options(opts, &o, err)) < 0)
		return r;
	if (cv_helper_needed())
		r = cv_helper_exec(&c, id, &o, &status, err);
	else if ((r = no_cancel_fd(o.cancel_fd, "exec", err)) == 0)
		r = cv_exec(&c, id, &o, &status, err);
	if (r == 0 && !o.detach && exit_status)
		*exit_status = status;
	return r;
}
