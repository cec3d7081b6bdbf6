/* cvisor start ID */
#include "config.h"

#include "cmd.h"

static const char help[] = "Usage: cvisor start CONTAINER-ID\n"
			   "\n"
			   "Starts the user program of a container made by `cvisor create`.\n"
			   "\n"
			   "Flags:\n"
			   "  -h, --help   print this help\n";

int cmd_start(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	return cli_id_verb(cli, argc, argv, help, cvisor_start, err);
}
