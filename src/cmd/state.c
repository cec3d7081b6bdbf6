/* cvisor state ID: the runtime-spec state JSON. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"

static const char help[] = "Usage: cvisor state CONTAINER-ID\n"
			   "\n"
			   "Prints the container's state (runtime-spec JSON: ociVersion, id, status,\n"
			   "pid, bundle, annotations, plus created and owner as runc prints them).\n"
			   "\n"
			   "Flags:\n"
			   "  -h, --help   print this help\n";

int cmd_state(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = { CLI_HELP_OPTION, { NULL, 0, NULL, 0 } };
	cleanup_free char *json = NULL;
	int c;

	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1)
		return cli_option_error(cli, c, argv, help, err);
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	if (cvisor_state_json(&cli->ctx, argv[optind], &json, err) < 0)
		return -1;
	fputs(json, stdout);
	if (*json && json[strlen(json) - 1] != '\n')
		putchar('\n');
	return 0;
}
