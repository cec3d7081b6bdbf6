/* The container's filesystem: rootfs, the mounts of config.json, /dev,
 * masked and readonly paths, pivot_root. Runs in the container process, in
 * its new mount namespace, before any credential change. Every destination
 * is resolved inside the rootfs without following symlinks out of it. */
#ifndef CVISOR_MOUNTS_H
#define CVISOR_MOUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "oci/spec.h"

struct cv_rootfs_config {
	const oci_spec *spec;
	const char *rootfs;      /* absolute host path of root.path */
	bool no_pivot;           /* --no-pivot: MS_MOVE + chroot */
	/* no mount namespace of its own: the mounts are the caller's, on a
	 * clone of the rootfs stacked on it, propagation is left alone and the
	 * root change is a chroot (the lifecycle detaches the clone at delete) */
	bool no_mount_ns;
	int console_fd;          /* pty slave to bind at /dev/console, or -1 */
	/* devices are bind-mounted from the host, not mknod'ed (so too when the
	 * runtime itself runs in a user namespace, see cv_ns_in_user_namespace) */
	bool new_userns;
	bool new_netns;          /* without one, sysfs is mounted read-only */
	bool new_cgroupns;
	/* From cv_rootfs_idmap_prepare (indexed like spec->mounts), or NULL. */
	const int *mount_fds;
};

/* Bind mounts when the container has a user namespace, taken by the
 * runtime before it clones the container process: the kernel lets only a
 * process privileged over the source filesystem's user namespace set
 * MOUNT_ATTR_IDMAP, and a source below a directory only the host's root may
 * enter is out of the container process's reach. *fds gets, per spec mount,
 * a detached clone of the source (idmapped when asked), or -1 (not a bind
 * mount; or, from an unprivileged runtime that may not clone mounts, a bind
 * without idmap, left to the container process); *fds stays NULL when no
 * mount was taken. Not done for a config that joins a mount namespace by
 * path: its sources are resolved there. The child inherits the fds and gets
 * the array as cv_rootfs_config.mount_fds; the parent then releases its
 * copies with cv_rootfs_idmap_release(*fds, spec->mounts_len). */
int cv_rootfs_idmap_prepare(const oci_spec *spec, int **fds, cv_error_t *err);
void cv_rootfs_idmap_release(int *fds, size_t n);

/* Mount flags applied to the whole rootfs tree (the root and every mount
 * the clone of root.path brings along): a comma-separated list of nosuid,
 * nodev and noexec. `cvisor do` sets "nosuid,nodev" on the host's root. */
#define CV_ROOTFS_ANNOTATION_FLAGS "org.cvisor.rootfs.flags"
/* An O_PATH fd of the container's root as staged by cv_rootfs_prepare (the
 * path itself before that). */
int cv_rootfs_open(const struct cv_rootfs_config *cfg, cv_error_t *err);

/* Before pivot: rootfs propagation and self-bind, every spec mount, default
 * devices and /dev links. The createContainer hooks run after this. */
int cv_rootfs_prepare(const struct cv_rootfs_config *cfg, cv_error_t *err);
/* Without a mount namespace of its own, the container's mounts live in the
 * caller's namespace on the clone of root.path that cv_rootfs_prepare
 * stacks over it. The runtime takes the id of the mount ROOTFS resolves to
 * before the container process starts and once it is ready (then the
 * clone's), and detaches the clone with all the mounts on it when the
 * container goes: cv_rootfs_detach_clone does nothing unless the top mount
 * at ROOTFS is still mount ID, so a mount of someone else's (an engine's
 * overlay) is never taken away. */
int cv_rootfs_mount_id(const char *rootfs, uint64_t *id, cv_error_t *err);
int cv_rootfs_detach_clone(const char *rootfs, uint64_t id, cv_error_t *err);

/* pivot_root (or chroot with no_pivot), then masked paths, readonly paths,
 * readonly root and rootfsPropagation. Leaves cwd at the new "/". */
int cv_rootfs_finalize(const struct cv_rootfs_config *cfg, cv_error_t *err);
/* Between the two: binds SLAVE_FD (a pty of the container's own devpts)
 * over <rootfs>/dev/console. */
int cv_rootfs_bind_console(const struct cv_rootfs_config *cfg, int slave_fd, cv_error_t *err);

#endif
