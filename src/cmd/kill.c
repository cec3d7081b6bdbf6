/* cvisor kill [--all] ID [SIGNAL] */
#include "config.h"

#include <signal.h>

#include "cmd.h"

static const char help[] = "Usage: cvisor kill [flags] CONTAINER-ID [SIGNAL]\n"
			   "\n"
			   "Sends SIGNAL (default SIGTERM) to the container's init process. SIGNAL is a\n"
			   "number or a name, with or without SIG, in any case: 9, KILL, SIGKILL, term,\n"
			   "RTMIN+2.\n"
			   "\n"
			   "Flags:\n"
			   "  -a, --all    send the signal to every process in the container\n"
			   "  -h, --help   print this help\n";

int cmd_kill(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	bool all = false;
	int c, sig = SIGTERM;

	while ((c = cli_getopt(argc, argv, "+:ah", opts)) != -1) {
		if (c == 'a')
			all = true;
		else
			return cli_option_error(cli, c, argv, help, err);
	}
	if (cli_nargs(cli, argc, argv, 1, 2, "container id", err) < 0)
		return -1;
	if (argc - optind == 2) {
		sig = cli_parse_signal(argv[optind + 1], err);
		if (sig < 0)
			return -1;
	}
	return cvisor_kill(&cli->ctx, argv[optind], sig, all, err) < 0 ? -1 : 0;
}
