#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "log.h"
#include "files/archive.h"

#define COPY_BUF (128 * 1024)

static void archive_read_freep(struct archive **a)
{
	if (*a)
		(void)archive_read_free(*a);
}
static void archive_write_freep(struct archive **a)
{
	if (*a)
		(void)archive_write_free(*a); /* closes it first when still open */
}
static void archive_entry_freep(struct archive_entry **e)
{
	if (*e)
		archive_entry_free(*e);
}
#define cleanup_archive_read __attribute__((cleanup(archive_read_freep)))
#define cleanup_archive_write __attribute__((cleanup(archive_write_freep)))
#define cleanup_archive_entry __attribute__((cleanup(archive_entry_freep)))

static const struct {
	const char *name, *suffix;
} formats[] = {
	[CV_ARCHIVE_GZIP] = { "gzip", ".tar.gz" },
	[CV_ARCHIVE_NONE] = { "none", ".tar" },
	[CV_ARCHIVE_ZSTD] = { "zstd", ".tar.zst" },
};

int cv_archive_format_parse(const char *name, enum cv_archive_format *out, cv_error_t *err)
{
	if (!name || !*name) {
		*out = CV_ARCHIVE_GZIP;
		return 0;
	}
	for (size_t i = 0; i < sizeof(formats) / sizeof(*formats); i++)
		if (strcmp(name, formats[i].name) == 0) {
			*out = i;
			return 0;
		}
	if (strcmp(name, "estargz") == 0)
		return cv_error(err, EOPNOTSUPP,
				"archive format `estargz` is not implemented (use gzip, none or zstd)");
	return cv_error(err, EINVAL, "unknown archive format `%.64s` (use gzip, none or zstd)", name);
}

const char *cv_archive_format_name(enum cv_archive_format format)
{
	return formats[format].name;
}

const char *cv_archive_format_suffix(enum cv_archive_format format)
{
	return formats[format].suffix;
}

/* "WHAT: libarchive's message", with libarchive's errno (EIO when it has
 * none: a corrupt stream). */
static int archive_fail(cv_error_t *err, struct archive *a, const char *what, const char *path)
{
	int e = archive_errno(a);
	const char *msg = archive_error_string(a);
	return cv_error_plain(err, e > 0 ? e : EIO, "%s%s%s: %s", what, path ? " " : "", path ? path : "",
			      msg ? msg : "libarchive error");
}

/* ---- writing ---- */

struct writer {
	struct archive *a;
	cv_archive_skip_fn skip;
	void *skip_arg;
	char path[PATH_MAX]; /* of the directory being walked, relative */
	size_t len;
	char *buf;
};

static int cmp_names(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The names in DFD, sorted; a NULL-terminated vector. */
static int list_dir(int dfd, const char *path, char ***out, cv_error_t *err)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "open directory `%s`", path);
	cleanup_dir DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return cv_error_errno(err, "open directory `%s`", path);
	}
	cleanup_strv char **names = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (!de) {
			if (errno)
				return cv_error_errno(err, "read directory `%s`", path);
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n + 2 > cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **p = realloc(names, ncap * sizeof(*p));
			if (!p)
				return cv_error(err, ENOMEM, "read directory `%s`", path);
			names = p;
			cap = ncap;
		}
		if (!(names[n] = strdup(de->d_name)))
			return cv_error(err, ENOMEM, "read directory `%s`", path);
		names[++n] = NULL;
	}
	if (!names && !(names = calloc(1, sizeof(*names))))
		return cv_error(err, ENOMEM, "read directory `%s`", path);
	qsort(names, n, sizeof(*names), cmp_names);
	*out = steal_pointer(&names);
	return 0;
}

static void entry_set_stat(struct archive_entry *e, const char *rel, const struct stat *st)
{
	archive_entry_set_pathname(e, rel);
	archive_entry_set_filetype(e, st->st_mode & S_IFMT);
	archive_entry_set_perm(e, st->st_mode & 07777);
	archive_entry_set_uid(e, st->st_uid);
	archive_entry_set_gid(e, st->st_gid);
	archive_entry_set_mtime(e, st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	archive_entry_set_size(e, S_ISREG(st->st_mode) ? st->st_size : 0);
}

static int write_file_data(struct writer *w, int fd, const char *rel, off_t size, cv_error_t *err)
{
	off_t left = size;
	while (left > 0) {
		size_t want = left < COPY_BUF ? (size_t)left : COPY_BUF;
		ssize_t n = read(fd, w->buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cv_error_errno(err, "read `%s`", rel);
		if (n == 0) /* the header promised SIZE bytes: a short entry would corrupt the stream */
			return cv_error(err, EAGAIN, "`%s` shrank while it was archived", rel);
		if (archive_write_data(w->a, w->buf, n) != n)
			return archive_fail(err, w->a, "write archive entry", rel);
		left -= n;
	}
	return 0;
}

static int write_tree(struct writer *w, int dfd, cv_error_t *err);

/* Stores DFD/NAME, whose path in the archive is REL. */
static int store(struct writer *w, int dfd, const char *name, const char *rel, cv_error_t *err)
{
	struct stat st;
	cleanup_close int fd = -1;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return cv_error_errno(err, "stat `%s`", rel);
		cv_debug("archive: `%s` vanished while the tree was walked", rel);
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) {
		cv_debug("archive: `%s` left out: not a regular file, directory or symlink", rel);
		return 0;
	}
	if (w->skip && w->skip(w->skip_arg, rel, S_ISDIR(st.st_mode)))
		return 0;

	char target[PATH_MAX];
	if (!S_ISLNK(st.st_mode)) {
		/* O_NONBLOCK: a fifo swapped in after the stat must not hang us */
		fd = openat(dfd, name,
			    O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK |
				    (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
		if (fd < 0 || fstat(fd, &st) < 0)
			return cv_error_errno(err, "open `%s`", rel);
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			return cv_error(err, EAGAIN, "`%s` changed type while it was archived", rel);
	} else {
		ssize_t n = readlinkat(dfd, name, target, sizeof(target));
		if (n < 0)
			return cv_error_errno(err, "read symlink `%s`", rel);
		if (n >= (ssize_t)sizeof(target))
			return cv_error(err, ENAMETOOLONG, "read symlink `%s`", rel);
		target[n] = '\0';
	}

	cleanup_archive_entry struct archive_entry *e = archive_entry_new();
	if (!e)
		return cv_error(err, ENOMEM, "archive `%s`", rel);
	entry_set_stat(e, rel, &st);
	if (S_ISLNK(st.st_mode))
		archive_entry_set_symlink(e, target);
	if (archive_write_header(w->a, e) < ARCHIVE_WARN)
		return archive_fail(err, w->a, "write archive entry", rel);
	if (S_ISREG(st.st_mode))
		return write_file_data(w, fd, rel, st.st_size, err);
	if (S_ISDIR(st.st_mode))
		return write_tree(w, fd, err);
	return 0;
}

static int write_one(struct writer *w, int dfd, const char *name, cv_error_t *err)
{
	size_t base = w->len;
	size_t nlen = strlen(name);
	if (base + (base ? 1 : 0) + nlen >= sizeof(w->path))
		return cv_error(err, ENAMETOOLONG, "`%s/%s`", w->path, name);
	if (base)
		w->path[w->len++] = '/';
	memcpy(w->path + w->len, name, nlen + 1);
	w->len += nlen;
	int r = store(w, dfd, name, w->path, err);
	w->len = base;
	w->path[base] = '\0';
	return r;
}

static int write_tree(struct writer *w, int dfd, cv_error_t *err)
{
	cleanup_strv char **names = NULL;
	int r = list_dir(dfd, w->len ? w->path : ".", &names, err);
	for (char **n = names; r >= 0 && *n; n++)
		r = write_one(w, dfd, *n, err);
	return r;
}

static int add_filter(struct archive *a, enum cv_archive_format format)
{
	switch (format) {
	case CV_ARCHIVE_GZIP:
		return archive_write_add_filter_gzip(a);
	case CV_ARCHIVE_ZSTD:
		return archive_write_add_filter_zstd(a);
	case CV_ARCHIVE_NONE:
		break;
	}
	return archive_write_add_filter_none(a);
}

int cv_archive_write(int dirfd, int out_fd, enum cv_archive_format format, cv_archive_skip_fn skip, void *skip_arg,
		     cv_error_t *err)
{
	cleanup_free char *buf = malloc(COPY_BUF);
	cleanup_archive_write struct archive *a = archive_write_new();
	if (!a || !buf)
		return cv_error(err, ENOMEM, "write archive");
	/* pax: long names, large files and sub-second mtimes; restricted:
	 * plain ustar headers where those are not needed */
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK)
		return archive_fail(err, a, "write archive", NULL);
	/* ARCHIVE_WARN would mean an external compressor program: refused */
	if (add_filter(a, format) != ARCHIVE_OK)
		return archive_fail(err, a, "write archive: format", cv_archive_format_name(format));
	/* no time in the gzip header: the same tree, the same bytes */
	if (format == CV_ARCHIVE_GZIP && archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK)
		return archive_fail(err, a, "write archive: gzip", NULL);
	if (format != CV_ARCHIVE_NONE && archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK)
		return archive_fail(err, a, "write archive", NULL);
	if (archive_write_open_fd(a, out_fd) != ARCHIVE_OK)
		return archive_fail(err, a, "write archive", NULL);

	struct writer w = { .a = a, .skip = skip, .skip_arg = skip_arg, .buf = buf };
	int r = write_tree(&w, dirfd, err);
	if (r < 0)
		return r;
	if (archive_write_close(a) != ARCHIVE_OK)
		return archive_fail(err, a, "write archive", NULL);
	return 0;
}

/* ---- extracting ---- */

struct dir_fix {
	char *path;
	size_t order;
	mode_t mode;
	struct timespec mtime;
};

struct extractor {
	struct archive *a;
	int root;
	struct cv_archive_limits lim;
	uint64_t entries, bytes;
	void *files; /* tsearch set of the regular files extracted, by path */
	struct dir_fix *dirs;
	size_t ndirs, capdirs;
	char *buf;
	char shown[256]; /* the current entry's path, printable, for messages */
};

/* A copy of PATH safe for a one-line message: control bytes become '?'. */
static void set_shown(struct extractor *x, const char *path)
{
	size_t i = 0;
	for (; path && path[i] && i < sizeof(x->shown) - 4; i++)
		x->shown[i] = (unsigned char)path[i] < 0x20 || path[i] == 0x7f ? '?' : path[i];
	strcpy(x->shown + i, path && path[i] ? "..." : "");
}

/* Checks an entry's path or hard link target and writes it to OUT without
 * "." components, repeated or trailing slashes: "" for the root. */
static int clean_path(struct extractor *x, const char *in, const char *what, char *out, cv_error_t *err)
{
	if (!in || !*in)
		return cv_error(err, EINVAL, "archive entry `%s`: empty %s", x->shown, what);
	size_t len = strlen(in);
	if (len > x->lim.max_path)
		return cv_error(err, ENAMETOOLONG, "archive entry `%s`: %s longer than %zu bytes", x->shown, what,
				x->lim.max_path);
	if (in[0] == '/')
		return cv_error(err, EPERM, "archive entry `%s`: absolute %s", x->shown, what);
	size_t o = 0;
	for (const char *p = in; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return cv_error(err, EPERM, "archive entry `%s`: `..` in its %s", x->shown, what);
		if (n && !(n == 1 && p[0] == '.')) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n;
		p += *p == '/';
	}
	out[o] = '\0';
	return 0;
}

int cv_open_parent_beneath(int root, char *path, bool create, mode_t mode, const char **name)
{
	cleanup_close int cur = -1;
	int at = root;
	char *p = path;
	for (char *slash; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		int fd = openat(at, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* what we create is opened like the rest: a racing swap for a
		 * symlink fails here */
		if (fd < 0 && errno == ENOENT && create && (mkdirat(at, p, mode) == 0 || errno == EEXIST))
			fd = openat(at, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		/* O_DIRECTORY wins over O_NOFOLLOW: a symlink gives ENOTDIR */
		if (fd < 0 && errno == ENOTDIR && fstatat(at, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			errno = ELOOP;
		if (fd < 0)
			return -errno; /* PATH stays cut after the component that failed */
		*slash = '/';
		cv_closep(&cur);
		at = cur = fd;
	}
	*name = p;
	if (cur < 0 && (cur = fcntl(root, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	return steal_fd(&cur);
}

/* cv_open_parent_beneath for the current entry, with its message. */
static int open_parent(struct extractor *x, const char *path, bool create, char walk[static PATH_MAX],
		       const char **name, cv_error_t *err)
{
	strcpy(walk, path);
	int r = cv_open_parent_beneath(x->root, walk, create, 0755, name);
	if (r == -ELOOP)
		return cv_error(err, EPERM, "archive entry `%s`: `%s` is a symlink", x->shown, walk);
	if (r == -ENOTDIR)
		return cv_error(err, ENOTDIR, "archive entry `%s`: `%s` is not a directory", x->shown, walk);
	if (r < 0)
		return cv_error(err, -r, "archive entry `%s`: open `%s`", x->shown, walk);
	return r;
}

/* Makes room for a new entry NAME in DFD: an existing non-directory goes
 * (it is replaced, as tar does); a directory is an error. */
static int remove_nondir(struct extractor *x, int dfd, const char *name, cv_error_t *err)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : cv_error_errno(err, "archive entry `%s`: stat it", x->shown);
	if (S_ISDIR(st.st_mode))
		return cv_error(err, EISDIR, "archive entry `%s`: a directory exists there", x->shown);
	if (unlinkat(dfd, name, 0) < 0)
		return cv_error_errno(err, "archive entry `%s`: remove what is there", x->shown);
	return 0;
}

static int set_times(int dfd, const char *name, struct archive_entry *e, int flags)
{
	if (!archive_entry_mtime_is_set(e))
		return 0;
	struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, { archive_entry_mtime(e), archive_entry_mtime_nsec(e) } };
	return utimensat(dfd, name, ts, flags);
}

static int count_bytes(struct extractor *x, uint64_t n, cv_error_t *err)
{
	if (n > x->lim.max_bytes || x->bytes > x->lim.max_bytes - n)
		return cv_error(err, EFBIG, "archive entry `%s`: the archive expands beyond %" PRIu64 " bytes",
				x->shown, x->lim.max_bytes);
	x->bytes += n;
	return 0;
}

static int remember_file(struct extractor *x, const char *path, cv_error_t *err)
{
	char *copy = strdup(path);
	void *node = copy ? tsearch(copy, &x->files, (int (*)(const void *, const void *))strcmp) : NULL;
	if (!node) {
		free(copy);
		return cv_error(err, ENOMEM, "archive entry `%s`", x->shown);
	}
	if (*(char **)node != copy)
		free(copy); /* already known */
	return 0;
}

static int extract_file(struct extractor *x, int dfd, const char *name, const char *path, mode_t perm,
			struct archive_entry *e, cv_error_t *err)
{
	char tmp[NAME_MAX + 1];
	cleanup_close int fd = cv_create_temp_at(dfd, name, 0600, tmp, err);
	if (fd < 0)
		return cv_error_prefix(err, "archive entry `%s`", x->shown);
	int r = 0;
	for (;;) {
		la_ssize_t n = archive_read_data(x->a, x->buf, COPY_BUF);
		if (n < 0) {
			r = archive_fail(err, x->a, "read archive entry", x->shown);
			break;
		}
		if (n == 0)
			break;
		if ((r = count_bytes(x, n, err)) < 0)
			break;
		if ((r = cv_write_all(fd, x->buf, n)) < 0) {
			r = cv_error(err, -r, "archive entry `%s`: write it", x->shown);
			break;
		}
	}
	if (r >= 0 && fchmod(fd, perm) < 0)
		r = cv_error_errno(err, "archive entry `%s`: chmod", x->shown);
	if (r >= 0 && set_times(dfd, tmp, e, AT_SYMLINK_NOFOLLOW) < 0)
		r = cv_error_errno(err, "archive entry `%s`: set its mtime", x->shown);
	if (r >= 0 && close(steal_fd(&fd)) < 0)
		r = cv_error_errno(err, "archive entry `%s`: write it", x->shown);
	if (r >= 0)
		r = remove_nondir(x, dfd, name, err);
	if (r >= 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = cv_error_errno(err, "archive entry `%s`: rename it in place", x->shown);
	if (r < 0) {
		(void)unlinkat(dfd, tmp, 0); /* best effort: the error that matters is r */
		return r;
	}
	return remember_file(x, path, err);
}

static int extract_hardlink(struct extractor *x, int dfd, const char *name, const char *link, cv_error_t *err)
{
	char target[PATH_MAX];
	int r = clean_path(x, link, "hard link target", target, err);
	if (r < 0)
		return r;
	if (!*target || !tfind(target, &x->files, (int (*)(const void *, const void *))strcmp))
		return cv_error(err, EPERM,
				"archive entry `%s`: hard link to `%s`, not a regular file extracted before it",
				x->shown, target);
	char walk[PATH_MAX];
	const char *tname;
	cleanup_close int tdfd = open_parent(x, target, false, walk, &tname, err);
	if (tdfd < 0)
		return tdfd;
	struct stat st;
	/* a later entry may have replaced it: a symlink is never linked to */
	if (fstatat(tdfd, tname, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return cv_error(err, EPERM, "archive entry `%s`: hard link to `%s`, no longer a regular file", x->shown,
				target);
	if ((r = remove_nondir(x, dfd, name, err)) < 0)
		return r;
	if (linkat(tdfd, tname, dfd, name, 0) < 0)
		return cv_error_errno(err, "archive entry `%s`: link to `%s`", x->shown, target);
	return 0;
}

static int extract_symlink(struct extractor *x, int dfd, const char *name, struct archive_entry *e, cv_error_t *err)
{
	/* the target is stored as it is: entries after it never pass through
	 * it (open_parent), and files replace it instead of following it */
	const char *target = archive_entry_symlink(e);
	if (!target || !*target)
		return cv_error(err, EINVAL, "archive entry `%s`: symlink without a target", x->shown);
	if (strlen(target) > x->lim.max_path)
		return cv_error(err, ENAMETOOLONG, "archive entry `%s`: symlink target longer than %zu bytes", x->shown,
				x->lim.max_path);
	int r = remove_nondir(x, dfd, name, err);
	if (r < 0)
		return r;
	if (symlinkat(target, dfd, name) < 0)
		return cv_error_errno(err, "archive entry `%s`: create the symlink", x->shown);
	if (set_times(dfd, name, e, AT_SYMLINK_NOFOLLOW) < 0)
		return cv_error_errno(err, "archive entry `%s`: set its mtime", x->shown);
	return 0;
}

static int extract_dir(struct extractor *x, int dfd, const char *name, const char *path, mode_t perm,
		       struct archive_entry *e, cv_error_t *err)
{
	/* owner-only until the end: its real mode may not let us create its
	 * children (0555), and it must not be open to others half-filled */
	if (mkdirat(dfd, name, 0700) < 0) {
		struct stat st;
		if (errno != EEXIST || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return cv_error_errno(err, "archive entry `%s`: create the directory", x->shown);
		if (!S_ISDIR(st.st_mode) && (unlinkat(dfd, name, 0) < 0 || mkdirat(dfd, name, 0700) < 0))
			return cv_error_errno(err, "archive entry `%s`: replace what is there", x->shown);
	}
	if (x->ndirs == x->capdirs) {
		size_t ncap = x->capdirs ? x->capdirs * 2 : 64;
		struct dir_fix *p = realloc(x->dirs, ncap * sizeof(*p));
		if (!p)
			return cv_error(err, ENOMEM, "archive entry `%s`", x->shown);
		x->dirs = p;
		x->capdirs = ncap;
	}
	struct dir_fix *f = &x->dirs[x->ndirs];
	if (!(f->path = strdup(path)))
		return cv_error(err, ENOMEM, "archive entry `%s`", x->shown);
	f->order = x->ndirs++;
	f->mode = perm;
	f->mtime = archive_entry_mtime_is_set(e)
			   ? (struct timespec){ archive_entry_mtime(e), archive_entry_mtime_nsec(e) }
			   : (struct timespec){ .tv_nsec = UTIME_OMIT };
	return 0;
}

static int extract_entry(struct extractor *x, struct archive_entry *e, cv_error_t *err)
{
	char path[PATH_MAX];
	set_shown(x, archive_entry_pathname(e));
	if (++x->entries > x->lim.max_entries)
		return cv_error(err, EFBIG, "archive entry `%s`: the archive has more than %" PRIu64 " entries",
				x->shown, x->lim.max_entries);
	int r = clean_path(x, archive_entry_pathname(e), "path", path, err);
	if (r < 0)
		return r;
	if (archive_entry_size_is_set(e) && archive_entry_size(e) < 0)
		return cv_error(err, EINVAL, "archive entry `%s`: negative size", x->shown);
	/* refused before a byte is written; extract_file counts what comes */
	uint64_t declared = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
	if (declared > x->lim.max_bytes - x->bytes)
		return cv_error(err, EFBIG,
				"archive entry `%s`: %" PRIu64 " bytes, beyond the limit of %" PRIu64
				" for the archive",
				x->shown, declared, x->lim.max_bytes);

	const char *hardlink = archive_entry_hardlink(e);
	mode_t type = archive_entry_filetype(e);
	if (!hardlink && type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
		return cv_error(err, EPERM, "archive entry `%s`: %s refused", x->shown,
				type == AE_IFCHR || type == AE_IFBLK ? "device node"
				: type == AE_IFIFO                   ? "fifo"
				: type == AE_IFSOCK                  ? "socket"
								     : "unknown entry type");
	if (!*path) {
		if (type == AE_IFDIR && !hardlink)
			return 0; /* "./": the target itself, which keeps its mode */
		return cv_error(err, EINVAL, "archive entry `%s`: a non-directory names the target", x->shown);
	}
	/* no setuid/setgid: the files belong to whoever extracts them */
	mode_t perm = archive_entry_perm(e) & (type == AE_IFDIR ? 01777 : 0777);

	char walk[PATH_MAX];
	const char *name;
	cleanup_close int dfd = open_parent(x, path, true, walk, &name, err);
	if (dfd < 0)
		return dfd;
	if (hardlink)
		return extract_hardlink(x, dfd, name, hardlink, err);
	switch (type) {
	case AE_IFREG:
		return extract_file(x, dfd, name, path, perm, e, err);
	case AE_IFLNK:
		return extract_symlink(x, dfd, name, e, err);
	default:
		return extract_dir(x, dfd, name, path, perm, e, err);
	}
}

static int cmp_fix(const void *a, const void *b)
{
	const struct dir_fix *x = a, *y = b;
	int c = strcmp(y->path, x->path); /* children before their parents */
	return c ? c : x->order < y->order ? -1 : 1;
}

/* The directories' modes and mtimes, once their children are in. One that
 * a later entry replaced is left alone. */
static void fix_dirs(struct extractor *x)
{
	if (!x->ndirs)
		return; /* qsort wants a base even for none */
	qsort(x->dirs, x->ndirs, sizeof(*x->dirs), cmp_fix);
	for (size_t i = 0; i < x->ndirs; i++) {
		struct dir_fix *f = &x->dirs[i];
		cleanup_error cv_error_t err = NULL;
		char walk[PATH_MAX];
		const char *name;
		set_shown(x, f->path);
		cleanup_close int dfd = open_parent(x, f->path, false, walk, &name, &err);
		cleanup_close int fd = dfd < 0 ? -1
					       : openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, f->mtime };
		if (fd < 0 || fchmod(fd, f->mode) < 0 || futimens(fd, ts) < 0)
			cv_debug("archive: directory `%s`: mode and mtime not set: %s", x->shown,
				 err ? err->msg : strerror(errno));
	}
}

static void free_extractor(struct extractor *x)
{
	for (size_t i = 0; i < x->ndirs; i++)
		free(x->dirs[i].path);
	free(x->dirs);
	tdestroy(x->files, free);
	free(x->buf);
}

int cv_archive_extract(int in_fd, int target_dirfd, const struct cv_archive_limits *limits, cv_error_t *err)
{
	cleanup_archive_read struct archive *a = archive_read_new();
	if (!a)
		return cv_error(err, ENOMEM, "read archive");
	/* ARCHIVE_WARN would mean an external decompressor program: refused */
	if (archive_read_support_format_tar(a) != ARCHIVE_OK || archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
	    archive_read_support_filter_zstd(a) != ARCHIVE_OK)
		return archive_fail(err, a, "read archive", NULL);
	if (archive_read_open_fd(a, in_fd, COPY_BUF) != ARCHIVE_OK)
		return archive_fail(err, a, "read archive", NULL);

	struct extractor x = { .a = a, .root = target_dirfd, .lim = limits ? *limits : CV_ARCHIVE_LIMITS_DEFAULT };
	if (x.lim.max_path >= PATH_MAX)
		x.lim.max_path = PATH_MAX - 1;
	int r = (x.buf = malloc(COPY_BUF)) ? 0 : cv_error(err, ENOMEM, "read archive");
	while (r >= 0) {
		struct archive_entry *e;
		int s = archive_read_next_header(a, &e);
		if (s == ARCHIVE_EOF)
			break;
		if (s < ARCHIVE_WARN) {
			r = x.entries ? archive_fail(err, a, "read archive after entry", x.shown)
				      : archive_fail(err, a, "read archive", NULL);
			break;
		}
		r = extract_entry(&x, e, err);
	}
	fix_dirs(&x);
	free_extractor(&x);
	return r < 0 ? r : 0;
}
