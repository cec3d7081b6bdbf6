/* Whole reads and writes: the loops that read an fd to its end or write a
 * whole buffer, written once (a single message on a socket or pipe is one
 * read; the D-Bus client's non-blocking sends wait on its own deadline).
 * EINTR is retried and short transfers continue; reads stop at EOF and
 * never past a limit the caller names, so untrusted input (a policy, a
 * config.json, a cgroup file a container can grow) cannot exhaust memory. */
#ifndef CVISOR_IO_H
#define CVISOR_IO_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* Reads FD to its end into BUF, NUL-terminated: at most SIZE - 1 bytes.
 * Returns the length, or -errno: -EFBIG when there is more than fits. For
 * the small files of procfs and cgroupfs. */
ssize_t cv_read_buf(int fd, char *buf, size_t size);
/* The same for the file at DIRFD/PATH (AT_FDCWD: relative to the cwd),
 * opened O_RDONLY | O_CLOEXEC | O_NOCTTY. */
ssize_t cv_read_buf_at(int dirfd, const char *path, char *buf, size_t size);

/* Reads FD to its end into a malloc'd buffer, NUL-terminated (the NUL is
 * not counted in *LEN). More than MAX bytes is an error (EFBIG). Errors
 * name WHAT: "read WHAT: <strerror>", "WHAT: too large (the limit is
 * 16 MiB)". */
int cv_read_fd(int fd, const char *what, size_t max, char **out, size_t *len, cv_error_t *err);

enum {
	CV_READ_REGULAR = 1 << 0,  /* refuse anything but a regular file */
	CV_READ_NOFOLLOW = 1 << 1, /* refuse a symlink as the last component */
};
/* Reads the file at DIRFD/PATH whole, as cv_read_fd; errors name the path
 * ("open `PATH`: ...", "`PATH`: not a regular file", "`PATH`: too large
 * (N bytes, the limit is 16 MiB)"). FLAGS: CV_READ_*. */
int cv_read_file_at(int dirfd, const char *path, size_t max, unsigned flags, char **out, size_t *len, cv_error_t *err);

/* Writes all LEN bytes of BUF. Returns 0 or -errno. */
int cv_write_all(int fd, const void *buf, size_t len);

/* Creates a new, empty file of MODE beside DIRFD/NAME under a random
 * name (O_EXCL, O_NOFOLLOW: safe in a directory someone else writes to),
 * opened O_WRONLY | O_CLOEXEC; stores the name in TMP. For writers that
 * stream a file and rename it over NAME when it is whole. Returns the fd
 * or -errno ("write `NAME`: create a temporary file: ..."). */
int cv_create_temp_at(int dirfd, const char *name, mode_t mode, char tmp[static NAME_MAX + 1], cv_error_t *err);

/* Replaces DIRFD/NAME with DATA atomically: a new file of MODE beside it
 * (O_EXCL, O_NOFOLLOW, a random name: safe in a directory a sandboxed
 * program writes to), written whole, then
 * renamed over NAME; a reader sees the old content or the new, never a
 * part. Nothing is left behind on failure. Errors: "write `NAME`: ...". */
int cv_write_file_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode, cv_error_t *err);

#endif
