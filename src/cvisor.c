/* cvisor: main. Parses the global flags (runc's), routes library diagnostics
 * to stderr or --log, dispatches to src/cmd/<verb>.c, and is the one place
 * that prints errors. Run by a program embedding libcvisor as its helper
 * (cvisor-binary.h), it reports diagnostics and the error to that
 * program instead of printing them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "cmd.h"
#include "cvisor-binary.h"
#include "log.h"

/* libcvisor's verbs (cvisor-binary.h), not the user's: no flags */
static const char keeper_help[] = "Usage: cvisor sandbox-keeper (run by libcvisor, not by users)\n";

static int cmd_sandbox_keeper(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = { CLI_HELP_OPTION, { NULL, 0, NULL, 0 } };
	int c;
	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1)
		return cli_option_error(cli, c, argv, keeper_help, err);
	if (cli_nargs(cli, argc, argv, 0, 0, "", err) < 0)
		return -1;
	return cv_sandbox_keeper(&cli->ctx, err) < 0 ? -1 : 0;
}

static const char reap_help[] = "Usage: cvisor " CV_SANDBOX_REAP_VERB
				" PID PID_START ID [KEY VALUE]... (run by cvisor do's watcher, not by users)\n";

static int cmd_sandbox_reap(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = { CLI_HELP_OPTION, { NULL, 0, NULL, 0 } };
	int c;
	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1)
		return cli_option_error(cli, c, argv, reap_help, err);
	return cv_sandbox_reap(argc - optind, argv + optind, err) < 0 ? -1 : 0;
}

/* `cvisor do` runs one sandbox and exits: its container process may share
 * our memory (cv_shared_launch_allow). The keeper serves many: not there.
 * It carries a sandbox's init as a program of its own where it can. */
static int cmd_do_once(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
#ifdef CV_INIT_IMAGE
	cv_shared_launch_allow(cv_init_image, cv_init_image_size);
#else
	cv_shared_launch_allow(NULL, 0);
#endif
	return cmd_do(cli, argc, argv, err);
}

static const struct {
	const char *name;
	cv_cmd_fn *fn;
	const char *summary;
} verbs[] = {
	{ "create", cmd_create, "create a container (its process waits for start)" },
	{ "start", cmd_start, "start the user program of a created container" },
	{ "run", cmd_run, "create and start a container" },
	{ "state", cmd_state, "print the state of a container as JSON" },
	{ "kill", cmd_kill, "send a signal to the container's init process" },
	{ "delete", cmd_delete, "delete a container and what it holds" },
	{ "exec", cmd_exec, "run a new process inside a container" },
	{ "ps", cmd_ps, "list the processes of a container" },
	{ "list", cmd_list, "list containers" },
	{ "pause", cmd_pause, "freeze every process of a container" },
	{ "resume", cmd_resume, "thaw a paused container" },
	{ "update", cmd_update, "update a container's resource limits" },
	{ "events", cmd_events, "show container events and statistics" },
	{ "spec", cmd_spec, "write a default config.json" },
	{ "features", cmd_features, "print the features this runtime supports, as JSON" },
	{ "do", cmd_do_once, "run one program in a sandbox (cvisor do -- PROGRAM ARGS...)" },
	{ "gc", cmd_gc, "remove what killed `cvisor do` runs left behind" },
	/* libcvisor's, not the user's: no summary, not in the help */
	{ "sandbox-keeper", cmd_sandbox_keeper, NULL },
	{ CV_SANDBOX_REAP_VERB, cmd_sandbox_reap, NULL },
};

static const char main_help[] =
	"Usage: cvisor [global flags] COMMAND [flags] [arguments]\n"
	"\n"
	"cvisor runs containers from OCI bundles, with runc's command line.\n"
	"\n"
	"Global flags:\n"
	"  --root DIR            state directory (default /run/cvisor, or $XDG_RUNTIME_DIR/cvisor when not root)\n"
	"  --log FILE            also write log lines and errors to FILE\n"
	"  --log-format FORMAT   text (default) or json\n"
	"  --debug               log debug lines\n"
	"  --systemd-cgroup      cgroupsPath is slice:prefix:name for systemd\n"
	"  --rootless VALUE      true, false or auto (default auto)\n"
	"  --criu PATH           accepted for compatibility; no effect (checkpoint is not supported)\n"
	"  -v, --version         print versions and exit\n"
	"  -h, --help            print this help and exit\n"
	"\n"
	"Commands:\n";

struct log_out {
	FILE *file;
	bool json;
	bool to_stderr; /* warnings/debug go to stderr when there is no --log */
	bool helper;    /* ... or to the program that runs us as its helper */
};

static const char *level_name(enum cv_log_level l)
{
	switch (l) {
	case CV_LOG_ERROR:
		return "error";
	case CV_LOG_WARNING:
		return "warning";
	case CV_LOG_INFO:
		return "info";
	default:
		return "debug";
	}
}

/* RFC 3339 in UTC with nanoseconds. */
static void now_rfc3339(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	char base[32];
	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm) ||
	    !strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, size, "1970-01-01T00:00:00Z");
		return;
	}
	snprintf(buf, size, "%s.%09ldZ", base, ts.tv_nsec);
}

/* One line: {"level":"error","msg":"...","time":"..."} or logrus-style text. */
static void write_log_line(FILE *f, bool json, enum cv_log_level level, const char *msg)
{
	char ts[64];
	now_rfc3339(ts, sizeof(ts));
	if (json) {
		cleanup_free char *line = NULL;
		if (cv_log_line_json(level_name(level), msg, ts, &line) == 0)
			fprintf(f, "%s\n", line);
	} else {
		fprintf(f, "time=\"%s\" level=%s msg=\"", ts, level_name(level));
		for (const char *p = msg; *p; p++) {
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			if (*p == '\n')
				fputs("\\n", f);
			else
				fputc(*p, f);
		}
		fputs("\"\n", f);
	}
	fflush(f);
}

static void log_sink(int level, const char *msg, void *data)
{
	struct log_out *o = data;
	if (o->helper)
		cv_helper_log(level, msg, NULL);
	if (o->file)
		write_log_line(o->file, o->json, level, msg);
	else if (o->to_stderr && !o->helper)
		fprintf(stderr, "cvisor: %s: %s\n", level_name(level), msg);
}

static int print_version(cv_error_t *err)
{
	cleanup_free char *versions = NULL;

	if (cvisor_versions(&versions, err) < 0)
		return -1;
	printf("cvisor version %s\n", PACKAGE_VERSION);
	fputs(versions, stdout); /* spec, yajl, libseccomp, libcap */
	/* From the headers: linking libmount only for this line would load it
	 * (and libblkid, libselinux, libpcre2) on every container start. */
	printf("libmount: %s\n", LIBMOUNT_VERSION);
	printf("features: %s\n", cli_build_features());
	return 0;
}

static void print_help(void)
{
	fputs(main_help, stdout);
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (verbs[i].summary)
			printf("  %-10s %s\n", verbs[i].name, verbs[i].summary);
	puts("\nRun `cvisor COMMAND --help` for the flags of a command.");
}

enum {
	OPT_ROOT = CLI_LONG_ONLY,
	OPT_LOG,
	OPT_LOG_FORMAT,
	OPT_DEBUG,
	OPT_SYSTEMD,
	OPT_ROOTLESS,
	OPT_CRIU
};

static const struct option global_opts[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "log-format", required_argument, NULL, OPT_LOG_FORMAT },
	{ "debug", no_argument, NULL, OPT_DEBUG },
	{ "systemd-cgroup", no_argument, NULL, OPT_SYSTEMD },
	{ "rootless", required_argument, NULL, OPT_ROOTLESS },
	{ "criu", required_argument, NULL, OPT_CRIU },
	{ "version", no_argument, NULL, 'v' },
	CLI_HELP_OPTION,
	{ NULL, 0, NULL, 0 },
};

static int parse_globals(struct cv_cli *cli, int argc, char **argv, bool *exit_now, cv_error_t *err)
{
	const char *format = "text";
	int c;

	while ((c = cli_getopt(argc, argv, "+:vh", global_opts)) != -1) {
		switch (c) {
		case OPT_ROOT:
			cli->ctx.state_root = optarg;
			break;
		case OPT_LOG:
			cli->log_path = optarg;
			break;
		case OPT_LOG_FORMAT:
			format = optarg;
			break;
		case OPT_DEBUG:
			cli->debug = true;
			break;
		case OPT_SYSTEMD:
			cli->ctx.systemd_cgroup = true;
			break;
		case OPT_ROOTLESS:
			if (strcmp(optarg, "true") == 0)
				cli->ctx.rootless = 1;
			else if (strcmp(optarg, "false") == 0)
				cli->ctx.rootless = 0;
			else if (strcmp(optarg, "auto") == 0)
				cli->ctx.rootless = -1;
			else
				return cli_usage(cli, err,
						 "--rootless: invalid value \"%s\" (expected true, false or auto)",
						 optarg);
			break;
		case OPT_CRIU:
			cli->criu = optarg;
			break;
		case 'v':
			*exit_now = true;
			return print_version(err);
		case 'h':
			print_help();
			*exit_now = true;
			return 0;
		default:
			return cli_option_error(cli, c, argv, main_help, err);
		}
	}
	if (strcmp(format, "json") == 0)
		cli->log_json = true;
	else if (strcmp(format, "text") != 0)
		return cli_usage(cli, err, "--log-format: invalid value \"%s\" (expected text or json)", format);
	if (cli->ctx.state_root && !*cli->ctx.state_root)
		return cli_usage(cli, err, "--root: must not be empty");
	return 0;
}

/* The heap's first pages and the stack's next ones made in two calls, as
 * the entry point made the binary's (lifecycle/early-prefault.c): a short
 * command writes ~20 heap and ~5 stack pages, one page fault each, and on
 * a virtual machine each an exit to the hypervisor. With the shared
 * launch the container process writes there too. Only what a run uses
 * anyway (abt, 2000 rounds: cvisor do true 0.985, with limits 0.980; the
 * same peak RSS); a kernel without MADV_POPULATE_WRITE faults as before. */
static void prefault_heap_and_stack(void)
{
#ifdef __GLIBC__
	enum {
		HEAP = 96 * 1024,
		STACK = 32 * 1024
	};
	free(malloc(1)); /* the main arena, made with its top pad */
	uintptr_t top = (uintptr_t)sbrk(0);
	struct mallinfo2 mi = mallinfo2();
	uintptr_t start = (top - mi.arena + 4095) & ~(uintptr_t)4095;
	if (top > start)
		(void)madvise((void *)start, top - start < HEAP ? top - start : HEAP, MADV_POPULATE_WRITE);
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)4095;
	(void)madvise((void *)(sp - STACK), STACK, MADV_POPULATE_WRITE);
#endif
}

int main(int argc, char **argv)
{
	struct cv_cli cli = { .ctx = { .struct_size = sizeof(struct cvisor_context), .rootless = -1 } };
	struct log_out out = { .to_stderr = true };
	cleanup_error cv_error_t err = NULL;
	bool exit_now = false;
	int status = 1;

	prefault_heap_and_stack();
	int helper = cv_helper_serve(&err);
	if (helper < 0)
		goto fail;
	out.helper = helper > 0;
	cv_log_set_sink(log_sink, &out, CV_LOG_WARNING);
	if (parse_globals(&cli, argc, argv, &exit_now, &err) < 0)
		goto fail;
	if (exit_now)
		return 0;
	if (cli.log_path) {
		int fd = open(cli.log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
		if (fd < 0 || !(out.file = fdopen(fd, "a"))) {
			cv_error_errno(&err, "open log file `%s`", cli.log_path);
			cv_closep(&fd);
			goto fail;
		}
	}
	out.json = cli.log_json;
	cv_log_set_sink(log_sink, &out, cli.debug ? CV_LOG_DEBUG : CV_LOG_WARNING);
	if (cli.criu)
		cv_debug("--criu %s: ignored, checkpoint/restore is not supported", cli.criu);

	if (optind >= argc) {
		cli_usage(&cli, &err, "missing command");
		goto fail;
	}
	cli.verb = argv[optind];
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcmp(verbs[i].name, cli.verb) != 0)
			continue;
		char **vargv = argv + optind;
		int vargc = argc - optind;
		optind = 0; /* fully re-initialise getopt for the verb's flags */
		status = verbs[i].fn(&cli, vargc, vargv, &err);
		if (status >= 0)
			goto done;
		goto fail;
	}
	cli.verb = NULL;
	cli_usage(&cli, &err, "unknown command \"%s\"", argv[optind]);

fail:
	status = 1;
	if (err) {
		const char *msg = err->msg ? err->msg : "unknown error";
		/* A usage error before any verb points at the global help. */
		if (out.helper)
			cv_helper_fail(err);
		else
			fprintf(stderr, "cvisor: %s\n", msg);
		if (out.file)
			write_log_line(out.file, out.json, CV_LOG_ERROR, msg);
	}
done:
	fflush(stdout);
	if (out.file)
		fclose(out.file);
	if (out.helper)
		cv_helper_exit(status);
	return status;
}
