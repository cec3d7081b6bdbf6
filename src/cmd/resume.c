/* cvisor resume ID */
#include "config.h"

#include "cmd.h"

static const char help[] = "Usage: cvisor resume CONTAINER-ID\n"
			   "\n"
			   "Thaws a container frozen by `cvisor pause`.\n"
			   "\n"
			   "Flags:\n"
			   "  -h, --help   print this help\n";

int cmd_resume(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	return cli_id_verb(cli, argc, argv, help, cvisor_resume, err);
}
