/* The cache of the sandbox API: archives (archive.h) stored under a key,
 * in a backend named by a string:
 *   "" or "disk"   a per-user directory: $XDG_CACHE_HOME/cvisor, else
 *                  ~/.cache/cvisor; /var/cache/cvisor for root
 *   "disk:/path"   that directory (absolute; created when missing)
 *   "s3://bucket/prefix?region=R&endpoint=URL"
 *                  an S3 bucket through libcurl, signed with AWS SigV4
 *                  (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, and
 *                  AWS_SESSION_TOKEN when set); region defaults to
 *                  $AWS_REGION, then us-east-1; endpoint (path-style
 *                  requests) to https://s3.R.amazonaws.com
 * An entry is KEY plus the format's suffix (".tar.gz", ".tar", ".tar.zst"),
 * so one key holds one archive per format. Entries appear whole or not at
 * all: the disk backend writes a temporary file and renames it; S3 PUTs
 * are atomic. */
#ifndef CVISOR_FILES_CACHE_H
#define CVISOR_FILES_CACHE_H

#include "error.h"

#define CV_CACHE_KEY_MAX 512

/* A key is 1 to CV_CACHE_KEY_MAX bytes of letters, digits, '.', '_', '-'
 * and '/', in components separated by single '/'s, none empty or starting
 * with '.' (so no "..", no leading or trailing '/'). EINVAL naming the key
 * otherwise. */
int cv_cache_key_validate(const char *key, cv_error_t *err);

/* Stores the archive read from ARCHIVE_FD (to its end) under KEY, in
 * FORMAT (a cv_archive_format_parse name: NULL or "" is gzip), replacing
 * what was there. The bytes are stored as they come: the caller made them
 * with cv_archive_write in that format. */
int cv_cache_put(const char *backend, const char *key, const char *format, int archive_fd, cv_error_t *err);

/* Opens the archive stored under KEY in FORMAT: *FD_OUT reads it from its
 * start (O_CLOEXEC; for S3 an unnamed temporary file holding the
 * download). -ENOENT when there is no such entry. */
int cv_cache_get(const char *backend, const char *key, const char *format, int *fd_out, cv_error_t *err);

#endif
