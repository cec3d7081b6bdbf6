/* Library-side diagnostics. The library never writes to the terminal on its
 * own: warnings and debug lines go through a sink the caller installs (the
 * CLI routes them to stderr and --log in the chosen format, a program
 * embedding libcvisor sets it with cvisor_set_log_sink). Levels are ints
 * so that a sink has the public callback's type (cvisor_log_fn). Safe from
 * several threads: see log.c. */
#ifndef CVISOR_LOG_H
#define CVISOR_LOG_H

#include <stdbool.h>

enum cv_log_level {
	CV_LOG_ERROR = 0,
	CV_LOG_WARNING = 1,
	CV_LOG_INFO = 2,
	CV_LOG_DEBUG = 3
};

/* LEVEL is an enum cv_log_level. */
typedef void (*cv_log_sink)(int level, const char *msg, void *data);

/* Lines of a level <= max_level go to sink (NULL: nowhere). */
void cv_log_set_sink(cv_log_sink sink, void *data, int max_level);
bool cv_log_enabled(int level);
/* The sink in place, for code that must put it back (cv_log_set_sink with
 * these three). */
struct cv_log_saved {
	cv_log_sink sink;
	void *data;
	int max_level;
};
void cv_log_save(struct cv_log_saved *saved);
void cv_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define cv_warn(...) cv_log(CV_LOG_WARNING, __VA_ARGS__)
#define cv_debug(...)                                                                                                  \
	do {                                                                                                           \
		if (cv_log_enabled(CV_LOG_DEBUG))                                                                      \
			cv_log(CV_LOG_DEBUG, __VA_ARGS__);                                                             \
	} while (0)

#endif
