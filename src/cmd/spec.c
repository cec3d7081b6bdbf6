/* cvisor spec [--bundle DIR] [--rootless]: writes the default config.json. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "cmd.h"
#include "sandbox/policy.h"
#include "oci/spec.h"
#include "sandbox/sandbox.h"

static const char help[] =
	"Usage: cvisor spec [flags]\n"
	"\n"
	"Writes a default config.json (runtime-spec " OCI_VERSION ") into the bundle\n"
	"directory: it runs `sh` from ./rootfs with a terminal. Edit it to taste.\n"
	"\n"
	"Flags:\n"
	"  -b, --bundle DIR   where to write config.json (default: current directory)\n"
	"  --rootless         a config for an unprivileged user: adds a user namespace\n"
	"                     mapping your uid and gid, drops what needs real root\n"
	"  --policy FILE      the config a sandbox policy means (see `cvisor do --help`):\n"
	"                     runs `sh` in the sandbox `cvisor do` would make\n"
	"  -h, --help         print this help\n";

enum { OPT_ROOTLESS = CLI_LONG_ONLY, OPT_POLICY };

int cmd_spec(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "bundle", required_argument, NULL, 'b' },
		{ "rootless", no_argument, NULL, OPT_ROOTLESS },
		{ "policy", required_argument, NULL, OPT_POLICY },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	const char *bundle = ".";
	bool rootless = false;
	const char *policy_path = NULL;
	cleanup_spec oci_spec *spec = NULL;
	cleanup_free char *json = NULL;
	cleanup_close int dirfd = -1, fd = -1;
	size_t len = 0;
	int c;

	while ((c = cli_getopt(argc, argv, "+:b:h", opts)) != -1) {
		if (c == 'b')
			bundle = optarg;
		else if (c == OPT_ROOTLESS)
			rootless = true;
		else if (c == OPT_POLICY)
			policy_path = optarg;
		else
			return cli_option_error(cli, c, argv, help, err);
	}
	if (cli_nargs(cli, argc, argv, 0, 0, "", err) < 0)
		return -1;
	if (policy_path) {
		cleanup_policy cv_policy *policy = NULL;
		struct cv_sandbox_host host;
		if (rootless)
			return cli_usage(cli, err, "--rootless and --policy: a policy follows the caller's uid");
		if (cv_policy_load(policy_path, &policy, err) < 0 || cv_sandbox_host_init(&host, policy->network == CV_POLICY_NET_OUTBOUND, err) < 0 ||
		    cv_sandbox_spec(policy, &host, NULL, &spec, err) < 0)
			return -1;
		char only[64];
		cv_sandbox_do_only_keys(policy, only, sizeof(only));
		if (only[0])
			fprintf(stderr,
				"cvisor spec: note: %s: only `cvisor do` enforces %s; the config records %s as "
				"annotations that `cvisor run` does not act on\n",
				policy_path, only, strchr(only, ',') ? "them" : "it");
	} else if (oci_spec_default(rootless, &spec, err) < 0) {
		return -1;
	}
	if (oci_spec_emit(spec, true, &json, &len, err) < 0)
		return -1;
	dirfd = open(bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return cv_error_errno(err, "open bundle `%s`", bundle);
	fd = openat(dirfd, "config.json", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			return cv_error_plain(err, EEXIST, "`%s/config.json` already exists: remove it first", bundle);
		return cv_error_errno(err, "create `%s/config.json`", bundle);
	}
	int r = cv_write_all(fd, json, len);
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
