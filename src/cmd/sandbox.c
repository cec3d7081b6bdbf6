/* cvisor sandbox-keeper and cvisor sandbox-agent: libcvisor's, not the
 * user's (see cvisor-binary.h); they take no flags. */
#include "config.h"

#include <stdio.h>

#include "cmd.h"
#include "cvisor-binary.h"

static const char keeper_help[] = "Usage: cvisor sandbox-keeper (run by libcvisor, not by users)\n";

int cmd_sandbox_keeper(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = { CLI_HELP_OPTION, { NULL, 0, NULL, 0 } };
	int c;
	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1)
		return cli_option_error(cli, c, argv, keeper_help, err);
	if (cli_nargs(cli, argc, argv, 0, 0, "", err) < 0)
		return -1;
	return cv_sandbox_keeper(&cli->ctx, err) < 0 ? -1 : 0;
}

int cmd_sandbox_agent(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	(void)cli;
	(void)err;
	fflush(stdout);
	return cv_sandbox_agent(argc, argv);
}
