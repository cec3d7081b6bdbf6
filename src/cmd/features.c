/* cvisor features: the runtime-spec features document (its tables are in
 * src/libcvisor/lifecycle/features.c). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"

static const char help[] = "Usage: cvisor features\n"
			   "\n"
			   "Prints the runtime-spec features document: the hooks, mount options,\n"
			   "namespaces, capabilities and seccomp features this runtime implements.\n"
			   "\n"
			   "Flags:\n"
			   "  -h, --help   print this help\n";

int cmd_features(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = { CLI_HELP_OPTION, { NULL, 0, NULL, 0 } };
	cleanup_free char *json = NULL;
	int c;

	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1)
		return cli_option_error(cli, c, argv, help, err);
	if (cli_nargs(cli, argc, argv, 0, 0, "", err) < 0)
		return -1;
	if (cvisor_features_json(cli_build_features(), &json, err) < 0)
		return -1;
	size_t len = strlen(json);
	fputs(json, stdout);
	if (len == 0 || json[len - 1] != '\n')
		putchar('\n');
	return 0;
}
