/* The flags `create` and `run` share. */
#ifndef CVISOR_CMD_CREATE_FLAGS_H
#define CVISOR_CMD_CREATE_FLAGS_H

#include "cmd.h"

enum {
	CREATE_OPT_PID_FILE = CLI_LONG_ONLY + 0x10,
	CREATE_OPT_CONSOLE_SOCKET,
	CREATE_OPT_PIDFD_SOCKET,
	CREATE_OPT_NO_PIVOT,
	CREATE_OPT_NO_NEW_KEYRING,
	CREATE_OPT_PRESERVE_FDS,
	CREATE_OPT_CONFIG,
};

#define CREATE_FLAGS_OPTIONS                                                                                           \
	{ "bundle", required_argument, NULL, 'b' }, { "pid-file", required_argument, NULL, CREATE_OPT_PID_FILE },      \
		{ "console-socket", required_argument, NULL, CREATE_OPT_CONSOLE_SOCKET },                              \
		{ "pidfd-socket", required_argument, NULL, CREATE_OPT_PIDFD_SOCKET },                                  \
		{ "no-pivot", no_argument, NULL, CREATE_OPT_NO_PIVOT },                                                \
		{ "no-new-keyring", no_argument, NULL, CREATE_OPT_NO_NEW_KEYRING },                                    \
		{ "preserve-fds", required_argument, NULL, CREATE_OPT_PRESERVE_FDS },                                  \
	{                                                                                                              \
		"config", required_argument, NULL, CREATE_OPT_CONFIG                                                   \
	}

#define CREATE_FLAGS_HELP                                                                                              \
	"  -b, --bundle DIR          the bundle: config.json and the rootfs (default: current directory)\n"            \
	"  --config FILE             the configuration (default: config.json in the bundle)\n"                         \
	"  --pid-file FILE           write the container process's pid to FILE\n"                                      \
	"  --console-socket PATH     send the pseudo-terminal's master fd over this unix socket\n"                     \
	"  --pidfd-socket PATH       send a pidfd of the container process over this unix socket\n"                    \
	"  --no-pivot                use MS_MOVE + chroot instead of pivot_root\n"                                     \
	"  --no-new-keyring          keep the caller's session keyring\n"                                              \
	"  --preserve-fds N          pass N extra fds (from 3) to the container\n"

#define CREATE_FLAG_OTHER 1

/* Applies one flag; CREATE_FLAG_OTHER when c is not one of these. */
static inline int create_flag(struct cv_cli *cli, int c, struct cvisor_create_options *o, cv_error_t *err)
{
	long n;
	switch (c) {
	case 'b':
		o->bundle = optarg;
		return 0;
	case CREATE_OPT_CONFIG:
		o->config_path = optarg;
		return 0;
	case CREATE_OPT_PID_FILE:
		o->pid_file = optarg;
		return 0;
	case CREATE_OPT_CONSOLE_SOCKET:
		o->console_socket = optarg;
		return 0;
	case CREATE_OPT_PIDFD_SOCKET:
		o->pidfd_socket = optarg;
		return 0;
	case CREATE_OPT_NO_PIVOT:
		o->no_pivot = true;
		return 0;
	case CREATE_OPT_NO_NEW_KEYRING:
		o->no_new_keyring = true;
		return 0;
	case CREATE_OPT_PRESERVE_FDS:
		if (cli_parse_int(cli, "--preserve-fds", optarg, 0, 65536, &n, err) < 0)
			return -1;
		o->preserve_fds = (int)n;
		return 0;
	default:
		return CREATE_FLAG_OTHER;
	}
}

#endif
