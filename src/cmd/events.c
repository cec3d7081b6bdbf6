/* cvisor events [--stats] [--interval D] ID: runc's event stream (stats
 * every interval, OOM events) until the container stops, or one stats event. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"

static const char help[] = "Usage: cvisor events [flags] CONTAINER-ID\n"
			   "\n"
			   "Prints container events as JSON lines: resource statistics every interval\n"
			   "and OOM events as they happen, until the container stops.\n"
			   "\n"
			   "Flags:\n"
			   "  --interval DURATION   time between statistics (Go durations: 500ms, 5s, 1m;\n"
			   "                        default 5s)\n"
			   "  --stats               print the statistics once and exit\n"
			   "  -h, --help            print this help\n";

/* A Go-style duration: a sequence of NUMBER UNIT (ns us ms s m h). */
static int parse_duration(const char *s, uint64_t *ms, cv_error_t *err)
{
	static const struct {
		const char *u;
		double ms;
	} units[] = { { "ns", 1e-6 }, { "us", 1e-3 }, { "ms", 1 }, { "s", 1e3 }, { "m", 6e4 }, { "h", 3.6e6 } };
	double total = 0;
	const char *p = s;
	if (!*p)
		goto bad;
	while (*p) {
		char *end;
		double v = strtod(p, &end);
		if (end == p || v < 0)
			goto bad;
		size_t best = 0, bl = 0;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t l = strlen(units[i].u);
			if (strncmp(end, units[i].u, l) == 0 && l > bl)
				best = i, bl = l;
		}
		if (!bl)
			goto bad;
		total += v * units[best].ms;
		p = end + bl;
	}
	if (total < 1 || total > 1e12)
		goto bad;
	*ms = (uint64_t)total;
	return 0;
bad:
	return cv_error_plain(err, EINVAL, "events: --interval: invalid duration \"%s\" (e.g. 500ms, 5s; at least 1ms)",
			      s);
}

static int print_line(const char *json, void *data)
{
	(void)data;
	if (printf("%s\n", json) < 0 || fflush(stdout) != 0)
		return -EPIPE; /* the reader went away */
	return 0;
}

int cmd_events(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, CLI_LONG_ONLY },
		{ "stats", no_argument, NULL, CLI_LONG_ONLY + 1 },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct cvisor_events_options o = { .struct_size = sizeof(o) };
	bool stats = false;
	int c;

	while ((c = cli_getopt(argc, argv, "+:h", opts)) != -1) {
		if (c == CLI_LONG_ONLY) {
			if (parse_duration(optarg, &o.interval_ms, err) < 0)
				return -1;
		} else if (c == CLI_LONG_ONLY + 1) {
			stats = true;
		} else {
			return cli_option_error(cli, c, argv, help, err);
		}
	}
	if (cli_nargs(cli, argc, argv, 1, 1, "container id", err) < 0)
		return -1;
	if (stats) {
		cleanup_free char *json = NULL;
		if (cvisor_stats(&cli->ctx, argv[optind], &json, err) < 0)
			return -1;
		return print_line(json, NULL) < 0 ? cv_error_plain(err, EPIPE, "events: write to stdout failed") : 0;
	}
	int r = cvisor_events(&cli->ctx, argv[optind], &o, print_line, NULL, err);
	if (r == -EPIPE)
		return 0;
	return r < 0 ? -1 : 0;
}
