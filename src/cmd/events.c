/* cvisor events [--stats] [--interval D] ID: runc's flags are parsed; the
 * events themselves are not implemented yet (the cgroups module will). */
#include "config.h"

#include <errno.h>

#include "cmd.h"

static const char help[] =
	"Usage: cvisor events [flags] CONTAINER-ID\n"
	"\n"
	"Streams container events and resource statistics. NOT IMPLEMENTED YET: the\n"
	"flags are parsed and the command fails.\n"
	"\n"
	"Flags:\n"
	"  --interval DURATION   time between statistics (default 5s)\n"
	"  --stats               print the statistics once and exit\n"
	"  -h, --help            print this help\n";

int cmd_events(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, CLI_LONG_ONLY },
		{ "stats", no_argument, NULL, CLI_LONG_ONLY + 1 },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1) {
		if (c != CLI_LONG_ONLY && c != CLI_LONG_ONLY + 1)
			return cli_option_error(cli, c, argv, help, err);
	}
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	return cli_error(err, ENOSYS, "events: not implemented yet");
}
