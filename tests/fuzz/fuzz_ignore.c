/* libFuzzer target: the .gitignore / .dockerignore parser and matcher
 * (src/libcvisor/files/ignore.c). The first byte picks the kind (bit 0:
 * .dockerignore) and the directory of a .gitignore (bit 1: "d/e"); the
 * rest is the file. Besides memory errors and time (a pattern must never
 * backtrack exponentially) it checks:
 *   - a failure carries a message naming the file;
 *   - the file added twice decides every path as once (the last match
 *     wins, and the second copy ends the same way the first did);
 *   - a path below an excluded .gitignore directory is excluded.
 * The paths tried are fixed ones and the file's own lines, cleaned up to
 * look like paths. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files/ignore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fixed[] = {
	"a",
	"a/b",
	"a/b/c",
	"d",
	"d/e",
	"d/e/f",
	"d/e/f/g.o",
	"d/e/x.log",
	"x.tmp",
	".env",
	"node_modules/m/i.js",
	"build/out",
	"#x",
	"!x",
	"a b",
	"a\\b",
	"[x]",
	"d/e/**",
	"src/d/e/f",
};

static void check(const cv_ignore *once, const cv_ignore *twice, bool docker, const char *path)
{
	if (!path[0])
		return;
	for (int dir = 0; dir < 2; dir++) {
		bool m = cv_ignore_match(once, path, dir);
		if (m != cv_ignore_match(twice, path, dir))
			abort();
		/* git: an excluded directory takes all below it */
		if (!docker && dir && m) {
			char below[4200];
			snprintf(below, sizeof(below), "%s/below", path);
			if (!cv_ignore_match(once, below, false))
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 64 * 1024)
		return 0;
	bool docker = data[0] & 1;
	const char *dir = !docker && (data[0] & 2) ? "d/e" : "";
	enum cv_ignore_kind kind = docker ? CV_IGNORE_DOCKERIGNORE : CV_IGNORE_GITIGNORE;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	cleanup_ignore cv_ignore *once = cv_ignore_new(), *twice = cv_ignore_new();
	cv_error_t err = NULL;

	if (!once || !twice)
		abort();
	if (cv_ignore_add(once, dir, text, len, kind, &err) < 0) {
		if (!err || !err->msg || !strstr(err->msg, docker ? ".dockerignore`" : ".gitignore`"))
			abort();
		cv_error_release(&err);
		return 0;
	}
	/* a file not ending in a newline would run into the copy's first line */
	if (cv_ignore_add(twice, dir, text, len, kind, &err) < 0 ||
	    cv_ignore_add(twice, dir, "\n", 1, kind, &err) < 0 || cv_ignore_add(twice, dir, text, len, kind, &err) < 0)
		abort();

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check(once, twice, docker, fixed[i]);
	char path[4097];
	for (size_t i = 0, n = 0; i <= len; i++) {
		if (i == len || text[i] == '\n' || n == sizeof(path) - 1) {
			/* a line as a path: no leading `!` or `/`, no trailing `/`,
			 * no NUL, no empty component */
			path[n] = '\0';
			char *p = path;
			while (*p == '!' || *p == '/')
				p++;
			size_t l = strlen(p);
			while (l > 0 && p[l - 1] == '/')
				p[--l] = '\0';
			if (!strstr(p, "//"))
				check(once, twice, docker, p);
			n = 0;
			continue;
		}
		if (text[i] != '\0' && text[i] != '\r')
			path[n++] = text[i];
	}
	return 0;
}
