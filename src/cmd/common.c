/* Flag parsing helpers shared by the verbs. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cleanup.h"
#include "cmd.h"

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	opterr = 0;
	return getopt_long_only(argc, argv, shortopts, longopts, NULL);
}

int cli_usage(struct cv_cli *cli, cv_error_t *err, const char *fmt, ...)
{
	cleanup_free char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	cli->usage_error = true;
	if (r < 0)
		return cv_error(err, ENOMEM, "usage");
	if (!cli->verb)
		return cv_error_plain(err, EINVAL, "%s; see cvisor --help", msg);
	return cv_error_plain(err, EINVAL, "%s; see cvisor %s --help", msg, cli->verb);
}

int cli_option_error(struct cv_cli *cli, int c, char **argv, const char *help, cv_error_t *err)
{
	const char *arg = argv[optind - 1];

	if (c == 'h') {
		fputs(help, stdout);
		return 0;
	}
	if (c == ':')
		return cli_usage(cli, err, "flag %s needs a value", arg);
	if (optopt && optopt < CLI_LONG_ONLY && isprint(optopt) && arg && arg[0] == '-' && arg[1] != '-' &&
	    strlen(arg) == 2)
		return cli_usage(cli, err, "unknown flag -%c", optopt);
	return cli_usage(cli, err, "unknown flag %s", arg ? arg : "?");
}

int cli_nargs(struct cv_cli *cli, int argc, char **argv, int min, int max, const char *what, cv_error_t *err)
{
	int n = argc - optind;
	if (n < min)
		return cli_usage(cli, err, "missing %s", what);
	if (max >= 0 && n > max)
		return cli_usage(cli, err, "unexpected argument \"%s\"", argv[optind + max]);
	return 0;
}

int cli_parse_int(struct cv_cli *cli, const char *flag, const char *s, long min, long max, long *out, cv_error_t *err)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return cli_usage(cli, err, "%s: invalid value \"%s\" (expected an integer from %ld to %ld)", flag, s,
				 min, max);
	*out = v;
	return 0;
}

static int parse_rt(const char *s, cv_error_t *err)
{
	/* RTMIN, RTMIN+N, RTMAX, RTMAX-N */
	bool min = strncasecmp(s, "RTMIN", 5) == 0;
	int base = min ? SIGRTMIN : SIGRTMAX;
	const char *rest = s + 5;
	if (!*rest)
		return base;
	if (*rest != (min ? '+' : '-') || !isdigit((unsigned char)rest[1]))
		return -1;
	char *end;
	long n = strtol(rest + 1, &end, 10);
	if (*end || n > SIGRTMAX - SIGRTMIN)
		return -1;
	return min ? base + (int)n : base - (int)n;
}

int cli_parse_signal(const char *s, cv_error_t *err)
{
	const char *name = s;
	char *end;

	if (isdigit((unsigned char)*s)) {
		errno = 0;
		long n = strtol(s, &end, 10);
		if (*end || errno || n < 1 || n > SIGRTMAX)
			return cv_error_plain(err, EINVAL, "invalid signal \"%s\"", s);
		return (int)n;
	}
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	if (strncasecmp(name, "RTM", 3) == 0) {
		int r = parse_rt(name, err);
		if (r > 0)
			return r;
		return cv_error_plain(err, EINVAL, "invalid signal \"%s\"", s);
	}
	for (int sig = 1; sig < SIGRTMIN; sig++) {
		const char *abbrev = sigabbrev_np(sig);
		if (abbrev && strcasecmp(abbrev, name) == 0)
			return sig;
	}
	/* Aliases glibc's table does not list under these names. */
	if (strcasecmp(name, "IOT") == 0)
		return SIGABRT;
	if (strcasecmp(name, "POLL") == 0)
		return SIGIO;
	if (strcasecmp(name, "CLD") == 0)
		return SIGCHLD;
	return cv_error_plain(err, EINVAL, "invalid signal \"%s\"", s);
}

int cli_id_verb(struct cv_cli *cli, int argc, char **argv, const char *help,
		int (*fn)(const struct cvisor_context *, const char *, cvisor_error **), cv_error_t *err)
{
	static const struct option opts[] = { CLI_HELP_OPTION, { NULL, 0, NULL, 0 } };
	int c;

	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1)
		return cli_option_error(cli, c, argv, help, err);
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	return fn(&cli->ctx, argv[optind], err) < 0 ? -1 : 0;
}

const char *cli_build_features(void)
{
	/* +STATIC: static-pie, nothing loaded at start; the rest is always built:
	 * the systemd driver speaks D-Bus itself, seccomp notify needs only
	 * libseccomp 2.5 (configure's minimum), rootless maps go through
	 * newuidmap/newgidmap at run time. */
	return
#ifdef CV_STATIC_BINARY
		"+STATIC "
#else
		"-STATIC "
#endif
		"+CAP +SECCOMP +SECCOMP_NOTIFY +SYSTEMD +IDMAP +USERNS +ROOTLESS +YAJL -CRIU";
}
