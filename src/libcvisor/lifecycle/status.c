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

char *cv_now_rfc3339(void)
{
	struct timespec ts;
	struct tm tm;
	char buf[64], *out = NULL;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm))
		return NULL;
	if (!strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm))
		return NULL;
	if (asprintf(&out, "%s.%09ldZ", buf, ts.tv_nsec) < 0)
		return NULL;
	return out;
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
