/* Ignore rules: which paths of a directory tree `copy_into` and `cache_save`
 * leave out, following the tree's `.gitignore` files (git's rules) and the
 * `.dockerignore` at its root (Docker's rules). A path is left out when
 * either excludes it.
 *
 * .gitignore, as git 2.x reads it (gitignore(5)):
 *   - A UTF-8 BOM at the start is skipped; lines end at LF, a CR before the
 *     LF is dropped. Blank lines and lines starting with `#` are skipped.
 *   - Trailing spaces are removed unless escaped (`foo\ ` keeps one space);
 *     leading spaces and tabs are part of the pattern.
 *   - `!` at the start negates the pattern; `\!` and `\#` start a literal
 *     `!` or `#`. A backslash makes the next character literal everywhere.
 *   - One trailing `/` makes the pattern match directories only (a symlink
 *     is never a directory here).
 *   - A pattern with no other `/` matches the name of a path at any depth
 *     below the .gitignore's directory; a pattern with a `/` at the start or
 *     in the middle matches the path relative to that directory (the leading
 *     `/` itself is dropped).
 *   - `*` matches any run of characters but `/`, `?` one character but `/`,
 *     `[...]` one character of a class (ranges `a-z`, negation `[!...]` or
 *     `[^...]`, `]` first is literal, `\` escapes, POSIX `[:alpha:]` and the
 *     other ctype names; never `/`). `**` between slashes or at an end of a
 *     pattern with a `/`: `**` then `/` at the start matches in every
 *     directory, `/` then `**` at the end everything inside, `/`, `**`, `/`
 *     in the middle zero or more directories; any other `**` is a `*`.
 *     A pattern with an unterminated class, an unknown `[:name:]` or a
 *     trailing lone backslash never matches (as in git).
 *   - For one path, the .gitignore files of the directories above it are
 *     consulted from the deepest up; in each, the last pattern that matches
 *     decides (a negated one re-includes). When a directory is excluded,
 *     nothing below it can be re-included: cv_ignore_match() checks every
 *     parent directory first, and the walker never enters it.
 *   - Only the tree's own files count: not $GIT_DIR/info/exclude nor
 *     core.excludesFile. `.git` itself is not special (it is copied unless
 *     a pattern excludes it). The .gitignore files follow the rules like
 *     any other file (git does the same: a `.gitignore` line excludes it).
 *
 * .dockerignore, as Docker's builder (moby/patternmatcher) reads it; only
 * the one at the root of the tree is read:
 *   - A BOM at the start is skipped; a line starting with `#` is a comment;
 *     each line is trimmed of white space at both ends; blank lines are
 *     skipped. `!` starts an exception (the rest is trimmed again; a lone
 *     `!` is an error).
 *   - The pattern is cleaned as a path (`//` and `.` components removed,
 *     `..` resolved lexically, trailing `/` dropped) and a leading `/` is
 *     dropped: patterns are relative to the root, never to a subdirectory.
 *   - `*` matches any run of characters but `/`, `?` one character but `/`,
 *     `[...]` a class as above except that only `^` negates (`!` is
 *     literal) and a negated class may match `/` (Docker compiles classes
 *     to a Go regexp). `**` anywhere matches any run of whole directories:
 *     `**` followed by a `/` (eaten) or by more pattern is the regexp
 *     `(.*` `/)?` (zero or more directories), a trailing `**` is `.*`; a pattern that is `**` followed by a literal
 *     without `/` matches every path ending in that literal (`**.log`
 *     matches `a/x.log`), as Docker's suffix shortcut does. `\` escapes.
 *     An unterminated class or a trailing `\` is an error.
 *   - A path is excluded by the last pattern that matches it or any of its
 *     parent directories; a later `!` pattern re-includes it even inside an
 *     excluded directory. Such a directory is entered only when an
 *     exception could match below it, and is visited (before its kept
 *     contents) only when something below it is kept.
 *
 * Bounds: one ignore file at most CV_IGNORE_MAX_FILE bytes, lines (and so
 * patterns) at most CV_IGNORE_MAX_LINE bytes, all rules of one tree at most
 * CV_IGNORE_MAX_TOTAL bytes, the walk at most CV_IGNORE_MAX_DEPTH levels
 * and relative paths at most PATH_MAX bytes: more is an error naming the
 * file or path. */
#ifndef CVISOR_FILES_IGNORE_H
#define CVISOR_FILES_IGNORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "error.h"

#define CV_IGNORE_MAX_FILE (1u << 20)
#define CV_IGNORE_MAX_LINE 4096u
#define CV_IGNORE_MAX_TOTAL (16u << 20)
#define CV_IGNORE_MAX_DEPTH 256

enum cv_ignore_kind {
	CV_IGNORE_GITIGNORE,
	CV_IGNORE_DOCKERIGNORE,
};

typedef struct cv_ignore cv_ignore;

cv_ignore *cv_ignore_new(void);
void cv_ignore_free(cv_ignore *ig);
static inline void cv_ignore_freep(cv_ignore **ig)
{
	cv_ignore_free(*ig);
}
#define cleanup_ignore __attribute__((cleanup(cv_ignore_freep)))

/* Adds the rules of one ignore file: DATA (LEN bytes, need not be
 * NUL-terminated) read from DIR_REL/.gitignore (DIR_REL: the directory
 * relative to the root of the tree, no leading or trailing slash, "" for
 * the root) or from the root's .dockerignore (DIR_REL must be ""). Files
 * may be added in any order; the depth of DIR_REL gives the precedence.
 * Errors (EFBIG, EINVAL for a bad .dockerignore line, ENOMEM) name the file
 * and line; the lines before the bad one stay added, so a caller that
 * fails on the error should free IG. */
int cv_ignore_add(cv_ignore *ig, const char *dir_rel, const char *data, size_t len, enum cv_ignore_kind kind,
		  cv_error_t *err);

/* Whether REL_PATH (relative to the root, no leading slash; IS_DIR: it is a
 * directory, not a symlink to one) is left out by the rules added so far,
 * including through an excluded parent. Safe from several threads at once. */
bool cv_ignore_match(const cv_ignore *ig, const char *rel_path, bool is_dir);

/* Called by cv_ignore_walk() for every entry that is kept: PARENT_FD is its
 * directory (open for the duration of the call), NAME its name there,
 * REL_PATH its path from the root, ST its lstat() (NAME, REL_PATH and ST
 * are valid during the call only). Return 0 to go on,
 * CV_IGNORE_WALK_SKIP for a directory not to enter it, or < 0 with *ERR
 * set to stop the walk with that error. */
#define CV_IGNORE_WALK_SKIP 1
typedef int (*cv_ignore_walk_fn)(void *arg, int parent_fd, const char *name, const char *rel_path,
				 const struct stat *st, cv_error_t *err);

/* Walks the tree at DIRFD (not closed) in name order, a directory before
 * its contents, reading each directory's .gitignore (and the root's
 * .dockerignore) before its entries, and calls CB for each entry the rules
 * keep (not for the root itself). Excluded directories are not entered
 * (but see the .dockerignore exceptions above). Only file descriptors are
 * used: each directory is opened from its parent with O_NOFOLLOW, symlinks
 * are reported, never followed, an ignore file that is not a regular file
 * (a symlink, a FIFO) is not read, and a directory swapped for something
 * else during the walk is an error. Errors name the path. */
int cv_ignore_walk(int dirfd, cv_ignore_walk_fn cb, void *arg, cv_error_t *err);

#endif
