/* cvisor delete [--force] ID */
#include "config.h"

#include "cmd.h"

static const char help[] = "Usage: cvisor delete [flags] CONTAINER-ID\n"
			   "\n"
			   "Deletes a stopped (or created) container: its cgroups, state and what it holds.\n"
			   "\n"
			   "Flags:\n"
			   "  -f, --force   delete a running container too, killing it with SIGKILL first;\n"
			   "                succeed when the container does not exist\n"
			   "  -h, --help    print this help\n";

int cmd_delete(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	bool force = false;
	int c;

	while ((c = cli_getopt(argc, argv, "+:fh", opts)) != -1) {
		if (c == 'f')
			force = true;
		else
			return cli_option_error(cli, c, argv, help, err);
	}
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	return cvisor_delete(&cli->ctx, argv[optind], force, err) < 0 ? -1 : 0;
}
