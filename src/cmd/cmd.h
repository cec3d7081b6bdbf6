/* The runc-compatible command line: one file per verb. A verb parses its
 * flags into an options struct and makes one library call; it never prints
 * errors itself (main does, once) and never touches JSON. */
#ifndef CVISOR_CMD_H
#define CVISOR_CMD_H

#include <getopt.h>
#include <stdbool.h>

#include "cvisor.h"
#include "error.h"

/* Global flags, before the verb. */
struct cv_cli {
	struct cvisor_context ctx;
	const char *log_path; /* --log */
	bool log_json;        /* --log-format json */
	bool debug;           /* --debug */
	const char *criu;     /* --criu: accepted, unused (no checkpoint/restore) */
	const char *verb;
	bool usage_error; /* the error is about usage: main adds a hint */
};

/* Every verb: argv[0] is the verb name. Returns the exit status (>= 0), or
 * < 0 with *err set. */
typedef int cv_cmd_fn(struct cv_cli *cli, int argc, char **argv, cv_error_t *err);

cv_cmd_fn cmd_create, cmd_start, cmd_run, cmd_state, cmd_kill, cmd_delete, cmd_exec, cmd_ps, cmd_list, cmd_pause,
	cmd_resume, cmd_update, cmd_events, cmd_spec, cmd_features;
/* the sandbox: src/cmd/do.c */
cv_cmd_fn cmd_do, cmd_gc;

/* Long options without a short form use values from here up. */
#define CLI_LONG_ONLY 0x100
#define CLI_HELP_OPTION                                                                                                \
	{                                                                                                              \
		"help", no_argument, NULL, 'h'                                                                         \
	}

/* getopt_long_only with runc's conventions: `-flag` and `--flag`,
 * `--flag=value`, parsing stops at the first non-flag (the container id). */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);
/* Handles what cli_getopt returned outside the verb's own flags: 'h' prints
 * `help` and returns 0; anything else is a usage error (< 0). */
int cli_option_error(struct cv_cli *cli, int c, char **argv, const char *help, cv_error_t *err);
/* Sets a usage error `MESSAGE; see cvisor VERB --help`. */
int cli_usage(struct cv_cli *cli, cv_error_t *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Checks the number of positional arguments left after the flags. */
int cli_nargs(struct cv_cli *cli, int argc, char **argv, int min, int max, const char *what, cv_error_t *err);
/* The whole of a verb that takes only --help and one container id (start,
 * pause, resume): parses, then calls fn on the id. */
int cli_id_verb(struct cv_cli *cli, int argc, char **argv, const char *help,
		int (*fn)(const struct cvisor_context *, const char *, cvisor_error **), cv_error_t *err);
int cli_parse_int(struct cv_cli *cli, const char *flag, const char *s, long min, long max, long *out, cv_error_t *err);

/* What this build supports, crun's style ("+SECCOMP +IDMAP ... -CRIU"), for
 * --version and the features document. */
const char *cli_build_features(void);

/* Signal names (KILL, SIGKILL, kill, RTMIN+3) and numbers; 0 or < 0 + err. */
int cli_parse_signal(const char *s, cv_error_t *err);

#endif
