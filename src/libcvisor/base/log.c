#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

/* The sink is process-wide and may be swapped by one thread while others
 * log: every call of the sink holds the read side of this lock, a swap the
 * write side, so once cv_log_set_sink returns the previous sink is done
 * (an embedding program may free its data then). The level is also kept
 * atomically for cv_log_enabled, which every debug line asks first. */
static pthread_rwlock_t sink_lock = PTHREAD_RWLOCK_INITIALIZER;
static cv_log_sink log_sink;
static void *log_data;
static atomic_int log_max = -1; /* -1: no sink */

void cv_log_set_sink(cv_log_sink sink, void *data, int max_level)
{
	pthread_rwlock_wrlock(&sink_lock);
	log_sink = sink;
	log_data = data;
	atomic_store(&log_max, sink ? max_level : -1);
	pthread_rwlock_unlock(&sink_lock);
}

void cv_log_save(struct cv_log_saved *saved)
{
	pthread_rwlock_rdlock(&sink_lock);
	saved->sink = log_sink;
	saved->data = log_data;
	saved->max_level = atomic_load(&log_max);
	pthread_rwlock_unlock(&sink_lock);
}

bool cv_log_enabled(int level)
{
	return level <= atomic_load_explicit(&log_max, memory_order_relaxed);
}

void cv_log(int level, const char *fmt, ...)
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
	pthread_rwlock_rdlock(&sink_lock);
	if (log_sink && level <= atomic_load(&log_max))
		log_sink(level, msg, log_data);
	pthread_rwlock_unlock(&sink_lock);
	free(msg);
}
