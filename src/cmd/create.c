/* cvisor create [flags] ID */
#include "config.h"

#include "cmd.h"
#include "create-flags.h"

static const char help[] = "Usage: cvisor create [flags] CONTAINER-ID\n"
			   "\n"
			   "Creates a container from an OCI bundle: namespaces, mounts and cgroups are\n"
			   "set up and the process waits before executing the user program until\n"
			   "`cvisor start`.\n"
			   "\n"
			   "Flags:\n" CREATE_FLAGS_HELP "  -h, --help                print this help\n";

int cmd_create(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	struct cvisor_create_options o = { .struct_size = sizeof(o) };
	static const struct option opts[] = { CREATE_FLAGS_OPTIONS, CLI_HELP_OPTION, { NULL, 0, NULL, 0 } };
	int c, r;

	while ((c = cli_getopt(argc, argv, "+:b:h", opts)) != -1) {
		r = create_flag(cli, c, &o, err);
		if (r == CREATE_FLAG_OTHER)
			return cli_option_error(cli, c, argv, help, err);
		if (r < 0)
			return r;
	}
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	if (cvisor_create(&cli->ctx, argv[optind], &o, err) < 0)
		return -1;
	return 0;
}
