/* Whether a recorded process is still the same process: pid plus the
 * /proc/PID/stat start time, so a recycled pid is never mistaken for a
 * container's (cv_container_status in create.h builds on it). */
#ifndef CVISOR_STATUS_H
#define CVISOR_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* Field 22 of /proc/PID/stat; -ESRCH when the process is gone, or a
 * zombie unless ZOMBIE_OK (our own child, which may exit before we look). */
int cv_proc_start_time(pid_t pid, bool zombie_ok, uint64_t *out);
/* A pidfd of pid if it is still the process that started at `start`;
 * -ESRCH (no error set) when it exited or the pid was recycled. */
int cv_pidfd_open_verified(pid_t pid, uint64_t start, int *out, cv_error_t *err);
/* RFC 3339 UTC timestamp with nanoseconds (malloc'd): now, or of SECS and
 * NSECS since the epoch. Computed here, not with gmtime_r or strftime: the
 * C library loads the local time zone (/etc/localtime) for either. */
char *cv_now_rfc3339(void);
char *cv_rfc3339_utc(int64_t secs, long nsecs);

#endif
