/* CVE-2019-5736: the runtime binary must never be writable through a
 * process that a container can reach. See exe-guard.c. */
#ifndef CVISOR_EXE_GUARD_H
#define CVISOR_EXE_GUARD_H

#include <fcntl.h>
#include <stdbool.h>

#include "error.h"

/* Finding the verb of `cvisor [GLOBAL FLAGS] VERB ...` (global flags taking
 * a value are skipped with it) and judging the image: freestanding (no C
 * library, no data that needs relocating), since the early entry point runs
 * them before the C library starts (exe-guard-early.c). */
static inline bool cv_guard_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* The global flags that take a value: a copy of src/cvisor.c's option
 * table (tests/unit/test_copies checks the two agree). X(name) each. */
#define CV_GUARD_VALUE_FLAGS(X) X("root") X("log") X("log-format") X("rootless") X("criu")

static inline bool cv_guard_flag_takes_value(const char *p)
{
	/* --flag or -flag, as the CLI accepts both */
	const char *f = p[1] == '-' ? p + 2 : p + 1;
#define CV_GUARD_IS(name) cv_guard_streq(f, name) ||
	return CV_GUARD_VALUE_FLAGS(CV_GUARD_IS) false;
#undef CV_GUARD_IS
}

/* An image no handle can write: a memfd sealed against writes (and against
 * unsealing), or a file on a read-only mount (statfs flags ST_RDONLY = 1).
 * SEALS is F_GET_SEALS's result, < 0 for a file that is no memfd. */
static inline bool cv_guard_image_safe(long seals, bool statfs_ok, unsigned long statfs_flags)
{
	return (seals >= 0 && (seals & F_SEAL_WRITE) && (seals & F_SEAL_SEAL)) || (statfs_ok && (statfs_flags & 1));
}

/* What the verb does, as the guard sees it. */
enum cv_guard_verb {
	CV_GUARD_VERB_OTHER,     /* never enters a container */
	CV_GUARD_VERB_CONTAINER, /* create, run, exec: the process may be host root */
	CV_GUARD_VERB_SANDBOX,   /* do, sandbox-keeper: the program never is (below) */
};

static inline enum cv_guard_verb cv_guard_verb(int argc, char *const *argv)
{
	for (int i = 1; i < argc; i++) {
		const char *p = argv[i];
		if (p[0] == '-') {
			if (cv_guard_flag_takes_value(p))
				i++;
			continue;
		}
		if (cv_guard_streq(p, "create") || cv_guard_streq(p, "run") || cv_guard_streq(p, "exec"))
			return CV_GUARD_VERB_CONTAINER;
		if (cv_guard_streq(p, "do") || cv_guard_streq(p, "sandbox-keeper"))
			return CV_GUARD_VERB_SANDBOX;
		return CV_GUARD_VERB_OTHER;
	}
	return CV_GUARD_VERB_OTHER;
}

/* A sandbox's program always runs in a user namespace of its own, under a
 * host identity that is never uid 0 (a root caller's sandboxes map to an
 * unprivileged id) and without a capability in the caller's namespace: it
 * can write a file only through its mode bits. An image owned by root, with
 * no write bit for group or others and no access ACL (HAS_ACL), is then as
 * safe from it as a read-only one, and the re-execution (an execve, and a
 * detached mount to dissolve, per run) buys nothing. A container may run as
 * host root: never for those. */
static inline bool cv_guard_sandbox_image_safe(unsigned owner, unsigned mode, bool has_acl)
{
	return owner == 0 && (mode & 022) == 0 && !has_acl;
}

/* The re-execution from a protected image, for the cvisor binary's
 * constructor (exe-guard-init.c), when ARGV runs a verb that enters a
 * container: returns only when the image is already safe or the step
 * failed (cv_exe_guard_check reports it), at once for other verbs. */
void cv_exe_guard_protect(int argc, char **argv);
/* The same verdict, already reached at the entry point (exe-guard-early.c):
 * the image this process runs is safe. */
void cv_exe_guard_protected(void);
/* Set (to 1) by the entry point of the static binary when it found the image
 * safe: defined in exe-guard-init.c, hidden so that the entry point reaches
 * it relative to the instruction pointer, before the C library relocates. */
extern int cv_exe_guard_safe_at_entry __attribute__((visibility("hidden")));
/* Whether this process is the cvisor binary running such a verb, its image
 * protected or the attempt recorded; false in a program embedding the
 * library, whose container-entering calls go through the helper. */
bool cv_exe_guard_armed(void);

/* 0 when the running image cannot be written through /proc/PID/exe (a
 * sealed memfd copy, or a file on a read-only mount); otherwise an error
 * saying why the guard could not be set up. Called by create, run and exec
 * before they clone anything into a container. */
int cv_exe_guard_check(cv_error_t *err);

#endif
