/* The files module alone, for archive.bats:
 *   archive-tool write DIR [FORMAT] [--skip GLOB]... > OUT
 *   archive-tool extract DIR [--max-bytes N] [--max-entries N] [--max-path N] < IN
 *   archive-tool cache-put BACKEND KEY [FORMAT] < IN
 *   archive-tool cache-get BACKEND KEY [FORMAT] > OUT
 * --skip leaves out the paths matching GLOB (fnmatch, on the path relative
 * to DIR), through the skip callback. Errors: one line on stderr, status 1;
 * status 2 for a cache miss (ENOENT). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "files/archive.h"
#include "files/cache.h"
#include "log.h"

static void log_to_stderr(int level, const char *msg, void *data)
{
	fprintf(stderr, "archive-tool: %s\n", msg);
}

struct globs {
	char **v;
	int n;
};

static bool skip_globs(void *arg, const char *rel, bool is_dir)
{
	struct globs *g = arg;
	for (int i = 0; i < g->n; i++)
		if (fnmatch(g->v[i], rel, FNM_PATHNAME) == 0)
			return true;
	return false;
}

static int usage(void)
{
	fprintf(stderr, "usage: archive-tool write DIR [FORMAT] [--skip GLOB]... > OUT\n"
			"       archive-tool extract DIR [--max-bytes N] [--max-entries N] [--max-path N] < IN\n"
			"       archive-tool cache-put BACKEND KEY [FORMAT] < IN\n"
			"       archive-tool cache-get BACKEND KEY [FORMAT] > OUT\n");
	return 1;
}

static int do_write(int argc, char **argv, cv_error_t *err)
{
	char *globv[64];
	struct globs g = { globv, 0 };
	const char *format = NULL;
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--skip") == 0 && i + 1 < argc && g.n < 64)
			globv[g.n++] = argv[++i];
		else if (!format)
			format = argv[i];
		else
			return usage();
	}
	enum cv_archive_format f;
	int r = cv_archive_format_parse(format, &f, err);
	if (r < 0)
		return r;
	cleanup_close int dfd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return cv_error_errno(err, "open `%s`", argv[2]);
	return cv_archive_write(dfd, STDOUT_FILENO, f, g.n ? skip_globs : NULL, &g, err);
}

static int do_extract(int argc, char **argv, cv_error_t *err)
{
	struct cv_archive_limits lim = CV_ARCHIVE_LIMITS_DEFAULT;
	for (int i = 3; i < argc; i++) {
		if (i + 1 >= argc)
			return usage();
		uint64_t v = strtoull(argv[i + 1], NULL, 0);
		if (strcmp(argv[i], "--max-bytes") == 0)
			lim.max_bytes = v;
		else if (strcmp(argv[i], "--max-entries") == 0)
			lim.max_entries = v;
		else if (strcmp(argv[i], "--max-path") == 0)
			lim.max_path = v;
		else
			return usage();
		i++;
	}
	cleanup_close int dfd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return cv_error_errno(err, "open `%s`", argv[2]);
	return cv_archive_extract(STDIN_FILENO, dfd, &lim, err);
}

static int do_cache(bool put, int argc, char **argv, cv_error_t *err)
{
	if (argc < 4 || argc > 5)
		return usage();
	const char *format = argc > 4 ? argv[4] : NULL;
	if (put)
		return cv_cache_put(argv[2], argv[3], format, STDIN_FILENO, err);
	cleanup_close int fd = -1;
	int r = cv_cache_get(argv[2], argv[3], format, &fd, err);
	if (r < 0)
		return r;
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if ((r = cv_write_all(STDOUT_FILENO, buf, n)) < 0)
			return cv_error(err, -r, "write stdout");
	return n < 0 ? cv_error_errno(err, "read the cache entry") : 0;
}

int main(int argc, char **argv)
{
	cleanup_error cv_error_t err = NULL;
	int r;

	if (getenv("ARCHIVE_TOOL_DEBUG"))
		cv_log_set_sink(log_to_stderr, NULL, CV_LOG_DEBUG);
	if (argc < 3)
		return usage();
	if (strcmp(argv[1], "write") == 0)
		r = do_write(argc, argv, &err);
	else if (strcmp(argv[1], "extract") == 0)
		r = do_extract(argc, argv, &err);
	else if (strcmp(argv[1], "cache-put") == 0)
		r = do_cache(true, argc, argv, &err);
	else if (strcmp(argv[1], "cache-get") == 0)
		r = do_cache(false, argc, argv, &err);
	else
		return usage();
	if (r < 0) {
		fprintf(stderr, "archive-tool: %s\n", err ? err->msg : "failed");
		return r == -ENOENT && strncmp(argv[1], "cache-", 6) == 0 ? 2 : 1;
	}
	return 0;
}
