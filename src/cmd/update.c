/* cvisor update [flags] ID: runc's flags, or --resources FILE|- (a
 * runtime-spec linux.resources JSON object, as containerd sends). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "cmd.h"

static const char help[] = "Usage: cvisor update [flags] CONTAINER-ID\n"
			   "\n"
			   "Updates a running container's resource limits in its cgroup.\n"
			   "\n"
			   "Flags:\n"
			   "  -r, --resources FILE        runtime-spec linux.resources JSON (- for stdin);\n"
			   "                              not combined with the flags below\n"
			   "  --memory SIZE               memory limit (128m, 1g, -1 = unlimited)\n"
			   "  --memory-swap SIZE          memory plus swap limit\n"
			   "  --memory-reservation SIZE   memory soft limit\n"
			   "  --kernel-memory SIZE, --kernel-memory-tcp SIZE   (v1 kernels that have them)\n"
			   "  --cpu-share N, --cpu-quota N, --cpu-period N, --cpu-rt-period N,\n"
			   "  --cpu-rt-runtime N          CPU shares, CFS and realtime bandwidth\n"
			   "  --cpuset-cpus LIST, --cpuset-mems LIST\n"
			   "  --pids-limit N              maximum number of processes\n"
			   "  --blkio-weight N            block IO weight (10..1000; needs the BFQ or CFQ scheduler)\n"
			   "  --l3-cache-schema S, --mem-bw-schema S   Intel RDT: not supported\n"
			   "  -h, --help                  print this help\n";

/* The whole of FILE, or of stdin for "-": a linux.resources object. */
#define RESOURCES_MAX (16u << 20)
static int read_input(const char *path, char **out, size_t *len, cv_error_t *err)
{
	int r = strcmp(path, "-") == 0 ? cv_read_fd(STDIN_FILENO, "stdin", RESOURCES_MAX, out, len, err)
				       : cv_read_file_at(AT_FDCWD, path, RESOURCES_MAX, 0, out, len, err);
	return r < 0 ? cv_error_prefix(err, "update") : 0;
}

enum {
	O_BLKIO = CLI_LONG_ONLY,
	O_CPU_PERIOD,
	O_CPU_QUOTA,
	O_CPU_SHARE,
	O_CPU_RT_PERIOD,
	O_CPU_RT_RUNTIME,
	O_CPUSET_CPUS,
	O_CPUSET_MEMS,
	O_KMEM,
	O_KMEM_TCP,
	O_MEMORY,
	O_MEM_RES,
	O_MEM_SWAP,
	O_PIDS,
	O_L3,
	O_MBW,
};

int cmd_update(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "resources", required_argument, NULL, 'r' },
		{ "blkio-weight", required_argument, NULL, O_BLKIO },
		{ "cpu-period", required_argument, NULL, O_CPU_PERIOD },
		{ "cpu-quota", required_argument, NULL, O_CPU_QUOTA },
		{ "cpu-share", required_argument, NULL, O_CPU_SHARE },
		{ "cpu-shares", required_argument, NULL, O_CPU_SHARE },
		{ "cpu-rt-period", required_argument, NULL, O_CPU_RT_PERIOD },
		{ "cpu-rt-runtime", required_argument, NULL, O_CPU_RT_RUNTIME },
		{ "cpuset-cpus", required_argument, NULL, O_CPUSET_CPUS },
		{ "cpuset-mems", required_argument, NULL, O_CPUSET_MEMS },
		{ "kernel-memory", required_argument, NULL, O_KMEM },
		{ "kernel-memory-tcp", required_argument, NULL, O_KMEM_TCP },
		{ "memory", required_argument, NULL, O_MEMORY },
		{ "memory-reservation", required_argument, NULL, O_MEM_RES },
		{ "memory-swap", required_argument, NULL, O_MEM_SWAP },
		{ "pids-limit", required_argument, NULL, O_PIDS },
		{ "l3-cache-schema", required_argument, NULL, O_L3 },
		{ "mem-bw-schema", required_argument, NULL, O_MBW },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct cvisor_update_options o = { .struct_size = sizeof(o) };
	const char *resources = NULL;
	bool flags = false;
	int c;

	while ((c = cli_getopt(argc, argv, "+:r:h", opts)) != -1) {
		const char **dst = NULL;
		switch (c) {
		case 'r':
			resources = optarg;
			continue;
		case O_BLKIO:
			dst = &o.blkio_weight;
			break;
		case O_CPU_PERIOD:
			dst = &o.cpu_period;
			break;
		case O_CPU_QUOTA:
			dst = &o.cpu_quota;
			break;
		case O_CPU_SHARE:
			dst = &o.cpu_shares;
			break;
		case O_CPU_RT_PERIOD:
			dst = &o.cpu_rt_period;
			break;
		case O_CPU_RT_RUNTIME:
			dst = &o.cpu_rt_runtime;
			break;
		case O_CPUSET_CPUS:
			dst = &o.cpuset_cpus;
			break;
		case O_CPUSET_MEMS:
			dst = &o.cpuset_mems;
			break;
		case O_KMEM:
			dst = &o.kernel_memory;
			break;
		case O_KMEM_TCP:
			dst = &o.kernel_memory_tcp;
			break;
		case O_MEMORY:
			dst = &o.memory;
			break;
		case O_MEM_RES:
			dst = &o.memory_reservation;
			break;
		case O_MEM_SWAP:
			dst = &o.memory_swap;
			break;
		case O_PIDS:
			dst = &o.pids_limit;
			break;
		case O_L3:
		case O_MBW:
			return cv_error_plain(err, EOPNOTSUPP,
					      "update: --%s: Intel RDT (linux.intelRdt) is not supported by cvisor",
					      c == O_L3 ? "l3-cache-schema" : "mem-bw-schema");
		default:
			return cli_option_error(cli, c, argv, help, err);
		}
		*dst = optarg;
		flags = true;
	}
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	if (resources && flags)
		return cli_usage(cli, err, "update: --resources cannot be combined with the other resource flags");
	if (!resources && !flags)
		return cli_usage(cli, err, "update: nothing to update (give --resources or a resource flag)");
	cleanup_free char *json = NULL;
	if (resources) {
		if (read_input(resources, &json, &o.resources_json_len, err) < 0)
			return -1;
		o.resources_json = json;
		o.resources_name = strcmp(resources, "-") == 0 ? "stdin" : resources;
	}
	return cvisor_update(&cli->ctx, argv[optind], &o, err) < 0 ? -1 : 0;
}
