/* cvisor start ID */
#include "config.h"

#include "cmd.h"

static const char help[] =
	"Usage: cvisor start CONTAINER-ID\n"
	"\n"
	"Starts the user program of a container made by `cvisor create`.\n"
	"\n"
	"Flags:\n"
	"  -h, --help   print this help\n";

int cmd_start(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = { CLI_HELP_OPTION, { NULL, 0, NULL, 0 } };
	int c;

	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1)
		return cli_option_error(cli, c, argv, help, err);
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	return cvisor_start(&cli->ctx, argv[optind], err) < 0 ? -1 : 0;
}
