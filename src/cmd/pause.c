/* cvisor pause ID */
#include "config.h"

#include "cmd.h"

static const char help[] = "Usage: cvisor pause CONTAINER-ID\n"
			   "\n"
			   "Freezes every process of a running container (cgroup freezer).\n"
			   "\n"
			   "Flags:\n"
			   "  -h, --help   print this help\n";

int cmd_pause(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	return cli_id_verb(cli, argc, argv, help, cvisor_pause, err);
}
