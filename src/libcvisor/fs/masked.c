/* maskedPaths and readonlyPaths, after pivot_root. A masked file gets a
 * bind of /dev/null, and that /dev/null is first checked to be the real
 * character device 1:3 through the fd it is bound from, so a container
 * that replaced it (CVE-2025-31133 class) cannot get a host path bound
 * writable instead. A masked directory gets an empty read-only tmpfs. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"
#include "fs/mounts-internal.h"
#include "fs/safe-path.h"

int cv_masked_paths(const oci_spec *spec, cv_error_t *err)
{
	const oci_linux *lx = spec->linux_;
	if (!lx || lx->masked_paths.len == 0)
		return 0;
	cleanup_close int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return cv_error_errno(err, "open `/`");
	cleanup_close int null = -1, empty = -1;

	/* Out of our reach is out of the process's too, when it gets no group
	 * we lack: its ids are ours or map to the same host ids (a user
	 * namespace's root or first mapped ids, see become_userns_owner), and
	 * our capabilities cover at least what it keeps. */
	bool unreachable_ok = !spec->process || spec->process->user.additional_gids_len == 0;
	for (size_t i = 0; i < lx->masked_paths.len; i++) {
		const char *path = lx->masked_paths.v[i];
		cleanup_close int dest = cv_open_in_root_errno(root, path, O_PATH, 0);
		if (dest < 0) {
			int e = -dest;
			if (e == ENOENT || (e == EACCES && unreachable_ok)) {
				if (e == EACCES)
					cv_debug("maskedPaths: `%s` is out of reach, nothing to mask", path);
				continue;
			}
			return cv_error(err, e, "maskedPaths: open `%s` inside the rootfs", path);
		}
		struct stat st;
		if (fstat(dest, &st) < 0)
			return cv_error_errno(err, "maskedPaths: stat `%s`", path);
		cleanup_close int tree = -1;
		if (S_ISDIR(st.st_mode)) {
			if (empty < 0) {
				/* The first directory gets the new tmpfs itself, the
				 * others clones of it once attached: a detached mount
				 * closed unattached costs an RCU grace period (its
				 * dissolve waits for one), and kernels before 6.15
				 * refuse to clone one that was never attached. */
				static const char *const opts[] = { "size=0", "mode=0555" };
				empty = cv_fs_new("tmpfs", "tmpfs", opts, 2,
						  MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
							  MOUNT_ATTR_NOEXEC,
						  err);
				if (empty < 0 || cv_attach_mount(empty, dest, "tmpfs", path, err) < 0)
					return cv_error_prefix(err, "maskedPaths");
				continue;
			}
			tree = open_tree(empty, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		} else {
			if (null < 0) {
				null = cv_open_in_root(root, "/dev/null", O_PATH, 0, err);
				if (null < 0)
					return cv_error_prefix(err, "maskedPaths");
				struct stat ns;
				if (fstat(null, &ns) < 0)
					return cv_error_errno(err, "maskedPaths: stat `/dev/null`");
				if (!S_ISCHR(ns.st_mode) || ns.st_rdev != makedev(1, 3))
					return cv_error(err, EPERM,
							"maskedPaths: `/dev/null` is not the null device (1:3)");
			}
			tree = open_tree(null, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		}
		if (tree < 0)
			return cv_error_errno(err, "maskedPaths: clone mount for `%s`", path);
		if (cv_attach_mount(tree, dest, S_ISDIR(st.st_mode) ? "tmpfs" : "/dev/null", path, err) < 0)
			return cv_error_prefix(err, "maskedPaths");
	}
	return 0;
}

int cv_readonly_paths(const oci_spec *spec, cv_error_t *err)
{
	const oci_linux *lx = spec->linux_;
	if (!lx || lx->readonly_paths.len == 0)
		return 0;
	cleanup_close int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return cv_error_errno(err, "open `/`");
	for (size_t i = 0; i < lx->readonly_paths.len; i++) {
		const char *path = lx->readonly_paths.v[i];
		cleanup_close int dest = cv_open_in_root_errno(root, path, O_PATH, 0);
		if (dest < 0) {
			if (dest == -ENOENT)
				continue;
			return cv_error(err, -dest, "readonlyPaths: open `%s` inside the rootfs", path);
		}
		cleanup_close int tree = open_tree(dest, "",
						   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
		if (tree < 0)
			return cv_error_errno(err, "readonlyPaths: bind `%s`", path);
		/* only ro is added: nosuid/nodev/noexec of the source stay */
		if (cv_setattr_keep_locked(tree, true, MOUNT_ATTR_RDONLY, 0, path, err) < 0)
			return cv_error_prefix(err, "readonlyPaths");
		if (cv_attach_mount(tree, dest, path, path, err) < 0)
			return cv_error_prefix(err, "readonlyPaths");
	}
	return 0;
}
