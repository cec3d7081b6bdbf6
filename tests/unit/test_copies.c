/* The lists kept by hand in more than one place match their one source:
 *  - the default deny-read list and environment allowlist of `cvisor do`
 *    (CV_SANDBOX_DEFAULT_DENY_READ, CV_SANDBOX_DEFAULT_ENV in
 *    sandbox/sandbox.h) against `cvisor do --help` (src/cmd/do.c) and
 *    man/cvisor-do.1;
 *  - the global flags that take a value, as the exe-guard skips them
 *    before the C library runs (CV_GUARD_VALUE_FLAGS, exe-guard.h),
 *    against the option table of src/cvisor.c;
 *  - the runtime-spec version in the public cvisor.h (CVISOR_OCI_VERSION,
 *    for the command line, which sees no oci/ header) against oci/spec.h's.
 * Each comparison names what one side has and the other lacks. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "io.h"
#include "cvisor.h"
#include "lifecycle/exe-guard.h"
#include "oci/spec.h"
#include "sandbox/sandbox.h"
#include "tap.h"

#define MAX_WORDS 256

struct words {
	size_t n;
	char *v[MAX_WORDS];
};

static void words_clear(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	w->n = 0;
}

static bool words_has(const struct words *w, const char *s)
{
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->v[i], s) == 0)
			return true;
	return false;
}

/* Adds the whitespace-separated words of [p, end). */
static void words_split(struct words *w, const char *p, const char *end)
{
	while (p < end) {
		while (p < end && strchr(" \t\n", *p))
			p++;
		const char *q = p;
		while (q < end && !strchr(" \t\n", *q))
			q++;
		if (q > p && w->n < MAX_WORDS)
			w->v[w->n++] = strndup(p, (size_t)(q - p));
		p = q;
	}
}

/* One test point: A (in the file named AN) and B (in BN) hold the same words. */
static void same(const char *const *a, size_t na, const char *an, const struct words *b, const char *bn,
		 const char *what)
{
	char diff[2048] = "";
	size_t len = 0;
#define ADD(...) (len += (size_t)snprintf(diff + len, len < sizeof(diff) ? sizeof(diff) - len : 0, __VA_ARGS__))
	for (size_t i = 0; i < na; i++)
		if (!words_has(b, a[i]))
			ADD("; %s in %s, not in %s", a[i], an, bn);
	for (size_t i = 0; i < b->n; i++) {
		bool found = false;
		for (size_t j = 0; j < na && !found; j++)
			found = strcmp(b->v[i], a[j]) == 0;
		if (!found)
			ADD("; %s in %s, not in %s", b->v[i], bn, an);
	}
#undef ADD
	ok(b->n > 0 && diff[0] == '\0', "%s%s", what, b->n ? diff : ": the list was not found");
}

static char *slurp(const char *rel)
{
	char path[4096];
	cv_error_t err = NULL;
	char *buf = NULL;
	size_t len;
	snprintf(path, sizeof(path), "%s/%s", SRCDIR, rel);
	if (cv_read_file_at(AT_FDCWD, path, 1 << 20, CV_READ_REGULAR, &buf, &len, &err) < 0) {
		tap_diag("%s", err->msg);
		cv_error_release(&err);
	}
	return buf;
}

/* The text of the C string literals from the first one after ANCHOR to the
 * `;` that ends the declaration, escapes undone: `cvisor do --help`. */
static char *c_string_after(const char *src, const char *anchor)
{
	const char *p = src ? strstr(src, anchor) : NULL;
	if (!p)
		return NULL;
	char *out = malloc(strlen(p) + 1);
	size_t n = 0;
	for (p += strlen(anchor); *p && *p != ';'; p++) {
		if (*p != '"')
			continue;
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1]) {
				p++;
				out[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
			} else
				out[n++] = *p;
		}
	}
	out[n] = '\0';
	return out;
}

/* The words between FROM and the next UNTIL in TEXT. */
static void words_between(struct words *w, const char *text, const char *from, const char *until)
{
	const char *p = text ? strstr(text, from) : NULL;
	const char *end = p ? strstr(p + strlen(from), until) : NULL;
	if (end)
		words_split(w, p + strlen(from), end);
}

/* One test point: the words between FROM and UNTIL in TEXT (the copy in
 * the file COPY) are those of LIST (sandbox.h). */
static void check_copy(const char *text, const char *from, const char *until, const char *copy, const char *const *list,
		       size_t n, const char *what)
{
	struct words w = { 0 };
	words_between(&w, text, from, until);
	same(list, n, "sandbox.h", &w, copy, what);
	words_clear(&w);
}

static void test_sandbox_lists(void)
{
	static const char *const deny[] = { CV_SANDBOX_DEFAULT_DENY_READ };
	static const char *const env[] = { CV_SANDBOX_DEFAULT_ENV };
	const size_t ndeny = sizeof(deny) / sizeof(deny[0]), nenv = sizeof(env) / sizeof(env[0]);
	cleanup_free char *do_c = slurp("src/cmd/do.c"), *man = slurp("man/cvisor-do.1");
	cleanup_free char *help = c_string_after(do_c, "help[] =");

	/* "... environment variables (PATH HOME ...). Credential stores are
	 * unreadable: ~/.ssh ... /root.\n" */
	check_copy(help, "environment variables (", ")", "do.c", env, nenv,
		   "cvisor do --help: the environment allowlist is CV_SANDBOX_DEFAULT_ENV");
	check_copy(help, "unreadable: ", ".\n", "do.c", deny, ndeny,
		   "cvisor do --help: the credential list is CV_SANDBOX_DEFAULT_DENY_READ");
	/* ".SS Unreadable by default\n~/.ssh ...\n(the list ..." and
	 * ".SS Environment passed by default\nPATH ... TZ.\n" */
	check_copy(man, ".SS Unreadable by default\n", "\n(", "cvisor-do.1", deny, ndeny,
		   "cvisor-do(1): the credential list is CV_SANDBOX_DEFAULT_DENY_READ");
	check_copy(man, ".SS Environment passed by default\n", ".\n", "cvisor-do.1", env, nenv,
		   "cvisor-do(1): the environment allowlist is CV_SANDBOX_DEFAULT_ENV");
}

static void test_guard_flags(void)
{
#define NAME(name) name,
	static const char *const guard[] = { CV_GUARD_VALUE_FLAGS(NAME) };
#undef NAME
	cleanup_free char *src = slurp("src/cvisor.c");
	const char *p = src ? strstr(src, "global_opts[] = {") : NULL;
	const char *end = p ? strstr(p, "};") : NULL;
	struct words with_value = { 0 }, without = { 0 };

	/* { "root", required_argument, NULL, OPT_ROOT }, */
	for (const char *q = p; q && q < end && (q = strstr(q, "{ \"")) && q < end; q++) {
		const char *name = q + 3, *close = strchr(name, '"');
		if (!close)
			break;
		struct words *w = strncmp(close, "\", required_argument", 20) == 0 ? &with_value : &without;
		words_split(w, name, close);
	}
	ok(with_value.n > 0 && without.n > 0, "src/cvisor.c: global_opts read (%zu with a value, %zu without)",
	   with_value.n, without.n);
	same(guard, sizeof(guard) / sizeof(guard[0]), "exe-guard.h", &with_value, "src/cvisor.c",
	     "exe-guard: CV_GUARD_VALUE_FLAGS are the global flags of src/cvisor.c that take a value");
	for (size_t i = 0; i < with_value.n; i++) {
		char one[64], two[64];
		snprintf(one, sizeof(one), "-%s", with_value.v[i]);
		snprintf(two, sizeof(two), "--%s", with_value.v[i]);
		ok(cv_guard_flag_takes_value(one) && cv_guard_flag_takes_value(two), "the guard skips the value of %s",
		   two);
	}
	for (size_t i = 0; i < without.n; i++) {
		char two[64];
		snprintf(two, sizeof(two), "--%s", without.v[i]);
		ok(!cv_guard_flag_takes_value(two), "the guard takes no value after %s", two);
	}
	/* what the lists are for: the verb found past the flags */
	char *argv[] = { "cvisor", "--root", "create", "--log", "x", "run", NULL };
	ok(cv_guard_verb(6, argv) == CV_GUARD_VERB_CONTAINER, "`cvisor --root create --log x run`: the verb is run");
	char *argv2[] = { "cvisor", "--debug", "state", "x", NULL };
	ok(cv_guard_verb(4, argv2) == CV_GUARD_VERB_OTHER, "`cvisor --debug state x`: the verb is state");
	char *argv3[] = { "cvisor", "--log-format", "json", "do", "--", "true", NULL };
	ok(cv_guard_verb(6, argv3) == CV_GUARD_VERB_SANDBOX, "`cvisor --log-format json do -- true`: the verb is do");
	/* a sandbox skips the re-execution only for an image its program
	 * cannot write */
	ok(cv_guard_sandbox_image_safe(0, 0100755, false),
	   "a root-owned 0755 image needs no re-execution in a sandbox");
	ok(!cv_guard_sandbox_image_safe(1000, 0100755, false), "an image owned by uid 1000 does");
	ok(!cv_guard_sandbox_image_safe(0, 0100775, false), "a group-writable image does");
	ok(!cv_guard_sandbox_image_safe(0, 0100757, false), "a world-writable image does");
	ok(!cv_guard_sandbox_image_safe(0, 0100755, true), "an image with an access ACL does");
	words_clear(&with_value);
	words_clear(&without);
}

int main(void)
{
	test_sandbox_lists();
	test_guard_flags();
	is_str(CVISOR_OCI_VERSION, OCI_VERSION, "cvisor.h: CVISOR_OCI_VERSION is oci/spec.h's OCI_VERSION");
	return tap_done();
}
