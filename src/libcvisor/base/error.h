/* Error objects: every fallible library function returns an int (< 0 on
 * failure) and takes `cv_error_t *err` last. The error carries the errno
 * (0 when none applies) and a message with context; callers may add context
 * on the way up with cv_error_prefix(). Only the CLI's main prints it. */
#ifndef CVISOR_ERROR_H
#define CVISOR_ERROR_H

#include <stdarg.h>

typedef struct cv_error_s {
	int errnum; /* errno value, or 0 */
	char *msg;  /* full message, strerror already appended */
} * cv_error_t;

/* Sets *err to "fmt: strerror(errnum)" (or just fmt when errnum == 0) and
 * returns -errnum, or -1 when errnum == 0. Never fails: on OOM the message
 * degrades to a static string. */
int cv_error(cv_error_t *err, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Like cv_error() but the message stays exactly as formatted (no strerror
 * appended) while the errno is still recorded: for messages engines match
 * verbatim ("container not running", `container "x" does not exist`). */
int cv_error_plain(cv_error_t *err, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Same as cv_error(err, errno, ...): for use right after a failed syscall. */
int cv_error_errno(cv_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepends "ctx: " to an existing error's message; returns the same value
 * cv_error() would return for it. */
int cv_error_prefix(cv_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cv_error_release(cv_error_t *err);
/* Moves *from into *to (releasing *to first). */
void cv_error_move(cv_error_t *to, cv_error_t *from);
static inline int cv_error_ret(cv_error_t err)
{
	return err && err->errnum > 0 ? -err->errnum : -1;
}

#define cleanup_error __attribute__((cleanup(cv_error_release)))

#endif
