/* cvisor_spec (`cvisor spec`): a config.json to start from, the default one
 * or the one a sandbox policy means, written into a bundle. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "lifecycle/abi.h"
#include "oci/spec.h"
#include "sandbox/policy.h"
#include "sandbox/sandbox.h"

/* The config `cvisor do` would run `sh` in under the policy at PATH;
 * *do_only as cvisor_spec() says. */
static int policy_spec(const char *path, oci_spec **spec, char **do_only, cv_error_t *err)
{
	cleanup_policy cv_policy *policy = NULL;
	struct cv_sandbox_host host;
	int r;

	if ((r = cv_policy_load(path, &policy, err)) < 0 ||
	    (r = cv_sandbox_host_init(&host, policy->network == CV_POLICY_NET_OUTBOUND, err)) < 0 ||
	    (r = cv_sandbox_spec(policy, &host, NULL, spec, err)) < 0)
		return r;
	if (do_only) {
		char only[64];
		cv_sandbox_do_only_keys(policy, only, sizeof(only));
		if (!(*do_only = strdup(only)))
			return cv_error(err, ENOMEM, "spec");
	}
	return 0;
}

int cvisor_spec(const struct cvisor_spec_options *opts, char **do_only, cvisor_error **err)
{
	struct cvisor_spec_options o;
	cleanup_spec oci_spec *spec = NULL;
	cleanup_free char *json = NULL;
	cleanup_close int dirfd = -1, fd = -1;
	size_t len = 0;
	int r;

	if (do_only)
		*do_only = NULL;
	if ((r = cv_abi_spec_options(opts, &o, err)) < 0)
		return r;
	const char *bundle = o.bundle ? o.bundle : ".";
	if (o.policy_path) {
		if (o.rootless)
			return cv_error_plain(err, EINVAL,
					      "spec: rootless with a policy: a policy follows the caller's uid");
		r = policy_spec(o.policy_path, &spec, do_only, err);
	} else {
		r = oci_spec_default(o.rootless, &spec, err);
	}
	if (r < 0 || (r = oci_spec_emit(spec, true, &json, &len, err)) < 0)
		return r;
	dirfd = open(bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return cv_error_errno(err, "open bundle `%s`", bundle);
	fd = openat(dirfd, "config.json", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			return cv_error_plain(err, EEXIST, "`%s/config.json` already exists: remove it first", bundle);
		return cv_error_errno(err, "create `%s/config.json`", bundle);
	}
	r = cv_write_all(fd, json, len);
	if (r == 0 && (len == 0 || json[len - 1] != '\n'))
		r = cv_write_all(fd, "\n", 1);
	if (r < 0) {
		(void)unlinkat(dirfd, "config.json", 0); /* leave nothing half-written behind */
		return cv_error(err, -r, "write `%s/config.json`", bundle);
	}
	if (close(steal_fd(&fd)) < 0)
		return cv_error_errno(err, "write `%s/config.json`", bundle);
	return 0;
}
