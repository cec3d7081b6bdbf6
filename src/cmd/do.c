/* cvisor do [--policy FILE] [flags] -- PROGRAM ARGS...: run one program in a
 * sandbox; cvisor gc: remove what dead `do` runs left behind. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"

static const char help[] = "Usage: cvisor do [--policy FILE] [flags] -- PROGRAM [ARGS...]\n"
			   "\n"
			   "Runs PROGRAM sandboxed: the host's root (or --rootfs) read-only, a private\n"
			   "workspace as the working directory (or --workspace DIR), private /tmp,\n"
			   "/run and /dev, its own /proc, user, pid, mount, ipc, uts and network\n"
			   "namespaces (as root: an unprivileged host identity, see SECURITY MODEL in\n"
			   "`man cvisor-do`), no capabilities, noNewPrivileges, a seccomp deny-list, and\n"
			   "only these environment variables (PATH HOME USER LOGNAME SHELL LANG LANGUAGE\n"
			   "LC_ALL LC_CTYPE LC_NUMERIC LC_TIME LC_COLLATE LC_MONETARY LC_MESSAGES LC_PAPER\n"
			   "LC_NAME LC_ADDRESS LC_TELEPHONE LC_MEASUREMENT LC_IDENTIFICATION TERM COLORTERM\n"
			   "NO_COLOR TZ). Credential stores are unreadable: ~/.ssh ~/.gnupg\n"
			   "~/.aws ~/.azure ~/.config/gcloud ~/.kube ~/.docker/config.json ~/.netrc\n"
			   "~/.git-credentials ~/.npmrc ~/.pypirc ~/.config/gh ~/.password-store\n"
			   "~/.local/share/keyrings /etc/shadow /etc/gshadow /etc/ssh /root.\n"
			   "Exits with the program's status (128+N when killed by signal N).\n"
			   "PID 1 is a minimal init, not the program; signals to cvisor do go to the\n"
			   "program. A terminal becomes a pseudo-terminal of its own, a regular file\n"
			   "on stdin, stdout or stderr a pipe (see `man cvisor-do`, SECURITY MODEL).\n"
			   "\n"
			   "Flags (each is also a key of the policy file; a flag overrides the file,\n"
			   "list flags add to its lists and repeat):\n"
			   "  --policy FILE            a JSON policy (see `man cvisor-do`)\n"
			   "  --workspace DIR          writable directory and cwd (kept afterwards)\n"
			   "  --writable DIR           another writable directory (repeat); neither may\n"
			   "                           lie in or hold a credential store\n"
			   "  --deny-write PATH        read-only even inside a writable directory (repeat)\n"
			   "  --deny-read PATH         unreadable (repeat); neither can be renamed away\n"
			   "  --network MODE           none (default, loopback only) | host | outbound\n"
			   "                           (outbound: slirp4netns, 10.0.2.100 inside, nothing\n"
			   "                           reachable from outside)\n"
			   "  --allow-host-loopback    outbound: the host's 127.0.0.1 is 10.0.2.2 inside\n"
			   "  --env NAME[=VALUE]       pass NAME (or PREFIX*) through, or set it (repeat)\n"
			   "  --memory SIZE            e.g. 512MB, 1.5G (powers of 1024)\n"
			   "  --cpus N                 cores, fractional\n"
			   "  --cpu-seconds N          CPU time (SIGXCPU, then SIGKILL)\n"
			   "  --processes N            at least 8\n"
			   "  --max-file-size SIZE     largest file it may write (SIGXFSZ)\n"
			   "  --open-files N           at least 16\n"
			   "  --timeout SECONDS        wall time; then the whole sandbox is killed\n"
			   "  --max-output-bytes SIZE  cap of stdout and of stderr, each\n"
			   "  --tmp-size SIZE          size of /tmp and of the private workspace, each\n"
			   "                           (default: --memory, else 1G or half the RAM)\n"
			   "  --deny-listen            listen(2) fails (EPERM): no server, TCP or UNIX\n"
			   "  --require-limits         refuse to run when memory, cpus or processes\n"
			   "                           cannot be enforced (instead of a warning)\n"
			   "  --rootfs DIR             a root filesystem instead of the host's\n"
			   "  --user UID[:GID]         ids inside (default: yours)\n"
			   "  --report FILE            write a JSON report of the run\n"
			   "  --check                  print how each limit is enforced here, and exit\n"
			   "  -h, --help               print this help\n";

static const char *const policy_flags[] = {
	"workspace",      "writable",
	"deny-write",     "deny-read",
	"network",        "env",
	"memory",         "cpus",
	"cpu-seconds",    "processes",
	"max-file-size",  "open-files",
	"timeout",        "max-output-bytes",
	"tmp-size",       "rootfs",
	"user",           "allow-host-loopback",
	"require-limits", "deny-listen",
};
/* the policy flags without a value: each sets a boolean key to true */
static bool flag_has_value(const char *flag)
{
	return strcmp(flag, "allow-host-loopback") != 0 && strcmp(flag, "require-limits") != 0 &&
	       strcmp(flag, "deny-listen") != 0;
}
#define NFLAGS (sizeof(policy_flags) / sizeof(policy_flags[0]))

enum {
	OPT_POLICY = CLI_LONG_ONLY,
	OPT_REPORT,
	OPT_CHECK,
	OPT_FLAG0
};

int cmd_do(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	struct option opts[NFLAGS + 5];
	size_t n = 0;
	opts[n++] = (struct option){ "policy", required_argument, NULL, OPT_POLICY };
	opts[n++] = (struct option){ "report", required_argument, NULL, OPT_REPORT };
	opts[n++] = (struct option){ "check", no_argument, NULL, OPT_CHECK };
	for (size_t i = 0; i < NFLAGS; i++)
		opts[n++] = (struct option){ policy_flags[i],
					     flag_has_value(policy_flags[i]) ? required_argument : no_argument, NULL,
					     OPT_FLAG0 + (int)i };
	opts[n++] = (struct option)CLI_HELP_OPTION;
	opts[n] = (struct option){ NULL, 0, NULL, 0 };

	struct cvisor_do_options o = { .struct_size = sizeof(o) };
	bool check = false;
	/* flags are applied after the policy file, in their order */
	cleanup_free const char **keys = calloc((size_t)argc + 1, sizeof(char *));
	cleanup_free const char **values = calloc((size_t)argc + 1, sizeof(char *));
	int c;
	if (!keys || !values)
		return cv_error(err, ENOMEM, "do");
	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1) {
		if (c == OPT_POLICY)
			o.policy_path = optarg;
		else if (c == OPT_REPORT)
			o.report_path = optarg;
		else if (c == OPT_CHECK)
			check = true;
		else if (c >= OPT_FLAG0 && c < OPT_FLAG0 + (int)NFLAGS) {
			keys[o.policy_len] = policy_flags[c - OPT_FLAG0];
			values[o.policy_len++] = optarg ? optarg : "true";
		} else
			return cli_option_error(cli, c, argv, help, err);
	}
	if (check) {
		cleanup_free char *text = NULL;
		if (cvisor_do_check(&cli->ctx, &text, err) < 0)
			return -1;
		fputs(text, stdout);
		return 0;
	}
	if (optind >= argc)
		return cli_usage(cli, err, "do: no program given (cvisor do [flags] -- PROGRAM [ARGS...])");
	o.policy_keys = keys;
	o.policy_values = values;
	int status = 0;
	return cvisor_do(&cli->ctx, argv + optind, &o, &status, err) < 0 ? -1 : status;
}

static const char gc_help[] = "Usage: cvisor gc\n"
			      "\n"
			      "Removes the cgroups of `cvisor do` runs whose supervisor and watcher were\n"
			      "both killed (their processes died with the supervisor; a run writes\n"
			      "nothing else to keep), and the empty mount point directories of\n"
			      "libcvisor sandbox keepers killed by SIGKILL (/run/cvisor-keepers).\n";

int cmd_gc(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = { CLI_HELP_OPTION, { NULL, 0, NULL, 0 } };
	int c;
	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1)
		return cli_option_error(cli, c, argv, gc_help, err);
	if (cli_nargs(cli, argc, argv, 0, 0, "", err) < 0)
		return -1;
	unsigned removed = 0;
	if (cvisor_do_gc(&cli->ctx, &removed, err) < 0)
		return -1;
	if (removed)
		fprintf(stderr, "cvisor gc: removed %u cgroup director%s of dead sandboxes\n", removed,
			removed == 1 ? "y" : "ies");
	return 0;
}
