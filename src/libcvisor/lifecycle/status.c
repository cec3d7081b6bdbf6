#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "io.h"
#include "cvisor.h"
#include "lifecycle/create.h"
#include "lifecycle/status.h"

int cv_proc_start_time(pid_t pid, bool zombie_ok, uint64_t *out)
{
	char path[64], buf[1024];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = cv_read_buf_at(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	/* comm may hold spaces and parentheses: fields restart after the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	char state = p[0] == ' ' ? p[1] : '\0';
	/* After ')' come field 3 (state) .. field 22 (starttime): skip 19 fields. */
	for (int field = 3; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EINVAL;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1)
		return -EINVAL;
	/* A zombie still has its stat entry but is no longer a running container. */
	if (!zombie_ok && (state == 'Z' || state == 'X'))
		return -ESRCH;
	*out = v;
	return 0;
}

int cv_pidfd_open_verified(pid_t pid, uint64_t start, int *out, cv_error_t *err)
{
	uint64_t now;
	int r;

	if (pid <= 0)
		return -ESRCH;
	/* Open the pidfd first, then check the start time: if the check passes,
	 * the pidfd refers to the very process that started at `start`. */
	cleanup_close int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0) {
		if (errno == ESRCH)
			return -ESRCH;
		return cv_error_errno(err, "pidfd_open %d", (int)pid);
	}
	r = cv_proc_start_time(pid, false, &now);
	if (r == -ESRCH || (r == 0 && now != start))
		return -ESRCH;
	if (r < 0)
		return cv_error(err, -r, "read /proc/%d/stat", (int)pid);
	*out = steal_fd(&fd);
	return 0;
}

/* The civil date of DAYS since 1970-01-01, proleptic Gregorian: counted
 * in 400-year eras from 0000-03-01, so that the leap day ends a year. */
static void civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	days += 719468; /* from 0000-03-01 */
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	unsigned doe = (unsigned)(days - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

char *cv_rfc3339_utc(int64_t secs, long nsecs)
{
	char *out = NULL;
	int64_t days = secs / 86400, rem = secs % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	int64_t y;
	unsigned mo, d;
	civil_from_days(days, &y, &mo, &d);
	if (asprintf(&out, "%04lld-%02u-%02uT%02u:%02u:%02u.%09ldZ", (long long)y, mo, d, (unsigned)(rem / 3600),
		     (unsigned)(rem / 60 % 60), (unsigned)(rem % 60), nsecs) < 0)
		return NULL;
	return out;
}

char *cv_now_rfc3339(void)
{
	struct timespec ts;
	if (cv_clock_read(CLOCK_REALTIME, &ts) < 0)
		return NULL;
	return cv_rfc3339_utc(ts.tv_sec, ts.tv_nsec);
}

int cv_container_status(struct cv_container *c, const char **status, cv_error_t *err)
{
	oci_state *st = c->state;
	uint64_t start;
	int r;

	if (st->pid <= 0) {
		*status = "stopped";
		return 0;
	}
	r = cv_proc_start_time(st->pid, false, &start);
	if (r == -ESRCH || (r == 0 && start != st->pid_start)) {
		*status = "stopped";
		return 0;
	}
	if (r < 0)
		return cv_error(err, -r, "read /proc/%d/stat", st->pid);
	if (st->cgroup_paths.len > 0) {
		struct cv_cgroup *cg = NULL;
		bool frozen = false;
		r = cv_container_cgroup(c, &cg, err);
		if (r < 0)
			return r;
		r = cv_cgroup_frozen(cg, &frozen, err);
		if (r < 0)
			return r;
		if (frozen) {
			*status = "paused";
			return 0;
		}
	}
	*status = st->status && strcmp(st->status, "created") == 0 ? "created" : "running";
	return 0;
}
