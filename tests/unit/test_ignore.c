/* Unit tests for src/libcvisor/files/ignore.c: the .gitignore and
 * .dockerignore matchers, case by case, and their errors. The walk and the
 * comparison with git itself are in tests/integration/ignore.bats. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "files/ignore.h"
#include "tap.h"

#define GIT CV_IGNORE_GITIGNORE
#define DOCKER CV_IGNORE_DOCKERIGNORE

static cv_ignore *rules(const char *dir, const char *text, enum cv_ignore_kind kind)
{
	cv_ignore *ig = cv_ignore_new();
	cv_error_t err = NULL;
	if (!ig || cv_ignore_add(ig, dir, text, strlen(text), kind, &err) < 0) {
		tap_diag("cv_ignore_add: %s", err && err->msg ? err->msg : "out of memory");
		cv_error_release(&err);
		exit(1);
	}
	return ig;
}

/* One .gitignore at the root: each "path" of KEEP is kept, of DROP left
 * out; a trailing "/" in the path makes it a directory. */
static void check_set(cv_ignore *ig, const char *text, const char *const *drop, const char *const *keep)
{
	char what[128];
	snprintf(what, sizeof(what), "%s", text);
	for (char *c = what; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = '|';
	for (int pass = 0; pass < 2; pass++) {
		for (const char *const *p = pass ? keep : drop; p && *p; p++) {
			char path[256];
			size_t n = strlen(*p);
			bool dir = n > 0 && (*p)[n - 1] == '/';
			snprintf(path, sizeof(path), "%.*s", (int)(n - dir), *p);
			bool m = cv_ignore_match(ig, path, dir);
			ok(m == !pass, "%s: %s %s", what, *p, pass ? "kept" : "ignored");
		}
	}
}

static void git(const char *text, const char *const *drop, const char *const *keep)
{
	cleanup_ignore cv_ignore *ig = rules("", text, GIT);
	check_set(ig, text, drop, keep);
}

static void docker(const char *text, const char *const *drop, const char *const *keep)
{
	cleanup_ignore cv_ignore *ig = rules("", text, DOCKER);
	check_set(ig, text, drop, keep);
}

#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NONE NULL

static void fails(const char *dir, const char *text, enum cv_ignore_kind kind, int errnum, const char *want)
{
	cleanup_ignore cv_ignore *ig = cv_ignore_new();
	cv_error_t err = NULL;
	int r = cv_ignore_add(ig, dir, text, strlen(text), kind, &err);
	ok(r == -errnum, "error %d for %s", errnum, want);
	is_str(err ? err->msg : NULL, want, "message");
	cv_error_release(&err);
}

static void test_git_syntax(void)
{
	git("# a comment\n\n   \nfoo\n", L("foo", "a/foo", "a/b/foo/"), L("# a comment", "bar", "foo.c", "afoo"));
	git("\\#hash\n\\!bang\n", L("#hash", "d/!bang"), L("hash", "bang"));
	git("!notneg\n\\!neg\n", NONE, L("notneg"));
	/* trailing spaces go, unless escaped; leading ones stay */
	git("trail   \n", L("trail", "x/trail"), L("trail "));
	git("esc\\ \n", L("esc "), L("esc"));
	git("esc2\\  \\  \n", L("esc2   "), L("esc2", "esc2 ", "esc2  "));
	git(" lead\n", L(" lead"), L("lead"));
	git("tab\t\n", L("tab\t"), L("tab"));
	/* CRLF line ends and a BOM */
	git("\xef\xbb\xbf"
	    "bom\r\ncrlf\r\n",
	    L("bom", "crlf"),
	    L("\xef\xbb\xbf"
	      "bom",
	      "crlf\r"));
	/* no newline at the end of the file */
	git("a\nlast", L("last"), L("las"));
}

/* a NUL ends the pattern of a line, as it does in git's C strings */
static void test_git_nul(void)
{
	cleanup_ignore cv_ignore *ig = cv_ignore_new();
	cv_error_t err = NULL;
	ok(cv_ignore_add(ig, "", "nul\0rest\nnext\n", 14, GIT, &err) == 0, "a line with a NUL");
	ok(cv_ignore_match(ig, "nul", false), "it matches up to the NUL");
	ok(cv_ignore_match(ig, "next", false), "the next line still counts");
	ok(!cv_ignore_match(ig, "nulrest", false), "not past the NUL");
}

static void test_git_anchoring(void)
{
	git("/root\n", L("root", "root/"), L("a/root", "a/root/"));
	git("a/b\n", L("a/b", "a/b/", "a/b/c/x"), L("x/a/b", "b"));
	git("a/b/\n", L("a/b/"), L("a/b", "x/a/b/"));
	git("dir/\n", L("dir/", "x/dir/", "x/y/dir/"), L("dir", "x/dir"));
	git("*.o\n", L("x.o", "a/b/c.o", "d.o/"), L("x.oo", "o"));
	git("doc/*.txt\n", L("doc/a.txt"), L("doc/sub/a.txt", "x/doc/a.txt"));
	git("//x\n", NONE, L("x", "d/x"));
	git("/\n", NONE, L("a", "a/"));
	git("!\n", NONE, L("a", "!"));
}

static void test_git_wildcards(void)
{
	git("?.c\n", L("a.c", "d/b.c"), L("ab.c", ".c"));
	git("a?b\n", L("axb"), L("a/b", "ab"));
	git("a*b\n", L("ab", "axxb"), L("a/b"));
	git("x/*/y\n", L("x/q/y"), L("x/y", "x/q/r/y"));
	git("[abc].txt\n", L("a.txt", "c.txt"), L("d.txt", "ab.txt"));
	git("[a-c]x\n", L("bx"), L("dx", "-x"));
	git("[!a-c]x\n", L("dx", "-x"), L("ax", "bx"));
	git("[^a-c]x\n", L("dx"), L("cx"));
	git("[]]x\n", L("]x"), L("x"));
	git("[!]]x\n", L("ax"), L("]x"));
	git("[a-]x\n", L("ax", "-x"), L("bx"));
	git("[\\]]y\n", L("]y"), L("\\y"));
	git("[[:digit:]]z\n", L("1z"), L("az"));
	git("[[:upper:][:digit:]]w\n", L("Aw", "7w"), L("aw"));
	git("[[:alpha:]-]v\n", L("bv", "-v"), L("1v"));
	git("[[:nope:]]u\n", NONE, L("[[:nope:]]u", "nu"));
	git("[[:]t\n", L("[t", ":t"), L("t"));
	git("unterminated[\n", NONE, L("unterminated[", "unterminated"));
	git("back\\\n", NONE, L("back\\", "back"));
	git("a[!/]b\n", L("axb"), L("a/b"));
	git("/a[!x]b\n", L("acb"), L("a/b", "axb"));
	git("/a?b\n", L("acb"), L("a/b"));
	git("\\*star\n", L("*star"), L("xstar"));
	git("\\?q\n", L("?q"), L("xq"));
	git("lit\\[x]\n", L("lit[x]"), L("litx"));
}

static void test_git_double_star(void)
{
	git("**/logs\n", L("logs", "a/logs", "a/b/logs/"), L("logsx", "xlogs"));
	git("**/logs/debug.log\n", L("logs/debug.log", "a/logs/debug.log"), L("logs/x/debug.log"));
	git("abc/**\n", L("abc/x", "abc/x/y", "abc/d/"), L("abc", "abc/", "xabc/y"));
	git("a/**/b\n", L("a/b", "a/x/b", "a/x/y/b"), L("a/xb", "ab", "x/a/b"));
	git("/**\n", L("x", "x/y", "d/"), NONE);
	git("**\n", L("x", "d/x", "d/"), NONE);
	git("**/\n", L("d/", "x/d/"), L("f"));
	git("a**b\n", L("ab", "axb"), L("a/b"));
	git("x/a**b\n", L("x/axb"), L("x/a/b"));
	git("**foo\n", L("foo", "xfoo", "d/xfoo"), L("foox"));
	git("a/***/b\n", L("a/b", "a/c/b"), NONE);
	git("a/**\\/b\n", L("a/b", "a/c/b"), NONE);
	git("**/*.log\n", L("x.log", "a/b/x.log"), L("x.logs"));
}

static void test_git_negation(void)
{
	git("*.log\n!keep.log\n", L("a.log", "d/b.log"), L("keep.log", "d/keep.log"));
	git("!keep.log\n*.log\n", L("keep.log"), NONE); /* the last match wins */
	/* a file cannot come back when its directory is excluded */
	git("build/\n!build/keep\n", L("build/", "build/keep", "build/x"), NONE);
	git("build\n!build/keep\n", L("build/keep"), NONE);
	/* ... but can when only the contents are */
	git("build/*\n!build/keep\n", L("build/x"), L("build/", "build/keep"));
	git("abc/**\n!abc/keep\n", L("abc/x"), L("abc/keep", "abc/"));
	git("/*\n!/src/\n", L("a", "docs/"), L("src/", "src/x"));
	git("*\n!*/\n!*.c\n", L("a.h", "d/b.h"), L("d/", "a.c", "d/e/f.c"));
}

static void test_git_nested(void)
{
	cleanup_ignore cv_ignore *ig = cv_ignore_new();
	cv_error_t err = NULL;
	struct {
		const char *dir, *text;
	} files[] = {
		{ "", "*.tmp\n/top\nsub/deep\n" },
		{ "sub", "!keep.tmp\n/anchored\nlocal\n*.c\n" },
		{ "sub/inner", "!x.c\n" },
		{ "other", "!*.tmp\n" },
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		ok(cv_ignore_add(ig, files[i].dir, files[i].text, strlen(files[i].text), GIT, &err) == 0,
		   "add %s/.gitignore", files[i].dir);
	check_set(ig, "nested",
		  L("a.tmp", "sub/a.tmp", "sub/anchored", "sub/x/local", "sub/local", "sub/y.c", "sub/inner/y.c", "top",
		    "sub/deep"),
		  L("sub/keep.tmp", "sub/x/keep.tmp", "sub/x/anchored", "anchored", "local", "x.c", "sub/inner/x.c",
		    "other/a.tmp", "other/x/a.tmp", "x/top", "sub/top", "subx/local"));
	/* adding to a directory again appends to its rules (the last wins) */
	ok(cv_ignore_add(ig, "sub", "keep.tmp\n", 9, GIT, &err) == 0, "add sub/.gitignore again");
	ok(cv_ignore_match(ig, "sub/keep.tmp", false), "a later line of the same directory wins");
	cv_error_release(&err);
}

static void test_docker(void)
{
	docker("# comment\n  spaced  \n", L("spaced", "spaced/x"), L("# comment", "  spaced  ", "x/spaced"));
	docker(" # not a comment\n", L("# not a comment"), NONE);
	/* relative to the root only, a match on a directory takes what is below */
	docker("node_modules\n", L("node_modules/", "node_modules/a/b"), L("x/node_modules"));
	docker("/abs\n./dot\ndir/\na//b\nx/../y\n", L("abs", "dot", "dir/", "dir/f", "a/b", "y"),
	       L("x/abs", "x/y", "x"));
	docker("*.md\n!README.md\n", L("a.md", "x.md/"), L("README.md", "d/a.md"));
	docker("*/*.txt\n", L("d/a.txt"), L("a.txt", "d/e/a.txt"));
	docker("**/*.go\n", L("a.go", "d/e/a.go"), L("a.goo"));
	docker("**.log\n", L("a.log", "d/e.log", "xlog.log"), L("log"));
	docker("a**b\n", L("ab", "ax/b"), L("axb"));
	docker("a/**\n", L("a/x", "a/x/y"), L("a", "ab"));
	docker("?.c\n", L("x.c"), L("xy.c", "d/x.c"));
	docker("[^a]b\n[!]c\n", L("xb", "!c"), L("ab", "xc"));
	docker("dir\n!dir/keep\n", L("dir/", "dir/x"), L("dir/keep", "dir/keep/y"));
	docker("!x\nx\n", L("x"), NONE);
	docker("*\n!src\n", L("a", "b/"), L("src", "src/x"));
	docker("\xef\xbb\xbf"
	       "bom\r\n",
	       L("bom"), NONE);
}

static void test_errors(void)
{
	fails("", "ok\n!\n", DOCKER, EINVAL, "`.dockerignore`, line 2: bad pattern `!`");
	fails("", "a[b\n", DOCKER, EINVAL, "`.dockerignore`, line 1: bad pattern `a[b`");
	fails("", "x\nb\\\n", DOCKER, EINVAL, "`.dockerignore`, line 2: bad pattern `b\\`");
	fails("sub", "x\n", DOCKER, EINVAL, "`sub/.dockerignore`: only the root's is read");
	fails("/abs", "x\n", GIT, EINVAL, "ignore rules: `/abs`: not a relative directory");
	char *big = malloc(CV_IGNORE_MAX_LINE + 3);
	memset(big, 'a', CV_IGNORE_MAX_LINE + 1);
	strcpy(big + CV_IGNORE_MAX_LINE + 1, "\n");
	fails("d", big, GIT, EINVAL, "`d/.gitignore`, line 1: longer than 4096 bytes");
	free(big);
	cleanup_ignore cv_ignore *ig = cv_ignore_new();
	cv_error_t err = NULL;
	ok(cv_ignore_add(ig, "", "x", CV_IGNORE_MAX_FILE + 1, GIT, &err) == -EFBIG, "a file over the limit");
	is_str(err ? err->msg : NULL, "`.gitignore`: too large (1048577 bytes, the limit is 1048576)", "message");
	cv_error_release(&err);
}

/* A pattern of stars must not take exponential time (the fuzzer would
 * time out, this would too). */
static void test_no_backtracking(void)
{
	char pat[200] = "", path[4000];
	for (int i = 0; i < 40; i++)
		strcat(pat, "*a");
	strcat(pat, "*b\n");
	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	cleanup_ignore cv_ignore *ig = rules("", pat, GIT);
	ok(!cv_ignore_match(ig, path, false), "40 stars against 4000 bytes: no match, in time");
}

int main(void)
{
	test_git_syntax();
	test_git_nul();
	test_git_anchoring();
	test_git_wildcards();
	test_git_double_star();
	test_git_negation();
	test_git_nested();
	test_docker();
	test_errors();
	test_no_backtracking();
	return tap_done();
}
