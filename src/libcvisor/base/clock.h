/* Monotonic time, for deadlines and durations (never the wall clock, which
 * can jump). CLOCK_MONOTONIC cannot fail with a valid timespec. */
#ifndef CVISOR_CLOCK_H
#define CVISOR_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t cv_now_ns(void)
{
	struct timespec ts;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t cv_now_ms(void)
{
	return cv_now_ns() / 1000000u;
}

#endif
