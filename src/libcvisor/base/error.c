#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static struct cv_error_s oom_error = { ENOMEM, (char *)"out of memory" };

static int set_error(cv_error_t *err, int errnum, bool with_strerror, const char *fmt, va_list ap)
{
	char *base = NULL, *msg = NULL;

	if (vasprintf(&base, fmt, ap) < 0)
		base = NULL;
	if (base && errnum > 0 && with_strerror) {
		if (asprintf(&msg, "%s: %s", base, strerror(errnum)) < 0)
			msg = NULL;
		free(base);
	} else
		msg = base;

	if (err) {
		cv_error_release(err);
		cv_error_t e = calloc(1, sizeof(*e));
		if (!e || !msg) {
			free(e);
			free(msg);
			*err = &oom_error;
		} else {
			e->errnum = errnum;
			e->msg = msg;
			*err = e;
		}
	} else
		free(msg);
	return errnum > 0 ? -errnum : -1;
}

int cv_error(cv_error_t *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = set_error(err, errnum, true, fmt, ap);
	va_end(ap);
	return r;
}

int cv_error_plain(cv_error_t *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = set_error(err, errnum, false, fmt, ap);
	va_end(ap);
	return r;
}

int cv_error_errno(cv_error_t *err, const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;
	va_start(ap, fmt);
	int r = set_error(err, errnum, true, fmt, ap);
	va_end(ap);
	return r;
}

int cv_error_prefix(cv_error_t *err, const char *fmt, ...)
{
	char *ctx = NULL, *msg = NULL;
	va_list ap;

	if (!err || !*err)
		return -1;
	if (*err == &oom_error)
		return -ENOMEM;
	va_start(ap, fmt);
	if (vasprintf(&ctx, fmt, ap) < 0)
		ctx = NULL;
	va_end(ap);
	if (ctx && asprintf(&msg, "%s: %s", ctx, (*err)->msg) >= 0) {
		free((*err)->msg);
		(*err)->msg = msg;
	}
	free(ctx);
	return cv_error_ret(*err);
}

void cv_error_release(cv_error_t *err)
{
	if (!err || !*err)
		return;
	if (*err != &oom_error) {
		free((*err)->msg);
		free(*err);
	}
	*err = NULL;
}

void cv_error_move(cv_error_t *to, cv_error_t *from)
{
	cv_error_release(to);
	*to = *from;
	*from = NULL;
}
