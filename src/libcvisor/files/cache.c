#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "log.h"
#include "files/archive.h"
#include "files/cache.h"

#ifdef HAVE_LIBCURL
#include <curl/curl.h>
#include <pthread.h>
#endif

#define COPY_BUF (128 * 1024)

struct backend {
	bool s3;
	char *dir;                                 /* disk */
	char *bucket, *prefix, *region, *endpoint; /* s3; prefix "" or ending in '/' */
};

static void backend_release(struct backend *b)
{
	free(b->dir);
	free(b->bucket);
	free(b->prefix);
	free(b->region);
	free(b->endpoint);
}
#define cleanup_backend __attribute__((cleanup(backend_release)))

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	       c == '-';
}

/* Key rules for KEY; WHAT names it in messages ("cache key"). */
static int check_key(const char *key, const char *what, cv_error_t *err)
{
	if (!key || !*key)
		return cv_error(err, EINVAL, "%s: empty", what);
	size_t len = strlen(key);
	if (len > CV_CACHE_KEY_MAX)
		return cv_error(err, EINVAL, "%s `%.64s...`: longer than %d bytes", what, key, CV_CACHE_KEY_MAX);
	for (const char *p = key; *p; p++) {
		bool start = p == key || p[-1] == '/';
		if (*p == '/' && (start || !p[1]))
			return cv_error(err, EINVAL,
					"%s `%s`: empty path component (a leading, trailing or double `/`)", what, key);
		if (*p == '.' && start)
			return cv_error(err, EINVAL, "%s `%s`: a component starts with `.` (no `.` or `..`)", what,
					key);
		if (*p != '/' && !key_char(*p))
			return cv_error(
				err, EINVAL,
				"%s: byte 0x%02x at offset %zu not allowed (letters, digits, `.`, `_`, `-`, `/`)", what,
				(unsigned char)*p, (size_t)(p - key));
	}
	return 0;
}

int cv_cache_key_validate(const char *key, cv_error_t *err)
{
	return check_key(key, "cache key", err);
}

/* ---- parsing the backend string ---- */

static int default_dir(char **out, cv_error_t *err)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (geteuid() == 0)
		n = asprintf(out, "/var/cache/cvisor");
	else if (xdg && xdg[0] == '/') /* the spec: a relative one is ignored */
		n = asprintf(out, "%s/cvisor", xdg);
	else if (home && home[0] == '/')
		n = asprintf(out, "%s/.cache/cvisor", home);
	else
		return cv_error(err, EINVAL,
				"cache backend `disk`: neither XDG_CACHE_HOME nor HOME is an absolute path");
	if (n < 0)
		return cv_error(err, ENOMEM, "cache backend `disk`");
	return 0;
}

static int parse_s3(const char *spec, struct backend *b, cv_error_t *err)
{
	const char *p = spec + strlen("s3://");
	size_t blen = strcspn(p, "/?");
	if (!blen)
		return cv_error(err, EINVAL, "cache backend `%s`: no bucket", spec);
	for (size_t i = 0; i < blen; i++)
		if (!key_char(p[i]))
			return cv_error(err, EINVAL, "cache backend `%s`: bad character in the bucket name", spec);
	if (!(b->bucket = strndup(p, blen)))
		return cv_error(err, ENOMEM, "cache backend `%s`", spec);
	p += blen;

	size_t plen = *p == '/' ? strcspn(p + 1, "?") : 0;
	cleanup_free char *prefix = strndup(p + (*p == '/'), plen);
	if (!prefix)
		return cv_error(err, ENOMEM, "cache backend `%s`", spec);
	p += plen + (*p == '/');
	if (plen && prefix[plen - 1] == '/')
		prefix[plen - 1] = '\0';
	if (*prefix && check_key(prefix, "s3 prefix", err) < 0)
		return cv_error_prefix(err, "cache backend `%s`", spec);
	if (asprintf(&b->prefix, "%s%s", prefix, *prefix ? "/" : "") < 0)
		return cv_error(err, ENOMEM, "cache backend `%s`", spec);

	while (*p == '?' || *p == '&') {
		p++;
		size_t n = strcspn(p, "&");
		const char *eq = memchr(p, '=', n);
		char **dst = NULL;
		if (eq && eq - p == 6 && strncmp(p, "region", 6) == 0)
			dst = &b->region;
		else if (eq && eq - p == 8 && strncmp(p, "endpoint", 8) == 0)
			dst = &b->endpoint;
		if (!dst)
			return cv_error(err, EINVAL, "cache backend `%s`: unknown parameter `%.*s` (region, endpoint)",
					spec, (int)(eq ? eq - p : (int)n), p);
		free(*dst);
		if (!(*dst = strndup(eq + 1, n - (eq + 1 - p))))
			return cv_error(err, ENOMEM, "cache backend `%s`", spec);
		p += n;
	}
	if (!b->region || !*b->region) {
		const char *env = getenv("AWS_REGION");
		free(b->region);
		if (!(b->region = strdup(env && *env ? env : "us-east-1")))
			return cv_error(err, ENOMEM, "cache backend `%s`", spec);
	}
	for (const char *c = b->region; *c; c++)
		if (!key_char(*c))
			return cv_error(err, EINVAL, "cache backend `%s`: bad region `%s`", spec, b->region);
	if (!b->endpoint || !*b->endpoint) {
		free(b->endpoint);
		if (asprintf(&b->endpoint, "https://s3.%s.amazonaws.com", b->region) < 0)
			return cv_error(err, ENOMEM, "cache backend `%s`", spec);
	}
	if (strncmp(b->endpoint, "http://", 7) != 0 && strncmp(b->endpoint, "https://", 8) != 0)
		return cv_error(err, EINVAL, "cache backend `%s`: endpoint `%s` is not an http:// or https:// URL",
				spec, b->endpoint);
	for (size_t n = strlen(b->endpoint); n && b->endpoint[n - 1] == '/'; n--)
		b->endpoint[n - 1] = '\0';
	b->s3 = true;
	return 0;
}

static int parse_backend(const char *spec, struct backend *b, cv_error_t *err)
{
	if (!spec || !*spec || strcmp(spec, "disk") == 0)
		return default_dir(&b->dir, err);
	if (strncmp(spec, "disk:", 5) == 0) {
		if (spec[5] != '/')
			return cv_error(err, EINVAL, "cache backend `%s`: the directory must be an absolute path",
					spec);
		if (!(b->dir = strdup(spec + 5)))
			return cv_error(err, ENOMEM, "cache backend `%s`", spec);
		return 0;
	}
	if (strncmp(spec, "s3://", 5) == 0)
		return parse_s3(spec, b, err);
	return cv_error(err, EINVAL, "unknown cache backend `%s` (\"\", disk, disk:/path, s3://bucket/prefix)", spec);
}

/* KEY plus the format's suffix, key and format checked. */
static int entry_name(const char *key, const char *format, char name[static CV_CACHE_KEY_MAX + 16], cv_error_t *err)
{
	enum cv_archive_format f;
	int r = cv_archive_format_parse(format, &f, err);
	if (r < 0 || (r = cv_cache_key_validate(key, err)) < 0)
		return r;
	snprintf(name, CV_CACHE_KEY_MAX + 16, "%s%s", key, cv_archive_format_suffix(f));
	return 0;
}

/* Copies IN from its offset to its end into OUT. */
static int copy_fd(int in, int out, const char *what, cv_error_t *err)
{
	cleanup_free char *buf = malloc(COPY_BUF);
	if (!buf)
		return cv_error(err, ENOMEM, "%s", what);
	for (;;) {
		ssize_t n = read(in, buf, COPY_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cv_error_errno(err, "%s: read the archive", what);
		if (n == 0)
			return 0;
		int r = cv_write_all(out, buf, n);
		if (r < 0)
			return cv_error(err, -r, "%s: write", what);
	}
}

/* ---- disk ---- */

/* The cache directory, created (0700: a user's cache is theirs) when
 * CREATE. Its path is the caller's configuration: symlinks in it are
 * followed; below it, never. */
static int open_dir(const char *dir, bool create, cv_error_t *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT || !create)
		return fd >= 0 ? fd : cv_error_errno(err, "cache directory `%s`", dir);
	cleanup_free char *p = strdup(dir);
	if (!p)
		return cv_error(err, ENOMEM, "cache directory `%s`", dir);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			return cv_error_errno(err, "create cache directory `%s`", p);
		if (!(*s = c))
			break;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd >= 0 ? fd : cv_error_errno(err, "cache directory `%s`", dir);
}

/* The directory holding NAME's last component below the cache directory. */
static int open_entry_dir(const struct backend *b, char *name, bool create, const char **last, cv_error_t *err)
{
	cleanup_close int root = open_dir(b->dir, create, err);
	if (root < 0)
		return root;
	int r = cv_open_parent_beneath(root, name, create, 0700, last);
	if (r < 0)
		return cv_error(err, -r == ELOOP ? EPERM : -r, "cache entry `%s` in `%s`%s", name, b->dir,
				-r == ELOOP ? ": a symlink on its path" : "");
	return r;
}

static int disk_put(const struct backend *b, char *name, int in, cv_error_t *err)
{
	const char *last;
	cleanup_close int dfd = open_entry_dir(b, name, true, &last, err);
	if (dfd < 0)
		return dfd;
	char tmp[NAME_MAX + 1];
	cleanup_close int fd = cv_create_temp_at(dfd, last, 0644, tmp, err);
	if (fd < 0)
		return cv_error_prefix(err, "cache directory `%s`", b->dir);
	int r = copy_fd(in, fd, name, err);
	/* durable before it is visible: a crash must not leave a torn entry */
	if (r >= 0 && (fsync(fd) < 0 || close(steal_fd(&fd)) < 0))
		r = cv_error_errno(err, "cache entry `%s`: write", name);
	if (r >= 0 && renameat(dfd, tmp, dfd, last) < 0)
		r = cv_error_errno(err, "cache entry `%s`: rename in place", name);
	if (r < 0)
		(void)unlinkat(dfd, tmp, 0); /* best effort: the error that matters is r */
	return r;
}

static int disk_get(const struct backend *b, char *name, const char *key, int *fd_out, cv_error_t *err)
{
	const char *last;
	cleanup_close int dfd = open_entry_dir(b, name, false, &last, err);
	if (dfd == -ENOENT) {
		cv_error_release(err);
		return cv_error(err, ENOENT, "cache entry `%s` not in `%s`", key, b->dir);
	}
	if (dfd < 0)
		return dfd;
	cleanup_close int fd = openat(dfd, last, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return cv_error(err, ENOENT, "cache entry `%s` not in `%s`", key, b->dir);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return cv_error_errno(err, "cache entry `%s` in `%s`", name, b->dir);
	if (!S_ISREG(st.st_mode))
		return cv_error(err, EINVAL, "cache entry `%s` in `%s`: not a regular file", name, b->dir);
	/* the reader expects blocking reads */
	if (fcntl(fd, F_SETFL, O_RDONLY) < 0)
		return cv_error_errno(err, "cache entry `%s`", name);
	*fd_out = steal_fd(&fd);
	return 0;
}

/* ---- s3 ---- */

/* An unnamed file for an S3 download or a piped upload. */
static int temp_file(cv_error_t *err)
{
	const char *dir = getenv("TMPDIR");
	int fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		fd = memfd_create("cvisor-cache", MFD_CLOEXEC);
	return fd >= 0 ? fd : cv_error_errno(err, "cache: create a temporary file");
}

#ifdef HAVE_LIBCURL
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_result;
static void curl_init(void)
{
	curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void curl_easy_cleanupp(CURL **c)
{
	if (*c)
		curl_easy_cleanup(*c);
}
static void curl_slist_freep(struct curl_slist **l)
{
	curl_slist_free_all(*l);
}

static size_t write_to_fd(char *data, size_t size, size_t n, void *arg)
{
	return cv_write_all(*(int *)arg, data, size * n) < 0 ? 0 : size * n;
}

static size_t read_from_fd(char *data, size_t size, size_t n, void *arg)
{
	ssize_t r;
	do
		r = read(*(int *)arg, data, size * n);
	while (r < 0 && errno == EINTR);
	return r < 0 ? CURL_READFUNC_ABORT : (size_t)r;
}

/* S3's error code from the XML body in FD ("SignatureDoesNotMatch"), or "". */
static void s3_error_code(int fd, char *out, size_t size)
{
	char body[4096];
	*out = '\0';
	ssize_t n = pread(fd, body, sizeof(body) - 1, 0);
	if (n <= 0)
		return;
	body[n] = '\0';
	char *s = strstr(body, "<Code>"), *e = s ? strstr(s, "</Code>") : NULL;
	if (s && e)
		snprintf(out, size, ": %.*s", (int)(e - s - 6), s + 6);
}

/* One request: GET into BODY_FD, or PUT of UPLOAD_SIZE bytes from
 * UPLOAD_FD. Returns the HTTP status or an error. */
static long s3_request(const struct backend *b, const char *name, int upload_fd, curl_off_t upload_size, int body_fd,
		       cv_error_t *err)
{
	const char *id = getenv("AWS_ACCESS_KEY_ID"), *secret = getenv("AWS_SECRET_ACCESS_KEY"),
		   *token = getenv("AWS_SESSION_TOKEN");
	if (!id || !*id || !secret || !*secret)
		return cv_error(err, EINVAL, "s3 cache: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set");
	pthread_once(&curl_once, curl_init);
	if (curl_init_result != CURLE_OK)
		return cv_error(err, EIO, "s3 cache: libcurl: %s", curl_easy_strerror(curl_init_result));

	cleanup_free char *url = NULL, *sigv4 = NULL, *token_header = NULL;
	if (asprintf(&url, "%s/%s/%s%s", b->endpoint, b->bucket, b->prefix, name) < 0 ||
	    asprintf(&sigv4, "aws:amz:%s:s3", b->region) < 0 ||
	    (token && *token && asprintf(&token_header, "x-amz-security-token: %s", token) < 0))
		return cv_error(err, ENOMEM, "s3 cache");
	__attribute__((cleanup(curl_easy_cleanupp))) CURL *c = curl_easy_init();
	__attribute__((cleanup(curl_slist_freep))) struct curl_slist *headers = NULL;
	struct curl_slist *h;
	/* the body is not hashed: S3 accepts an unsigned payload, and the
	 * archive is checked when it is extracted */
	if (!c || !(h = curl_slist_append(headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD")))
		return cv_error(err, ENOMEM, "s3 cache");
	headers = h;
	if (token_header) {
		if (!(h = curl_slist_append(headers, token_header)))
			return cv_error(err, ENOMEM, "s3 cache");
		headers = h;
	}
	CURLcode cc = CURLE_OK;
#define SET(opt, val) (cc = cc != CURLE_OK ? cc : curl_easy_setopt(c, opt, val))
	SET(CURLOPT_URL, url);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_NOSIGNAL, 1L); /* no signal handlers in the caller's process */
	SET(CURLOPT_AWS_SIGV4, sigv4);
	SET(CURLOPT_USERNAME, id);
	SET(CURLOPT_PASSWORD, secret);
	SET(CURLOPT_HTTPHEADER, headers);
	SET(CURLOPT_CONNECTTIMEOUT, 30L);
	SET(CURLOPT_LOW_SPEED_LIMIT, 1L); /* a stalled transfer ends after a minute */
	SET(CURLOPT_LOW_SPEED_TIME, 60L);
	SET(CURLOPT_WRITEFUNCTION, write_to_fd);
	SET(CURLOPT_WRITEDATA, &body_fd);
	if (upload_fd >= 0) {
		SET(CURLOPT_UPLOAD, 1L);
		SET(CURLOPT_READFUNCTION, read_from_fd);
		SET(CURLOPT_READDATA, &upload_fd);
		SET(CURLOPT_INFILESIZE_LARGE, upload_size);
	}
#undef SET
	if (cc != CURLE_OK)
		return cv_error(err, EINVAL, "s3 cache: libcurl: %s", curl_easy_strerror(cc));
	if ((cc = curl_easy_perform(c)) != CURLE_OK)
		return cv_error(err, EIO, "s3 cache: %s %s: %s", upload_fd >= 0 ? "PUT" : "GET", url,
				curl_easy_strerror(cc));
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status / 100 != 2 && status != 404) {
		char code[128];
		s3_error_code(body_fd, code, sizeof(code));
		return cv_error(err, status == 403 ? EACCES : EIO, "s3 cache: %s %s: HTTP %ld%s",
				upload_fd >= 0 ? "PUT" : "GET", url, status, code);
	}
	return status;
}

static int s3_put(const struct backend *b, const char *name, int in, cv_error_t *err)
{
	struct stat st;
	off_t off;
	cleanup_close int copy = -1;
	if (fstat(in, &st) < 0)
		return cv_error_errno(err, "s3 cache: the archive");
	if (!S_ISREG(st.st_mode) || (off = lseek(in, 0, SEEK_CUR)) < 0) {
		/* a PUT states its length first: a pipe goes to a file */
		int r;
		if ((copy = temp_file(err)) < 0 || (r = copy_fd(in, copy, "s3 cache", err)) < 0)
			return copy < 0 ? copy : r;
		if (fstat(copy, &st) < 0 || lseek(copy, 0, SEEK_SET) < 0)
			return cv_error_errno(err, "s3 cache: temporary file");
		in = copy;
		off = 0;
	}
	cleanup_close int body = temp_file(err);
	if (body < 0)
		return body;
	long status = s3_request(b, name, in, st.st_size - off, body, err);
	if (status == 404)
		return cv_error(err, ENOENT, "s3 cache: PUT %s: no such bucket `%s`", name, b->bucket);
	return status < 0 ? (int)status : 0;
}

static int s3_get(const struct backend *b, const char *name, const char *key, int *fd_out, cv_error_t *err)
{
	cleanup_close int body = temp_file(err);
	if (body < 0)
		return body;
	long status = s3_request(b, name, -1, 0, body, err);
	if (status < 0)
		return (int)status;
	if (status == 404)
		return cv_error(err, ENOENT, "cache entry `%s` not in s3://%s/%s", key, b->bucket, b->prefix);
	if (lseek(body, 0, SEEK_SET) < 0)
		return cv_error_errno(err, "s3 cache: temporary file");
	*fd_out = steal_fd(&body);
	return 0;
}
#else
static int s3_put(const struct backend *b, const char *name, int in, cv_error_t *err)
{
	return cv_error(err, EOPNOTSUPP, "s3 cache backend: not built (configure found no libcurl)");
}
static int s3_get(const struct backend *b, const char *name, const char *key, int *fd_out, cv_error_t *err)
{
	return cv_error(err, EOPNOTSUPP, "s3 cache backend: not built (configure found no libcurl)");
}
#endif

int cv_cache_put(const char *backend, const char *key, const char *format, int archive_fd, cv_error_t *err)
{
	cleanup_backend struct backend b = { 0 };
	char name[CV_CACHE_KEY_MAX + 16];
	int r = entry_name(key, format, name, err);
	if (r < 0 || (r = parse_backend(backend, &b, err)) < 0)
		return r;
	return b.s3 ? s3_put(&b, name, archive_fd, err) : disk_put(&b, name, archive_fd, err);
}

int cv_cache_get(const char *backend, const char *key, const char *format, int *fd_out, cv_error_t *err)
{
	cleanup_backend struct backend b = { 0 };
	char name[CV_CACHE_KEY_MAX + 16];
	int r = entry_name(key, format, name, err);
	if (r < 0 || (r = parse_backend(backend, &b, err)) < 0)
		return r;
	return b.s3 ? s3_get(&b, name, key, fd_out, err) : disk_get(&b, name, key, fd_out, err);
}
