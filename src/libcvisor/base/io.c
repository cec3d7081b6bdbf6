#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "io.h"

static ssize_t read_retry(int fd, void *buf, size_t len)
{
	ssize_t n;
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

ssize_t cv_read_buf(int fd, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return -EINVAL;
	for (;;) {
		ssize_t n;
		if (len == size - 1) {
			/* full: one byte more tells a file that fits from one that does not */
			char c;
			n = read_retry(fd, &c, 1);
			if (n < 0)
				return n;
			if (n > 0)
				return -EFBIG;
			break;
		}
		n = read_retry(fd, buf + len, size - 1 - len);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

ssize_t cv_read_buf_at(int dirfd, const char *path, char *buf, size_t size)
{
	cleanup_close int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return cv_read_buf(fd, buf, size);
}

/* "16 MiB", "512 KiB" or "1000 bytes" */
static void format_limit(size_t max, char *buf, size_t size)
{
	if (max >= (1u << 20) && max % (1u << 20) == 0)
		snprintf(buf, size, "%zu MiB", max >> 20);
	else if (max >= 1024 && max % 1024 == 0)
		snprintf(buf, size, "%zu KiB", max >> 10);
	else
		snprintf(buf, size, "%zu bytes", max);
}

static int too_large(const char *what, size_t max, int64_t size, cv_error_t *err)
{
	char limit[32];
	format_limit(max, limit, sizeof(limit));
	if (size >= 0)
		return cv_error_plain(err, EFBIG, "%s: too large (%lld bytes, the limit is %s)", what, (long long)size,
				      limit);
	return cv_error_plain(err, EFBIG, "%s: too large (the limit is %s)", what, limit);
}

/* SIZE: what fstat says for a regular file, -1 when unknown. */
static int read_fd_sized(int fd, const char *what, size_t max, int64_t size, char **out, size_t *out_len,
			 cv_error_t *err)
{
	if (max > SIZE_MAX / 4)
		max = SIZE_MAX / 4;
	if (size >= 0 && (uint64_t)size > max)
		return too_large(what, max, size, err);
	/* A known size is read in one go; the byte beyond it sees a file that
	 * grew meanwhile (procfs and cgroupfs report 0: grown as needed). */
	size_t cap = size > 0 ? (size_t)size + 1 : 4096;
	if (cap > max + 1)
		cap = max + 1;
	cleanup_free char *buf = malloc(cap + 1);
	size_t len = 0;

	if (!buf)
		return cv_error(err, ENOMEM, "read %s", what);
	for (;;) {
		if (len == cap) {
			if (cap > max)
				return too_large(what, max, -1, err);
			size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *nbuf = realloc(buf, ncap + 1);
			if (!nbuf)
				return cv_error(err, ENOMEM, "read %s", what);
			buf = nbuf;
			cap = ncap;
		}
		ssize_t n = read_retry(fd, buf + len, cap - len);
		if (n < 0)
			return cv_error(err, (int)-n, "read %s", what);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = steal_pointer(&buf);
	*out_len = len;
	return 0;
}

int cv_read_fd(int fd, const char *what, size_t max, char **out, size_t *len, cv_error_t *err)
{
	struct stat st;
	int64_t size = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
	return read_fd_sized(fd, what, max, size, out, len, err);
}

int cv_read_file_at(int dirfd, const char *path, size_t max, unsigned flags, char **out, size_t *len, cv_error_t *err)
{
	/* O_NONBLOCK: a FIFO in place of a regular file must not block the open */
	int oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY | ((flags & CV_READ_REGULAR) ? O_NONBLOCK : 0) |
		     ((flags & CV_READ_NOFOLLOW) ? O_NOFOLLOW : 0);
	cleanup_close int fd = openat(dirfd, path, oflags);
	cleanup_free char *what = NULL;
	struct stat st;

	if (fd < 0)
		return cv_error_errno(err, "open `%s`", path);
	if (fstat(fd, &st) < 0)
		return cv_error_errno(err, "stat `%s`", path);
	if ((flags & CV_READ_REGULAR) && !S_ISREG(st.st_mode))
		return cv_error_plain(err, EINVAL, "`%s`: not a regular file", path);
	if (asprintf(&what, "`%s`", path) < 0) {
		what = NULL;
		return cv_error(err, ENOMEM, "read `%s`", path);
	}
	return read_fd_sized(fd, what, max, S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1, out, len, err);
}

int cv_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* cannot happen for len > 0; never loop on it */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int cv_create_temp_at(int dirfd, const char *name, mode_t mode, char tmp[static NAME_MAX + 1], cv_error_t *err)
{
	/* a random name: the directory may be one a sandboxed program writes
	 * to (a --report in its workspace), and a name it can guess it can
	 * plant first; O_EXCL and O_NOFOLLOW step over whatever is there */
	for (int tries = 0;; tries++) {
		uint64_t rnd;
		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
			rnd = ((uint64_t)getpid() << 32) ^ (uint64_t)cv_now_ns() ^ (uint64_t)tries;
		if (snprintf(tmp, NAME_MAX + 1, ".%.200s.%016" PRIx64 ".tmp", name, rnd) >= NAME_MAX + 1)
			return cv_error(err, ENAMETOOLONG, "write `%s`", name);
		int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST || tries >= 16)
			return cv_error_errno(err, "write `%s`: create a temporary file", name);
	}
}

int cv_write_file_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode, cv_error_t *err)
{
	char tmp[NAME_MAX + 1];
	cleanup_close int fd = cv_create_temp_at(dirfd, name, mode, tmp, err);
	int r;

	if (fd < 0)
		return fd;
	if ((r = cv_write_all(fd, data, len)) < 0 || (r = close(steal_fd(&fd)) < 0 ? -errno : 0) < 0) {
		(void)unlinkat(dirfd, tmp, 0); /* best effort: the error that matters is r */
		return cv_error(err, -r, "write `%s`", name);
	}
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		r = errno;
		(void)unlinkat(dirfd, tmp, 0);
		return cv_error(err, r, "write `%s`: rename over it", name);
	}
	return 0;
}
