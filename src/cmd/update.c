/* cvisor update [flags] ID: runc's flags are parsed; applying them is not
 * implemented yet (the cgroups module will). */
#include "config.h"

#include <errno.h>

#include "cmd.h"

static const char help[] =
	"Usage: cvisor update [flags] CONTAINER-ID\n"
	"\n"
	"Updates a container's resource limits. NOT IMPLEMENTED YET: the flags are\n"
	"parsed and the command fails.\n"
	"\n"
	"Flags:\n"
	"  -r, --resources FILE        runtime-spec linux.resources JSON (- for stdin)\n"
	"  --blkio-weight N, --cpu-period N, --cpu-quota N, --cpu-share N,\n"
	"  --cpu-rt-period N, --cpu-rt-runtime N, --cpuset-cpus LIST, --cpuset-mems LIST,\n"
	"  --kernel-memory N, --kernel-memory-tcp N, --memory N, --memory-reservation N,\n"
	"  --memory-swap N, --pids-limit N, --l3-cache-schema S, --mem-bw-schema S\n"
	"  -h, --help                  print this help\n";

int cmd_update(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "resources", required_argument, NULL, 'r' },
		{ "blkio-weight", required_argument, NULL, CLI_LONG_ONLY },
		{ "cpu-period", required_argument, NULL, CLI_LONG_ONLY },
		{ "cpu-quota", required_argument, NULL, CLI_LONG_ONLY },
		{ "cpu-share", required_argument, NULL, CLI_LONG_ONLY },
		{ "cpu-rt-period", required_argument, NULL, CLI_LONG_ONLY },
		{ "cpu-rt-runtime", required_argument, NULL, CLI_LONG_ONLY },
		{ "cpuset-cpus", required_argument, NULL, CLI_LONG_ONLY },
		{ "cpuset-mems", required_argument, NULL, CLI_LONG_ONLY },
		{ "kernel-memory", required_argument, NULL, CLI_LONG_ONLY },
		{ "kernel-memory-tcp", required_argument, NULL, CLI_LONG_ONLY },
		{ "memory", required_argument, NULL, CLI_LONG_ONLY },
		{ "memory-reservation", required_argument, NULL, CLI_LONG_ONLY },
		{ "memory-swap", required_argument, NULL, CLI_LONG_ONLY },
		{ "pids-limit", required_argument, NULL, CLI_LONG_ONLY },
		{ "l3-cache-schema", required_argument, NULL, CLI_LONG_ONLY },
		{ "mem-bw-schema", required_argument, NULL, CLI_LONG_ONLY },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = cli_getopt(argc, argv, "+:r:h", opts)) != -1) {
		if (c != 'r' && c != CLI_LONG_ONLY)
			return cli_option_error(cli, c, argv, help, err);
	}
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	return cli_error(err, ENOSYS, "update: not implemented yet");
}
