#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static cv_log_sink log_sink;
static void *log_data;
static enum cv_log_level log_max = CV_LOG_WARNING;

void cv_log_set_sink(cv_log_sink sink, void *data, enum cv_log_level max_level)
{
	log_sink = sink;
	log_data = data;
	log_max = max_level;
}

bool cv_log_enabled(enum cv_log_level level)
{
	return log_sink && level <= log_max;
}

void cv_log(enum cv_log_level level, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	if (!cv_log_enabled(level))
		return;
	va_start(ap, fmt);
	int r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	log_sink(level, msg, log_data);
	free(msg);
}
