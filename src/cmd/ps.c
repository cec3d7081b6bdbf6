/* cvisor ps [--format table|json] ID [PS-OPTIONS...] */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "cmd.h"

extern char **environ;

static const char help[] = "Usage: cvisor ps [flags] CONTAINER-ID [PS-OPTIONS...]\n"
			   "\n"
			   "Lists the processes in the container's cgroup. The table format runs ps(1)\n"
			   "with PS-OPTIONS (default -ef) and keeps its header and the lines of the\n"
			   "container's processes (host pids).\n"
			   "\n"
			   "Flags:\n"
			   "  -f, --format FORMAT   table (default) or json (an array of pids)\n"
			   "  -h, --help            print this help\n";

#define MAX_PS_OUTPUT (64 * 1024 * 1024)

/* Runs ps with args and returns everything it wrote to stdout. */
static int run_ps(char **args, size_t nargs, char **out, cv_error_t *err)
{
	cleanup_free char **argv = calloc(nargs + 2, sizeof(*argv));
	cleanup_free char *buf = NULL;
	posix_spawn_file_actions_t fa;
	int pipefd[2], status, r;
	size_t len = 0;
	pid_t pid;

	if (!argv)
		return cv_error(err, ENOMEM, "ps");
	argv[0] = (char *)"ps";
	for (size_t i = 0; i < nargs; i++)
		argv[i + 1] = args[i];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return cv_error_errno(err, "ps: pipe");
	if ((r = posix_spawn_file_actions_init(&fa)) != 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return cv_error(err, r, "ps: spawn");
	}
	r = posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	if (r == 0)
		r = posix_spawnp(&pid, "ps", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (r != 0) {
		close(pipefd[0]);
		return cv_error(err, r, "run `ps`");
	}
	/* on failure the pipe closes early: ps ends on SIGPIPE and is reaped */
	int rr = cv_read_fd(pipefd[0], "the output of `ps`", MAX_PS_OUTPUT, &buf, &len, err);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return rr < 0 ? rr : cv_error_errno(err, "wait for `ps`");
	}
	if (rr < 0)
		return rr;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return cv_error(err, 0, "`ps` failed (exit status %d)",
				WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	if (len == 0)
		return cv_error(err, 0, "`ps` printed nothing");
	*out = steal_pointer(&buf);
	return 0;
}

/* The whitespace-separated field number `col` of line, or NULL. */
static const char *field(const char *line, int col, size_t *flen)
{
	const char *p = line;
	for (int i = 0;; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			return NULL;
		const char *s = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		if (i == col) {
			*flen = (size_t)(p - s);
			return s;
		}
	}
}

static int print_table(char **args, size_t nargs, const pid_t *pids, size_t npids, cv_error_t *err)
{
	static char *default_args[] = { (char *)"-ef" };
	cleanup_free char *out = NULL;
	int col = -1;

	if (nargs == 0) {
		args = default_args;
		nargs = 1;
	}
	if (run_ps(args, nargs, &out, err) < 0)
		return -1;
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	for (int i = 0;; i++) {
		size_t flen;
		const char *f = field(out, i, &flen);
		if (!f)
			break;
		if (flen == 3 && strncmp(f, "PID", 3) == 0) {
			col = i;
			break;
		}
	}
	if (col < 0)
		return cv_error(err, 0, "`ps` output has no PID column: use options that print one");
	puts(out);
	for (char *line = nl ? nl + 1 : NULL; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		size_t flen;
		const char *f = field(line, col, &flen);
		if (!f)
			continue;
		char *end;
		long pid = strtol(f, &end, 10);
		if (end != f + flen)
			continue;
		for (size_t i = 0; i < npids; i++) {
			if (pids[i] == pid) {
				puts(line);
				break;
			}
		}
	}
	return 0;
}

int cmd_ps(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "table";
	cleanup_free pid_t *pids = NULL;
	size_t n = 0;
	int c;

	while ((c = cli_getopt(argc, argv, "+:f:h", opts)) != -1) {
		if (c == 'f')
			format = optarg;
		else
			return cli_option_error(cli, c, argv, help, err);
	}
	if (cli_nargs(cli, argc, argv, 1, -1, "container id", err) < 0)
		return -1;
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0)
		return cli_usage(cli, err, "--format: invalid value \"%s\" (expected table or json)", format);
	if (strcmp(format, "json") == 0 && argc - optind > 1)
		return cli_usage(cli, err, "ps options cannot be used with --format json");
	if (cvisor_pids(&cli->ctx, argv[optind], &pids, &n, err) < 0)
		return -1;
	if (strcmp(format, "json") == 0) {
		putchar('[');
		for (size_t i = 0; i < n; i++)
			printf("%s%d", i ? "," : "", (int)pids[i]);
		puts("]");
		return 0;
	}
	return print_table(argv + optind + 1, (size_t)(argc - optind - 1), pids, n, err) < 0 ? -1 : 0;
}
