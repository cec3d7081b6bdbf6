/* Path resolution the container cannot redirect: inside a rootfs with
 * openat2(RESOLVE_IN_ROOT), inside a procfs instance the runtime holds an
 * fd to and verifies with fstatfs, and host files written through a
 * directory fd with a rename over the name (see safe-path.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "log.h"
#include "fs/safe-path.h"

#define MAX_SYMLINKS 40

static int sys_openat2(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve)
{
	struct open_how how = { .flags = (uint64_t)flags | O_CLOEXEC, .mode = mode, .resolve = resolve };
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

static atomic_bool openat2_missing; /* learnt once, by any thread */

/* Whether to take the fallback after openat2 failed with E: ENOSYS (no
 * such call, learnt for good), or EPERM, the default errno of a seccomp
 * profile written before openat2 existed, loaded in the container process
 * before its last steps (issue 14.1): for that call only. openat2 itself
 * has no EPERM for the flags used here. */
static bool openat2_unusable(int e)
{
	if (e == ENOSYS)
		openat2_missing = true;
	return e == ENOSYS || e == EPERM;
}

int cv_path_clean(const char *in, char *out, size_t outlen)
{
	size_t n = 0;
	const char *p = in;

	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			/* ".." above the root stays at the root, as RESOLVE_IN_ROOT does */
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else {
			if (n + len + 2 > outlen)
				return -ENAMETOOLONG;
			if (n > 0)
				out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p = end;
	}
	if (n == 0) {
		if (outlen < 2)
			return -ENAMETOOLONG;
		out[n++] = '.';
	}
	out[n] = '\0';
	return 0;
}

/* Kernels without openat2: walk one component at a time with O_NOFOLLOW,
 * expanding symlinks ourselves and clamping ".." and absolute targets at the
 * root. Not race-free against ".." moves, which openat2 is. */
static int walk_in_root(int rootfd, const char *path, int flags, mode_t mode)
{
	cleanup_free char *buf = malloc(PATH_MAX * 2);
	cleanup_close int cur = -1;
	struct stat rootst;
	int links = 0;

	if (!buf)
		return -ENOMEM;
	if (fstat(rootfd, &rootst) < 0)
		return -errno;
	if (snprintf(buf, PATH_MAX * 2, "%s", path) >= PATH_MAX * 2)
		return -ENAMETOOLONG;
	cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		return -errno;

	char *rest = buf;
	for (;;) {
		while (*rest == '/')
			rest++;
		char *end = strchrnul(rest, '/');
		bool last = true;
		for (char *q = end; *q; q++)
			if (*q != '/') {
				last = false;
				break;
			}
		/* "file/" is no file: a trailing slash asks for a directory */
		bool dir_only = last && *end == '/';
		char comp[NAME_MAX + 1];
		size_t len = (size_t)(end - rest);
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(comp, rest, len);
		comp[len] = '\0';
		rest = end;
		if (len == 0 || strcmp(comp, ".") == 0) {
			if (last)
				break;
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			struct stat st;
			if (fstat(cur, &st) < 0)
				return -errno;
			if (!(st.st_dev == rootst.st_dev && st.st_ino == rootst.st_ino)) {
				int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (up < 0)
					return -errno;
				close(cur);
				cur = up;
			}
			if (last)
				break;
			continue;
		}
		int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT && last && (flags & O_CREAT)) {
				if (dir_only)
					return -EISDIR;
				fd = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
				return fd < 0 ? -errno : fd;
			}
			return -errno;
		}
		struct stat st;
		if (fstat(fd, &st) < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (S_ISLNK(st.st_mode) && !(last && !dir_only && (flags & O_NOFOLLOW))) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);
			close(fd);
			if (n < 0)
				return -errno;
			target[n] = '\0';
			if (++links > MAX_SYMLINKS)
				return -ELOOP;
			size_t restlen = strlen(rest);
			if ((size_t)n + restlen + 2 > PATH_MAX * 2)
				return -ENAMETOOLONG;
			memmove(buf + n, rest, restlen + 1);
			memcpy(buf, target, (size_t)n);
			rest = buf;
			if (target[0] == '/') {
				close(cur);
				cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
				if (cur < 0)
					return -errno;
			}
			continue;
		}
		if (last) {
			if (dir_only && !S_ISDIR(st.st_mode)) {
				close(fd);
				return -ENOTDIR;
			}
			if ((flags & O_PATH) && !(flags & O_DIRECTORY))
				return fd;
			close(fd);
			fd = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
			return fd < 0 ? -errno : fd;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			return -ENOTDIR;
		}
		close(cur);
		cur = fd;
	}
	int fd = openat(cur, ".", flags | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

int cv_open_in_root_errno(int rootfd, const char *path, int flags, mode_t mode)
{
	if (!openat2_missing) {
		int fd = sys_openat2(rootfd, path, flags, mode, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
		if (fd >= 0)
			return fd;
		if (!openat2_unusable(errno))
			return -errno;
	}
	return walk_in_root(rootfd, path, flags, mode);
}

int cv_open_in_root(int rootfd, const char *path, int flags, mode_t mode, cv_error_t *err)
{
	int fd = cv_open_in_root_errno(rootfd, path, flags, mode);
	if (fd < 0)
		return cv_error(err, -fd, "open `%s` inside the rootfs", path);
	return fd;
}

/* Opens NAME inside DIRFD, which must be a directory we created or resolved
 * ourselves: no symlink may be followed and nothing may lead out of it. */
static int open_beneath(int dirfd, const char *name, int flags, mode_t mode)
{
	if (!openat2_missing) {
		int fd = sys_openat2(dirfd, name, flags, mode,
				     RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd >= 0)
			return fd;
		if (!openat2_unusable(errno))
			return -errno;
	}
	int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

static int mkdir_open(int rootfd, const char *path, bool file, int depth, cv_error_t *err);

int cv_mkdir_open_in_root(int rootfd, const char *path, bool file, cv_error_t *err)
{
	return mkdir_open(rootfd, path, file, 0, err);
}

/* A missing component that exists as a dangling symlink: create its
 * target instead, re-resolving "<dir>/<target>/<rest>" inside the root. */
static int follow_dangling(int rootfd, int parent, const char *clean, const char *comp, const char *rest, bool file,
			   int depth, cv_error_t *err)
{
	char target[PATH_MAX], next[PATH_MAX * 2];
	ssize_t n = readlinkat(parent, comp, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	int dirlen = (int)(comp - clean);
	if (dirlen > 0)
		dirlen--; /* without the '/' before comp */
	int w = target[0] == '/' ? snprintf(next, sizeof(next), "%s%s%s", target, rest ? "/" : "", rest ? rest : "")
				 : snprintf(next, sizeof(next), "%.*s/%s%s%s", dirlen, clean, target, rest ? "/" : "",
					    rest ? rest : "");
	if (w < 0 || (size_t)w >= sizeof(next))
		return cv_error(err, ENAMETOOLONG, "path `%s`", clean);
	return mkdir_open(rootfd, next, file, depth + 1, err);
}

static int mkdir_open(int rootfd, const char *path, bool file, int depth, cv_error_t *err)
{
	char clean[PATH_MAX];
	if (depth > MAX_SYMLINKS)
		return cv_error(err, ELOOP, "create `%s` inside the rootfs", path);
	int r = cv_path_clean(path, clean, sizeof(clean));
	if (r < 0)
		return cv_error(err, -r, "path `%s`", path);

	int fd = cv_open_in_root_errno(rootfd, clean, O_PATH, 0);
	if (fd >= 0)
		return fd;
	if (fd != -ENOENT)
		return cv_error(err, -fd, "open `%s` inside the rootfs", path);

	/* Find the deepest existing ancestor, resolved inside the root; below
	 * it everything is ours to create and is opened without symlinks. */
	size_t len = strlen(clean), total = len;
	char *slash = NULL;
	cleanup_close int parent = -1;
	for (;;) {
		slash = memrchr(clean, '/', len);
		if (!slash) {
			parent = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
			if (parent < 0)
				return cv_error_errno(err, "dup rootfs fd");
			break;
		}
		*slash = '\0';
		parent = cv_open_in_root_errno(rootfd, clean, O_PATH | O_DIRECTORY, 0);
		if (parent >= 0)
			break;
		if (parent != -ENOENT)
			return cv_error(err, -parent, "open `/%s` inside the rootfs", clean);
		len = (size_t)(slash - clean);
	}
	for (size_t i = 0; i < total; i++)
		if (clean[i] == '\0')
			clean[i] = '/';
	/* walk the missing components */
	char *comp = slash ? slash + 1 : clean;
	for (;;) {
		char *next = strchr(comp, '/');
		if (next)
			*next = '\0';
		bool last = next == NULL;
		int nfd;
		if (last && file) {
			nfd = open_beneath(parent, comp, O_RDONLY | O_CREAT | O_EXCL | O_NOCTTY, 0644);
			if (nfd == -EEXIST)
				nfd = open_beneath(parent, comp, O_PATH, 0);
		} else {
			if (mkdirat(parent, comp, 0755) < 0 && errno != EEXIST)
				return cv_error_errno(err, "mkdir `%s` inside the rootfs", path);
			nfd = open_beneath(parent, comp, O_PATH | O_DIRECTORY, 0);
		}
		if (nfd == -ELOOP || nfd == -ENOTDIR) {
			struct stat st;
			if (fstatat(parent, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
				cleanup_free char *saved = malloc(total + 1);
				if (!saved)
					return cv_error(err, ENOMEM, "path `%s`", path);
				memcpy(saved, clean, total + 1);
				const char *restp = next ? saved + (next + 1 - clean) : NULL;
				const char *compp = saved + (comp - clean);
				int lfd = follow_dangling(rootfd, parent, saved, compp, restp, file, depth, err);
				if (lfd >= 0 || (err && *err))
					return lfd;
			}
		}
		if (nfd < 0) {
			if (nfd == -ELOOP)
				return cv_error(
					err, ELOOP,
					"create `%s` inside the rootfs: a path component is a symlink that cannot be followed safely",
					path);
			return cv_error(err, -nfd, "create `%s` inside the rootfs", path);
		}
		if (last)
			return nfd;
		close(parent);
		parent = nfd;
		comp = next + 1;
	}
}

/* ---- procfs ---- */

/* Opened once, shared by every thread: the first to publish its fd wins,
 * the others close theirs. */
static atomic_int procfs_root = -1;

static int check_fs(int fd, long magic)
{
	struct statfs sfs;
	if (fstatfs(fd, &sfs) < 0)
		return -errno;
	return sfs.f_type == magic ? 0 : -EXDEV;
}

/* A procfs instance nobody else can overmount: a fresh detached one
 * (fsopen), else a detached clone of /proc, else /proc itself. */
static int open_procfs_root(cv_error_t *err)
{
	int cached = atomic_load(&procfs_root);
	if (cached >= 0)
		return cached;
	int fd = -1;
	int fsfd = fsopen("proc", FSOPEN_CLOEXEC);
	if (fsfd >= 0) {
		if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
			fd = fsmount(fsfd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
		close(fsfd);
	}
	if (fd < 0)
		fd = open_tree(AT_FDCWD, "/proc", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0)
		fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "open procfs");
	int r = check_fs(fd, PROC_SUPER_MAGIC);
	if (r < 0) {
		close(fd);
		return cv_error(err, -r, "`/proc` is not a procfs");
	}
	int expected = -1;
	if (!atomic_compare_exchange_strong(&procfs_root, &expected, fd)) {
		close(fd);
		return expected;
	}
	return fd;
}

int cv_procfs_root(cv_error_t *err)
{
	return open_procfs_root(err);
}

int cv_procfs_cached(void)
{
	return atomic_load(&procfs_root);
}

bool cv_procfs_shows_our_pids(void)
{
	/* per process: a child may live in a pid namespace of its own */
	static _Thread_local pid_t checked;
	static _Thread_local bool ours;
	pid_t self = getpid();
	if (checked == self)
		return ours;
	int root = cv_procfs_cached();
	char buf[4096];
	if (root < 0 || cv_read_buf_at(root, "self/status", buf, sizeof(buf)) <= 0)
		return false;
	/* NSpid lists our pid in each namespace from procfs's down to ours:
	 * a single one when procfs belongs to ours */
	const char *l = strstr(buf, "\nNSpid:");
	ours = false;
	if (l) {
		char *end;
		long first = strtol(l + 7, &end, 10);
		ours = first == (long)self && end != l + 7 && (*end == '\n' || *end == '\0');
	}
	checked = self;
	return ours;
}

int cv_procfs_open(const char *subpath, int flags, cv_error_t *err)
{
	int root = open_procfs_root(err);
	if (root < 0)
		return root;

	/* "self" and "thread-self" are symlinks: expand them to the pid this
	 * procfs instance shows for us, so nothing else needs following. */
	char path[PATH_MAX];
	const char *rest = NULL;
	bool thread = false;
	if (strncmp(subpath, "self/", 5) == 0 || strcmp(subpath, "self") == 0)
		rest = subpath + 4;
	else if (strncmp(subpath, "thread-self/", 12) == 0 || strcmp(subpath, "thread-self") == 0) {
		rest = subpath + 11;
		thread = true;
	}
	if (rest) {
		char pid[64];
		ssize_t n = readlinkat(root, thread ? "thread-self" : "self", pid, sizeof(pid) - 1);
		if (n < 0)
			return cv_error_errno(err, "readlink `/proc/%s`", thread ? "thread-self" : "self");
		pid[n] = '\0';
		if (snprintf(path, sizeof(path), "%s%s", pid, rest) >= (int)sizeof(path))
			return cv_error(err, ENAMETOOLONG, "`/proc/%s`", subpath);
		subpath = path;
	}

	struct open_how how = {
		.flags = (uint64_t)flags | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd = (int)syscall(SYS_openat2, root, subpath, &how, sizeof(how));
	if (fd < 0 && openat2_unusable(errno))
		fd = openat(root, subpath, flags | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return cv_error_errno(err, "open `/proc/%s`", subpath);
	int r = check_fs(fd, PROC_SUPER_MAGIC);
	if (r < 0) {
		close(fd);
		return cv_error(err, -r, "`/proc/%s` is not on procfs", subpath);
	}
	return fd;
}

int cv_procfs_write(const char *subpath, const char *data, size_t len, cv_error_t *err)
{
	cleanup_close int fd = cv_procfs_open(subpath, O_WRONLY, err);
	int r;
	if (fd < 0)
		return fd;
	if ((r = cv_write_all(fd, data, len)) < 0)
		return cv_error(err, -r, "write `/proc/%s`", subpath);
	return 0;
}

/* ---- files written into directories a container can write ---- */

int cv_open_parent_dir(const char *path, const char **name, cv_error_t *err)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return cv_error(err, EINVAL, "`%s`: not a file name", path);
	cleanup_free char *dir = NULL;
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return cv_error(err, ENOMEM, "`%s`", path);
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "`%s`: open its directory `%s`", path, dir);
	*name = base;
	return fd;
}
