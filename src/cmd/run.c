/* cvisor run [flags] ID: create + start; the exit status is the program's. */
#include "config.h"

#include <errno.h>

#include "cmd.h"
#include "create-flags.h"

static const char help[] = "Usage: cvisor run [flags] CONTAINER-ID\n"
			   "\n"
			   "Creates and starts a container. Without --detach, waits for the container's\n"
			   "process, deletes the container (unless --keep) and exits with the process's\n"
			   "exit status (128 + N when killed by signal N).\n"
			   "\n"
			   "Flags:\n" CREATE_FLAGS_HELP
			   "  -d, --detach              return once the program runs; leave the container\n"
			   "  --keep                    do not delete the container after it exits (it stays\n"
			   "                            stopped until `cvisor delete`)\n"
			   "  -h, --help                print this help\n";

enum {
	OPT_KEEP = CLI_LONG_ONLY
};

int cmd_run(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	struct cvisor_create_options o = { .struct_size = sizeof(o) };
	static const struct option opts[] = {
		CREATE_FLAGS_OPTIONS,
		{ "detach", no_argument, NULL, 'd' },
		{ "keep", no_argument, NULL, OPT_KEEP },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	bool detach = false;
	int c, r, status = 0;

	while ((c = cli_getopt(argc, argv, "+:b:dh", opts)) != -1) {
		r = create_flag(cli, c, &o, err);
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		if (c == 'd')
			detach = true;
		else if (c == OPT_KEEP)
			o.keep = true;
		else
			return cli_option_error(cli, c, argv, help, err);
	}
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	if (cvisor_container_run(&cli->ctx, argv[optind], &o, detach, &status, err) < 0)
		return -1;
	return detach ? 0 : status;
}
