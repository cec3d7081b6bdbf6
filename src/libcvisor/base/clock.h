/* Monotonic time, for deadlines and durations (never the wall clock, which
 * can jump). CLOCK_MONOTONIC cannot fail with a valid timespec.
 *
 * A system call, not the vDSO: a short-lived process reads the clock a few
 * times, and the vDSO's first read faults in its data pages, which took
 * 35-45 us in a KVM guest, where the system call takes 1-4 us. */
#ifndef CVISOR_CLOCK_H
#define CVISOR_CLOCK_H

#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline int cv_clock_read(clockid_t clock, struct timespec *ts)
{
	return (int)syscall(SYS_clock_gettime, clock, ts);
}

static inline uint64_t cv_now_ns(void)
{
	struct timespec ts;
	(void)cv_clock_read(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t cv_now_ms(void)
{
	return cv_now_ns() / 1000000u;
}

#endif
