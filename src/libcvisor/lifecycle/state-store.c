/* The state store: <root>/<id>/{state.json,lock}. Every path operation is
 * relative to an fd of the root (or of the container directory), never a
 * string path built from the id, so a symlink planted under the root cannot
 * redirect us. A container directory appears under its final name only after
 * its lock is held (built under a temporary name, then renamed into place
 * with RENAME_NOREPLACE), and disappears by an atomic rename before its
 * contents are removed, so a concurrent command either sees a complete,
 * locked entry or none at all. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "io.h"
#include "log.h"
#include "lifecycle/state-store.h"

#define STATE_FILE "state.json"
#define LOCK_FILE "lock"
/* '~' is not allowed in ids, so these names can never clash with a
 * container and cv_store_list skips them. */
#define TMP_PREFIX "~new~"
#define DEL_PREFIX "~del~"
#define MAX_ID_LEN 1024
#define MAX_STATE_SIZE (16 * 1024 * 1024)

int cv_store_root(const char *root, char **out, cv_error_t *err)
{
	char *r;

	if (root && *root)
		r = strdup(root);
	else if (geteuid() == 0)
		r = strdup("/run/cvisor");
	else {
		const char *xdg = getenv("XDG_RUNTIME_DIR");
		if (!xdg || !*xdg)
			return cv_error(err, 0,
					"XDG_RUNTIME_DIR is not set: pass --root DIR to choose a state directory");
		if (asprintf(&r, "%s/cvisor", xdg) < 0)
			r = NULL;
	}
	if (!r)
		return cv_error(err, ENOMEM, "state root");
	*out = r;
	return 0;
}

static bool id_char_ok(unsigned char c)
{
	return isascii(c) && (isalnum(c) || c == '_' || c == '+' || c == '-' || c == '.');
}

int cv_store_validate_id(const char *id, cv_error_t *err)
{
	size_t len;

	if (!id || !*id)
		return cv_error_plain(err, EINVAL, "invalid container id \"\": must not be empty");
	len = strnlen(id, MAX_ID_LEN + 1);
	if (len > MAX_ID_LEN)
		return cv_error_plain(err, EINVAL, "invalid container id \"%.32s...\": longer than %d bytes", id,
				      MAX_ID_LEN);
	if (strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
		return cv_error_plain(err, EINVAL, "invalid container id \"%s\": must not be \".\" or \"..\"", id);
	for (const char *p = id; *p; p++)
		if (!id_char_ok((unsigned char)*p))
			return cv_error_plain(err, EINVAL,
					      "invalid container id \"%s\": only letters, digits and _+-. are allowed",
					      id);
	return 0;
}

/* mkdir -p with mode 0700 for every component it creates, then opens it. */
static int open_root(const char *root, bool create, cv_error_t *err)
{
	cleanup_free char *copy = NULL;
	int fd;

	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT || !create) {
		if (fd < 0)
			return cv_error_errno(err, "open state root `%s`", root);
		return fd;
	}
	copy = strdup(root);
	if (!copy)
		return cv_error(err, ENOMEM, "state root");
	for (char *p = copy + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(copy, 0700) < 0 && errno != EEXIST)
			return cv_error_errno(err, "create state root `%s`", copy);
		*p = saved;
		if (!saved)
			break;
	}
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "open state root `%s`", root);
	return fd;
}

static struct cv_store_entry *entry_new(const char *root, const char *id)
{
	struct cv_store_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->dirfd = e->lockfd = -1;
	e->root = strdup(root);
	e->id = strdup(id);
	if (!e->root || !e->id) {
		cv_store_close(e);
		return NULL;
	}
	return e;
}

void cv_store_close(struct cv_store_entry *e)
{
	if (!e)
		return;
	/* Closing lockfd drops our lock (unless a child still holds a copy). */
	cv_closep(&e->lockfd);
	cv_closep(&e->dirfd);
	free(e->root);
	free(e->id);
	free(e);
}

/* An open file description lock (F_OFD_SETLKW): it belongs to this open
 * of the lock file, so two threads of one process that each open the
 * container exclude each other (a POSIX record lock belongs to the process:
 * a second thread would get it too, and the first close by either would
 * drop it), and closing another fd of the file does not drop it. Every fd
 * sharing the open file description holds it: a child cloned while the
 * entry is open must close its copy of lockfd (the container process does
 * at once) or execve (O_CLOEXEC). */
static int lock_fd(int fd, const char *id, cv_error_t *err)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0, .l_pid = 0 };
	while (fcntl(fd, F_OFD_SETLKW, &fl) < 0) {
		if (errno != EINTR)
			return cv_error_errno(err, "lock container \"%s\"", id);
	}
	return 0;
}

/* A random name under the root for building or dismantling an entry. */
static int temp_name(char *buf, size_t size, const char *prefix)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[12];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t r = fd >= 0 ? read(fd, rnd, sizeof(rnd)) : -1;
	cv_closep(&fd);
	if (r != (ssize_t)sizeof(rnd)) {
		/* Uniqueness is all we need here, not unpredictability. */
		unsigned long long x = (unsigned long long)cv_now_ns() ^ ((unsigned long long)getpid() << 32);
		for (size_t i = 0; i < sizeof(rnd); i++, x = x * 6364136223846793005ULL + 1442695040888963407ULL)
			rnd[i] = (unsigned char)(x >> 56);
	}
	size_t n = strlen(prefix);
	if (n + sizeof(rnd) + 1 > size)
		return -1;
	memcpy(buf, prefix, n);
	for (size_t i = 0; i < sizeof(rnd); i++)
		buf[n + i] = chars[rnd[i] % (sizeof(chars) - 1)];
	buf[n + sizeof(rnd)] = '\0';
	return 0;
}

/* Removes everything below dirfd (not following symlinks or crossing into
 * other filesystems), then dirfd's own entry `name` in parent. */
static int remove_tree_at(int parent, const char *name, int depth, cv_error_t *err)
{
	struct stat st;
	int fd;
	cleanup_dir DIR *d = NULL;
	struct dirent *de;

	if (depth > 16)
		return cv_error(err, ELOOP, "remove `%s`: directory tree too deep", name);
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return cv_error_errno(err, "open `%s`", name);
	}
	if (fstat(fd, &st) < 0) {
		int r = cv_error_errno(err, "stat `%s`", name);
		cv_closep(&fd);
		return r;
	}
	d = fdopendir(fd);
	if (!d) {
		int r = cv_error_errno(err, "read directory `%s`", name);
		cv_closep(&fd);
		return r;
	}
	while ((errno = 0, de = readdir(d))) {
		struct stat cst;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &cst, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			return cv_error_errno(err, "stat `%s/%s`", name, de->d_name);
		}
		if (S_ISDIR(cst.st_mode)) {
			if (cst.st_dev != st.st_dev)
				return cv_error(err, EBUSY, "remove `%s/%s`: a filesystem is mounted there", name,
						de->d_name);
			if (remove_tree_at(dirfd(d), de->d_name, depth + 1, err) < 0)
				return cv_error_prefix(err, "%s", name);
		} else if (unlinkat(dirfd(d), de->d_name, 0) < 0 && errno != ENOENT)
			return cv_error_errno(err, "remove `%s/%s`", name, de->d_name);
	}
	if (errno)
		return cv_error_errno(err, "read directory `%s`", name);
	if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return cv_error_errno(err, "remove `%s`", name);
	return 0;
}

int cv_store_create(const char *root, const char *id, struct cv_store_entry **out, cv_error_t *err)
{
	cleanup_close int rootfd = -1;
	cleanup_store_entry struct cv_store_entry *e = NULL;
	char tmp[64];
	cleanup_error cv_error_t ignored = NULL;

	if (cv_store_validate_id(id, err) < 0)
		return cv_error_ret(*err);
	if (strlen(id) > NAME_MAX)
		return cv_error_plain(
			err, ENAMETOOLONG,
			"invalid container id \"%.32s...\": longer than %d bytes, the limit of a directory name", id,
			NAME_MAX);
	rootfd = open_root(root, true, err);
	if (rootfd < 0)
		return rootfd;
	e = entry_new(root, id);
	if (!e)
		return cv_error(err, ENOMEM, "container \"%s\"", id);

	if (temp_name(tmp, sizeof(tmp), TMP_PREFIX) < 0)
		return cv_error(err, EINVAL, "temporary name");
	if (mkdirat(rootfd, tmp, 0700) < 0)
		return cv_error_errno(err, "create `%s/%s`", root, tmp);
	e->dirfd = openat(rootfd, tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (e->dirfd < 0) {
		int r = cv_error_errno(err, "open `%s/%s`", root, tmp);
		(void)remove_tree_at(rootfd, tmp, 0, &ignored); /* best effort: the error above matters */
		return r;
	}
	e->lockfd = openat(e->dirfd, LOCK_FILE, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (e->lockfd < 0 || lock_fd(e->lockfd, id, err) < 0) {
		int r = e->lockfd < 0 ? cv_error_errno(err, "create lock of container \"%s\"", id) : cv_error_ret(*err);
		(void)remove_tree_at(rootfd, tmp, 0, &ignored);
		return r;
	}
	if (renameat2(rootfd, tmp, rootfd, id, RENAME_NOREPLACE) < 0) {
		int saved = errno;
		(void)remove_tree_at(rootfd, tmp, 0, &ignored);
		if (saved == EEXIST || saved == ENOTEMPTY)
			return cv_error_plain(err, EEXIST, "container \"%s\" already exists", id);
		return cv_error(err, saved, "create container directory `%s/%s`", root, id);
	}
	*out = steal_pointer(&e);
	return 0;
}

/* True when e->dirfd is still the directory named id under rootfd, i.e. no
 * delete got in between our open and our lock. */
static bool entry_current(int rootfd, struct cv_store_entry *e)
{
	struct stat a, b;
	if (fstat(e->dirfd, &a) < 0 || fstatat(rootfd, e->id, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int cv_store_open(const char *root, const char *id, struct cv_store_entry **out, cv_error_t *err)
{
	cleanup_close int rootfd = -1;
	cleanup_store_entry struct cv_store_entry *e = NULL;

	if (cv_store_validate_id(id, err) < 0)
		return cv_error_ret(*err);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		if (errno == ENOENT)
			return cv_error_plain(err, ENOENT, "container \"%s\" does not exist", id);
		return cv_error_errno(err, "open state root `%s`", root);
	}
	e = entry_new(root, id);
	if (!e)
		return cv_error(err, ENOMEM, "container \"%s\"", id);
	e->dirfd = openat(rootfd, id, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (e->dirfd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == ENAMETOOLONG)
			return cv_error_plain(err, ENOENT, "container \"%s\" does not exist", id);
		return cv_error_errno(err, "open container \"%s\"", id);
	}
	e->lockfd = openat(e->dirfd, LOCK_FILE, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (e->lockfd < 0) {
		if (errno == ENOENT)
			return cv_error_plain(err, ENOENT, "container \"%s\" does not exist", id);
		return cv_error_errno(err, "open lock of container \"%s\"", id);
	}
	if (lock_fd(e->lockfd, id, err) < 0)
		return cv_error_ret(*err);
	if (!entry_current(rootfd, e))
		return cv_error_plain(err, ENOENT, "container \"%s\" does not exist", id);
	*out = steal_pointer(&e);
	return 0;
}

int cv_store_read_state(struct cv_store_entry *e, oci_state **out, cv_error_t *err)
{
	cleanup_close int fd = -1;
	cleanup_free char *buf = NULL;
	char what[MAX_ID_LEN + 32];
	size_t len = 0;
	int r;

	fd = openat(e->dirfd, STATE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return cv_error_plain(err, ENOENT, "container \"%s\" does not exist", e->id);
		return cv_error_errno(err, "open state of container \"%s\"", e->id);
	}
	snprintf(what, sizeof(what), "state of container \"%s\"", e->id);
	if ((r = cv_read_fd(fd, what, MAX_STATE_SIZE, &buf, &len, err)) < 0)
		return r;
	if (oci_state_parse(buf, len, STATE_FILE, out, err) < 0)
		return cv_error_prefix(err, "container \"%s\"", e->id);
	return 0;
}

int cv_store_write_state(struct cv_store_entry *e, const oci_state *st, cv_error_t *err)
{
	cleanup_free char *data = NULL;
	size_t len = 0;

	if (oci_state_emit(st, &data, &len, err) < 0 ||
	    cv_write_file_atomic(e->dirfd, STATE_FILE, data, len, 0600, err) < 0)
		return cv_error_prefix(err, "container \"%s\"", e->id);
	return 0;
}

int cv_store_remove(struct cv_store_entry *e, cv_error_t *err)
{
	cleanup_close int rootfd = -1;
	char tmp[64];
	int r = 0;

	rootfd = open(e->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		r = cv_error_errno(err, "open state root `%s`", e->root);
	else if (temp_name(tmp, sizeof(tmp), DEL_PREFIX) < 0)
		r = cv_error(err, EINVAL, "temporary name");
	/* Unpublish first: waiters on our lock then find the entry gone. */
	else if (renameat2(rootfd, e->id, rootfd, tmp, RENAME_NOREPLACE) < 0)
		r = cv_error_errno(err, "remove container \"%s\"", e->id);
	else if (remove_tree_at(rootfd, tmp, 0, err) < 0)
		r = cv_error_prefix(err, "remove container \"%s\"", e->id);
	cv_store_close(e);
	return r;
}

int cv_store_remove_stale(const char *root, const char *id, cv_error_t *err)
{
	cleanup_store_entry struct cv_store_entry *e = NULL;
	struct stat st;
	int r = cv_store_open(root, id, &e, err);

	if (r == -ENOENT) {
		cv_error_release(err);
		return 0;
	}
	if (r < 0)
		return r;
	if (fstatat(e->dirfd, STATE_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return cv_error_plain(err, EEXIST, "container \"%s\" already exists", id);
	if (errno != ENOENT)
		return cv_error_errno(err, "state of container \"%s\"", id);
	return cv_store_remove(steal_pointer(&e), err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cv_store_list(const char *root, char ***ids, size_t *n, cv_error_t *err)
{
	cleanup_dir DIR *d = NULL;
	cleanup_strv char **v = NULL;
	size_t len = 0, cap = 0;
	struct dirent *de;
	int fd;

	*ids = NULL;
	*n = 0;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			goto done;
		return cv_error_errno(err, "open state root `%s`", root);
	}
	d = fdopendir(fd);
	if (!d) {
		int r = cv_error_errno(err, "read state root `%s`", root);
		cv_closep(&fd);
		return r;
	}
	while ((errno = 0, de = readdir(d))) {
		struct stat st;
		if (cv_store_validate_id(de->d_name, NULL) < 0)
			continue; /* ".", "..", our temporary entries, foreign files */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (len + 2 > cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **nv = realloc(v, ncap * sizeof(*nv));
			if (!nv)
				return cv_error(err, ENOMEM, "list containers");
			v = nv;
			cap = ncap;
		}
		v[len] = strdup(de->d_name);
		if (!v[len])
			return cv_error(err, ENOMEM, "list containers");
		v[++len] = NULL;
	}
	if (errno)
		return cv_error_errno(err, "read state root `%s`", root);
done:
	if (!v) {
		v = calloc(1, sizeof(*v));
		if (!v)
			return cv_error(err, ENOMEM, "list containers");
	}
	qsort(v, len, sizeof(*v), cmp_str);
	*ids = steal_pointer(&v);
	*n = len;
	return 0;
}
