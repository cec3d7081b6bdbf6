/* cvisor spec [--bundle DIR] [--rootless]: writes the default config.json. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"

static const char help[] = "Usage: cvisor spec [flags]\n"
			   "\n"
			   "Writes a default config.json (runtime-spec " CVISOR_OCI_VERSION ") into the bundle\n"
			   "directory: it runs `sh` from ./rootfs with a terminal. Edit it to taste.\n"
			   "\n"
			   "Flags:\n"
			   "  -b, --bundle DIR   where to write config.json (default: current directory)\n"
			   "  --rootless         a config for an unprivileged user: adds a user namespace\n"
			   "                     mapping your uid and gid, drops what needs real root\n"
			   "  --policy FILE      the config a sandbox policy means (see `cvisor do --help`):\n"
			   "                     runs `sh` in the sandbox `cvisor do` would make\n"
			   "  -h, --help         print this help\n";

enum {
	OPT_ROOTLESS = CLI_LONG_ONLY,
	OPT_POLICY
};

int cmd_spec(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "bundle", required_argument, NULL, 'b' },
		{ "rootless", no_argument, NULL, OPT_ROOTLESS },
		{ "policy", required_argument, NULL, OPT_POLICY },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct cvisor_spec_options o = { .struct_size = sizeof(o), .bundle = "." };
	cleanup_free char *only = NULL;
	int c;

	while ((c = cli_getopt(argc, argv, "+:b:h", opts)) != -1) {
		if (c == 'b')
			o.bundle = optarg;
		else if (c == OPT_ROOTLESS)
			o.rootless = true;
		else if (c == OPT_POLICY)
			o.policy_path = optarg;
		else
			return cli_option_error(cli, c, argv, help, err);
	}
	if (cli_nargs(cli, argc, argv, 0, 0, "", err) < 0)
		return -1;
	if (o.rootless && o.policy_path)
		return cli_usage(cli, err, "--rootless and --policy: a policy follows the caller's uid");
	int r = cvisor_spec(&o, &only, err);
	/* the note comes before the file's errors, as the policy is read first */
	if (only && only[0])
		fprintf(stderr,
			"cvisor spec: note: %s: only `cvisor do` enforces %s; the config records %s as "
			"annotations that `cvisor run` does not act on\n",
			o.policy_path, only, strchr(only, ',') ? "them" : "it");
	return r < 0 ? -1 : 0;
}
