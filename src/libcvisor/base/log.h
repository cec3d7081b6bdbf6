/* Library-side diagnostics. The library never writes to the terminal on its
 * own: warnings and debug lines go through a sink the caller installs (the
 * CLI routes them to stderr and --log in the chosen format). */
#ifndef CVISOR_LOG_H
#define CVISOR_LOG_H

#include <stdbool.h>

enum cv_log_level { CV_LOG_ERROR = 0, CV_LOG_WARNING = 1, CV_LOG_INFO = 2, CV_LOG_DEBUG = 3 };

typedef void (*cv_log_sink)(enum cv_log_level level, const char *msg, void *data);

void cv_log_set_sink(cv_log_sink sink, void *data, enum cv_log_level max_level);
bool cv_log_enabled(enum cv_log_level level);
void cv_log(enum cv_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define cv_warn(...) cv_log(CV_LOG_WARNING, __VA_ARGS__)
#define cv_debug(...)                                   \
	do {                                            \
		if (cv_log_enabled(CV_LOG_DEBUG))       \
			cv_log(CV_LOG_DEBUG, __VA_ARGS__); \
	} while (0)

#endif
