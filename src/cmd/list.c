/* cvisor list [--format table|json] [--quiet] */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"

static const char help[] = "Usage: cvisor list [flags]\n"
			   "\n"
			   "Lists the containers under --root.\n"
			   "\n"
			   "Flags:\n"
			   "  -f, --format FORMAT   table (default) or json (an array of state objects)\n"
			   "  -q, --quiet           print only the container ids\n"
			   "  -h, --help            print this help\n";

static int width(const char *s, int w)
{
	int n = s ? (int)strlen(s) : 0;
	return n > w ? n : w;
}

int cmd_list(struct cv_cli *cli, int argc, char **argv, cv_error_t *err)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		CLI_HELP_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct cvisor_container_info *v = NULL;
	const char *format = "table";
	bool quiet = false;
	size_t n = 0;
	int c;

	while ((c = cli_getopt(argc, argv, "+:f:qh", opts)) != -1) {
		if (c == 'f')
			format = optarg;
		else if (c == 'q')
			quiet = true;
		else
			return cli_option_error(cli, c, argv, help, err);
	}
	if (cli_nargs(cli, argc, argv, 0, 0, "", err) < 0)
		return -1;
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0)
		return cli_usage(cli, err, "--format: invalid value \"%s\" (expected table or json)", format);
	if (!quiet && strcmp(format, "json") == 0) {
		cleanup_free char *json = NULL;
		if (cvisor_list_json(&cli->ctx, &json, err) < 0)
			return -1;
		puts(json);
		return 0;
	}
	if (cvisor_list(&cli->ctx, &v, &n, err) < 0)
		return -1;

	if (quiet) {
		for (size_t i = 0; i < n; i++)
			puts(v[i].id);
	} else {
		int wid = 2, wst = 6, wb = 6, wc = 7;
		for (size_t i = 0; i < n; i++) {
			wid = width(v[i].id, wid);
			wst = width(v[i].status, wst);
			wb = width(v[i].bundle, wb);
			wc = width(v[i].created, wc);
		}
		printf("%-*s   %-7s   %-*s   %-*s   %-*s   %s\n", wid, "ID", "PID", wst, "STATUS", wb, "BUNDLE", wc,
		       "CREATED", "OWNER");
		for (size_t i = 0; i < n; i++)
			printf("%-*s   %-7d   %-*s   %-*s   %-*s   %s\n", wid, v[i].id, (int)v[i].pid, wst,
			       v[i].status ? v[i].status : "", wb, v[i].bundle ? v[i].bundle : "", wc,
			       v[i].created ? v[i].created : "", v[i].owner ? v[i].owner : "");
	}
	cvisor_container_info_free(v, n);
	return 0;
}
