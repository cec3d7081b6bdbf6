/* cvisor exec [flags] ID [COMMAND [ARG...]] */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "cleanup.h"
#include "cmd.h"

static const char help[] =
	"Usage: cvisor exec [flags] CONTAINER-ID COMMAND [ARG...]\n"
	"       cvisor exec [flags] --process FILE CONTAINER-ID\n"
	"\n"
	"Runs a new process inside a running container and exits with its exit\n"
	"status (with --detach: 0 once it runs).\n"
	"\n"
	"Flags:\n"
	"  -p, --process FILE          the process as runtime-spec JSON (config.json's \"process\")\n"
	"  --console-socket PATH       send the pseudo-terminal's master fd over this unix socket\n"
	"  --pidfd-socket PATH         send a pidfd of the process over this unix socket\n"
	"  --cwd DIR                   working directory inside the container\n"
	"  -e, --env NAME=VALUE        set an environment variable (repeatable)\n"
	"  -t, --tty                   allocate a pseudo-terminal\n"
	"  -u, --user UID[:GID]        run as this user\n"
	"  -g, --additional-gids GID   add a supplementary group (repeatable)\n"
	"  -c, --cap CAP               add a capability, e.g. CAP_NET_ADMIN (repeatable)\n"
	"  --no-new-privs              set no_new_privs\n"
	"  -d, --detach                do not wait for the process\n"
	"  --pid-file FILE             write the process's pid to FILE\n"
	"  --preserve-fds N            pass N extra fds (from 3) to the process\n"
	"  --apparmor PROFILE          AppArmor profile for the process\n"
	"  --process-label LABEL       SELinux label for the process\n"
	"  -h, --help                  print this help\n";

enum {
	OPT_CONSOLE_SOCKET = CLI_LONG_ONLY,
	OPT_PIDFD_SOCKET,
	OPT_CWD,
	OPT_NO_NEW_PRIVS,
	OPT_PID_FILE,
	OPT_PRESERVE_FDS,
	OPT_APPARMOR,
	OPT_PROCESS_LABEL,
};

static int push(char ***v, size_t *n, char *s, cv_error_t *err)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(*nv));
	if (!nv)
		return cv_error(err, ENOMEM, "exec flags");
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

int cmd_exec(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "process", required_argument, NULL, 'p' },
		{ "console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET },
		{ "pidfd-socket", required_argument, NULL, OPT_PIDFD_SOCKET },
		{ "cwd", required_argument, NULL, OPT_CWD },
		{ "env", required_argument, NULL, 'e' },
		{ "tty", no_argument, NULL, 't' },
		{ "user", required_argument, NULL, 'u' },
		{ "additional-gids", required_argument, NULL, 'g' },
		{ "cap", required_argument, NULL, 'c' },
		{ "no-new-privs", no_argument, NULL, OPT_NO_NEW_PRIVS },
		{ "detach", no_argument, NULL, 'd' },
		{ "pid-file", required_argument, NULL, OPT_PID_FILE },
		{ "preserve-fds", required_argument, NULL, OPT_PRESERVE_FDS },
		{ "apparmor", required_argument, NULL, OPT_APPARMOR },
		{ "process-label", required_argument, NULL, OPT_PROCESS_LABEL },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct cvisor_exec_options o = { .struct_size = sizeof(o) };
	cleanup_free char **env = NULL, **caps = NULL;
	cleanup_free gid_t *gids = NULL;
	size_t nenv = 0, ncaps = 0, ngids = 0;
	int c, status = 0;
	long n;

	while ((c = cli_getopt(argc, argv, "+:p:e:tu:g:c:dh", opts)) != -1) {
		switch (c) {
		case 'p':
			o.process_path = optarg;
			break;
		case OPT_CONSOLE_SOCKET:
			o.console_socket = optarg;
			break;
		case OPT_PIDFD_SOCKET:
			o.pidfd_socket = optarg;
			break;
		case OPT_CWD:
			o.cwd = optarg;
			break;
		case 'e':
			if (push(&env, &nenv, optarg, err) < 0)
				return -1;
			break;
		case 't':
			o.tty = true;
			break;
		case 'u':
			o.user = optarg;
			break;
		case 'g': {
			if (cli_parse_int(cli, "--additional-gids", optarg, 0, UINT32_MAX - 1, &n, err) < 0)
				return -1;
			gid_t *ng = realloc(gids, (ngids + 1) * sizeof(*ng));
			if (!ng)
				return cv_error(err, ENOMEM, "exec flags");
			gids = ng;
			gids[ngids++] = (gid_t)n;
			break;
		}
		case 'c':
			if (push(&caps, &ncaps, optarg, err) < 0)
				return -1;
			break;
		case OPT_NO_NEW_PRIVS:
			o.no_new_privs = true;
			break;
		case 'd':
			o.detach = true;
			break;
		case OPT_PID_FILE:
			o.pid_file = optarg;
			break;
		case OPT_PRESERVE_FDS:
			if (cli_parse_int(cli, "--preserve-fds", optarg, 0, 65536, &n, err) < 0)
				return -1;
			o.preserve_fds = (int)n;
			break;
		case OPT_APPARMOR:
			o.apparmor = optarg;
			break;
		case OPT_PROCESS_LABEL:
			o.process_label = optarg;
			break;
		default:
			return cli_option_error(cli, c, argv, help, err);
		}
	}
	if (cli_nargs(cli, argc, argv, 1, -1, "container id", err) < 0)
		return -1;
	if (!o.process_path && argc - optind < 2)
		return cli_usage(cli, err, "missing the command to run (or --process FILE)");
	if (argc - optind >= 2)
		o.args = argv + optind + 1; /* argv is NULL-terminated */
	o.env = env;
	o.caps = caps;
	o.additional_gids = gids;
	o.additional_gids_len = ngids;
	if (cvisor_exec(&cli->ctx, argv[optind], &o, &status, err) < 0)
		return -1;
	return o.detach ? 0 : status;
}
