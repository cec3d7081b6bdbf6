/* /dev inside the container: default device nodes, linux.devices, the
 * standard symlinks and /dev/console. Nodes are made with mknodat relative
 * to a directory fd resolved inside the rootfs, never through a path string
 * the container could have replaced with a symlink (CVE-2025-52565 class). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"
#include "fs/mounts-internal.h"
#include "fs/safe-path.h"
#include "process/namespaces.h"

struct dev_node {
	const char *path;
	mode_t type;
	unsigned major, minor;
	mode_t mode;
	uid_t uid;
	gid_t gid;
};

static const struct dev_node default_devices[] = {
	{ "/dev/null", S_IFCHR, 1, 3, 0666, 0, 0 },    { "/dev/zero", S_IFCHR, 1, 5, 0666, 0, 0 },
	{ "/dev/full", S_IFCHR, 1, 7, 0666, 0, 0 },    { "/dev/random", S_IFCHR, 1, 8, 0666, 0, 0 },
	{ "/dev/urandom", S_IFCHR, 1, 9, 0666, 0, 0 }, { "/dev/tty", S_IFCHR, 5, 0, 0666, 0, 0 },
};

static int open_nofollow(int dirfd, const char *name, int flags)
{
	struct open_how how = { .flags = (uint64_t)flags | O_CLOEXEC | O_NOFOLLOW,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(dirfd, name, flags | O_CLOEXEC | O_NOFOLLOW);
	return fd;
}

/* Splits PATH into the fd of its parent directory (created inside the
 * rootfs when missing) and its last component. */
static int open_parent(int rootfd, const char *path, char *base, size_t baselen, cv_error_t *err)
{
	char clean[PATH_MAX];
	int r = cv_path_clean(path, clean, sizeof(clean));
	if (r < 0)
		return cv_error(err, -r, "device `%s`", path);
	if (strcmp(clean, ".") == 0)
		return cv_error(err, EINVAL, "device path `%s` is the root", path);
	char *slash = strrchr(clean, '/');
	const char *b = slash ? slash + 1 : clean;
	if (strlen(b) >= baselen)
		return cv_error(err, ENAMETOOLONG, "device `%s`", path);
	strcpy(base, b);
	if (!slash) {
		int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? cv_error_errno(err, "dup rootfs fd") : fd;
	}
	*slash = '\0';
	return cv_mkdir_open_in_root(rootfd, clean, false, err);
}

static int make_node(int rootfd, const struct dev_node *d, bool bind, cv_error_t *err)
{
	char base[NAME_MAX + 1];
	cleanup_close int dir = open_parent(rootfd, d->path, base, sizeof(base), err);
	if (dir < 0)
		return -1;
	dev_t rdev = makedev(d->major, d->minor);

	if (bind) {
		/* In a user namespace mknod is not allowed: bind the host's node
		 * onto an empty file, after checking it is the device asked for. */
		cleanup_close int src = open_tree(AT_FDCWD, d->path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (src < 0)
			return cv_error_errno(err, "bind device `%s` from the host", d->path);
		struct stat st;
		if (fstat(src, &st) < 0)
			return cv_error_errno(err, "stat host device `%s`", d->path);
		if ((st.st_mode & S_IFMT) != d->type || st.st_rdev != rdev)
			return cv_error(err, EINVAL, "host `%s` is not device %u:%u", d->path, d->major, d->minor);
		int fd = open_nofollow(dir, base, O_RDONLY | O_CREAT | O_NOCTTY);
		if (fd < 0 && (errno == ELOOP || errno == EISDIR))
			return cv_error_errno(err, "device `%s` in the rootfs", d->path);
		if (fd < 0) {
			/* an existing node we may not open: mount over it anyway */
			fd = open_nofollow(dir, base, O_PATH);
			if (fd < 0)
				return cv_error_errno(err, "create `%s` in the rootfs", d->path);
		}
		cleanup_close int dest = fd;
		return cv_attach_mount(src, dest, d->path, d->path, err);
	}

	mode_t old = umask(0);
	int r = mknodat(dir, base, d->type | (d->mode & 07777), rdev);
	if (r < 0 && errno == EEXIST) {
		struct stat st;
		if (fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == d->type &&
		    st.st_rdev == rdev) {
			r = 0; /* already the right device: keep it, fix owner and mode below */
			if (fchmodat(dir, base, d->mode & 07777, 0) < 0)
				r = -1;
		} else if (unlinkat(dir, base, 0) == 0) {
			r = mknodat(dir, base, d->type | (d->mode & 07777), rdev);
		}
	}
	int saved = errno;
	umask(old);
	if (r < 0) {
		errno = saved;
		return cv_error_errno(err, "mknod `%s`", d->path);
	}
	if (d->uid || d->gid) {
		cleanup_close int fd = open_nofollow(dir, base, O_PATH);
		if (fd < 0)
			return cv_error_errno(err, "open `%s`", d->path);
		if (fchownat(fd, "", d->uid, d->gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return cv_error_errno(err, "chown `%s` to %u:%u", d->path, d->uid, d->gid);
	}
	return 0;
}

static int make_link(int devfd, const char *target, const char *name, bool replace, cv_error_t *err)
{
	if (symlinkat(target, devfd, name) == 0)
		return 0;
	if (errno != EEXIST)
		return cv_error_errno(err, "symlink `/dev/%s` -> `%s`", name, target);
	if (!replace)
		return 0; /* the image's own entry wins, as with runc */
	if (unlinkat(devfd, name, 0) < 0 || symlinkat(target, devfd, name) < 0)
		return cv_error_errno(err, "symlink `/dev/%s` -> `%s`", name, target);
	return 0;
}

static int setup_console(int devfd, int console_fd, cv_error_t *err)
{
	struct stat cst;
	if (fstat(console_fd, &cst) < 0)
		return cv_error_errno(err, "stat console");
	/* open_tree on a descriptor from another mount namespace is refused;
	 * go through its path in ours and check it is the same terminal. */
	cleanup_close int src = open_tree(console_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (src < 0) {
		char link[64], path[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", console_fd);
		ssize_t n = readlink(link, path, sizeof(path) - 1);
		if (n < 0)
			return cv_error_errno(err, "readlink `%s`", link);
		path[n] = '\0';
		src = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (src < 0)
			return cv_error_errno(err, "bind console `%s`", path);
		struct stat st;
		if (fstat(src, &st) < 0)
			return cv_error_errno(err, "stat `%s`", path);
		if (!S_ISCHR(st.st_mode) || st.st_rdev != cst.st_rdev)
			return cv_error(err, EINVAL, "console `%s` is not the container's terminal", path);
	}
	int fd = open_nofollow(devfd, "console", O_RDONLY | O_CREAT | O_NOCTTY);
	if (fd < 0 && errno != ELOOP && errno != EISDIR)
		fd = open_nofollow(devfd, "console", O_PATH);
	if (fd < 0)
		return cv_error_errno(err, "create `/dev/console`");
	cleanup_close int dest = fd;
	return cv_attach_mount(src, dest, "console", "/dev/console", err);
}

int cv_devices_setup(int rootfd, const struct cv_rootfs_config *cfg, cv_error_t *err)
{
	const oci_linux *lx = cfg->spec->linux_;
	bool setup_dev = !cv_spec_binds_dev(cfg->spec);
	/* mknod needs the initial user namespace: in any other, bind the host's */
	bool bind = cfg->new_userns || cv_ns_in_user_namespace();

	if (setup_dev) {
		for (size_t i = 0; i < sizeof(default_devices) / sizeof(default_devices[0]); i++) {
			/* a linux.devices entry for the same path overrides the default */
			bool overridden = false;
			for (size_t j = 0; lx && j < lx->devices_len; j++)
				if (strcmp(lx->devices[j].path, default_devices[i].path) == 0)
					overridden = true;
			if (!overridden && make_node(rootfd, &default_devices[i], bind, err) < 0)
				return -1;
		}
	}
	for (size_t i = 0; lx && i < lx->devices_len; i++) {
		const oci_device *od = &lx->devices[i];
		struct dev_node d = { .path = od->path, .major = (unsigned)od->major, .minor = (unsigned)od->minor };
		const char *t = od->type ? od->type : "";
		if (strcmp(t, "c") == 0 || strcmp(t, "u") == 0)
			d.type = S_IFCHR;
		else if (strcmp(t, "b") == 0)
			d.type = S_IFBLK;
		else if (strcmp(t, "p") == 0)
			d.type = S_IFIFO;
		else
			return cv_error(err, EINVAL, "linux.devices: `%s`: unknown type `%s`", od->path, t);
		d.mode = od->file_mode.set ? od->file_mode.v : 0666;
		d.uid = od->uid.set ? od->uid.v : 0;
		d.gid = od->gid.set ? od->gid.v : 0;
		if (make_node(rootfd, &d, bind && d.type != S_IFIFO, err) < 0)
			return cv_error_prefix(err, "linux.devices");
	}
	if (!setup_dev)
		return 0;

	cleanup_close int devfd = cv_mkdir_open_in_root(rootfd, "/dev", false, err);
	if (devfd < 0)
		return -1;
	int dfd = devfd;
	static const struct {
		const char *target, *name;
		bool replace;
	} links[] = {
		{ "/proc/self/fd", "fd", false },       { "/proc/self/fd/0", "stdin", false },
		{ "/proc/self/fd/1", "stdout", false }, { "/proc/self/fd/2", "stderr", false },
		{ "pts/ptmx", "ptmx", true },
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (make_link(dfd, links[i].target, links[i].name, links[i].replace, err) < 0)
			return -1;
	/* /dev/core only where the kernel has a core image, as runc does */
	if (access("/proc/kcore", F_OK) == 0 && make_link(dfd, "/proc/kcore", "core", false, err) < 0)
		return -1;
	if (cfg->console_fd >= 0 && setup_console(dfd, cfg->console_fd, err) < 0)
		return -1;
	return 0;
}

/* The container's pty slave over <rootfs>/dev/console, for a pty the
 * container process allocates after cv_rootfs_prepare (its devpts only
 * exists then); same resolution as cfg->console_fd above. */
int cv_rootfs_bind_console(const struct cv_rootfs_config *cfg, int slave_fd, cv_error_t *err)
{
	cleanup_close int rootfd = cv_rootfs_open(cfg, err);
	if (rootfd < 0)
		return -1;
	cleanup_close int devfd = cv_mkdir_open_in_root(rootfd, "/dev", false, err);
	if (devfd < 0)
		return -1;
	return setup_console(devfd, slave_fd, err);
}
