/* The container's filesystem: rootfs, the mounts of config.json, /dev,
 * masked and readonly paths, pivot_root. Runs in the container process, in
 * its new mount namespace, before any credential change. Every destination
 * is resolved inside the rootfs without following symlinks out of it. */
#ifndef CVISOR_MOUNTS_H
#define CVISOR_MOUNTS_H

#include <stdbool.h>

#include "error.h"
#include "oci/spec.h"

struct cv_rootfs_config {
	const oci_spec *spec;
	const char *rootfs;      /* absolute host path of root.path */
	bool no_pivot;           /* --no-pivot: MS_MOVE + chroot */
	int console_fd;          /* pty slave to bind at /dev/console, or -1 */
	bool new_userns;         /* devices are bind-mounted from the host, not mknod'ed */
	bool new_netns;          /* without one, sysfs is mounted read-only */
	bool new_cgroupns;
};

/* Before pivot: rootfs propagation and self-bind, every spec mount, default
 * devices and /dev links. The createContainer hooks run after this. */
int cv_rootfs_prepare(const struct cv_rootfs_config *cfg, cv_error_t *err);
/* pivot_root (or chroot with no_pivot), then masked paths, readonly paths,
 * readonly root and rootfsPropagation. Leaves cwd at the new "/". */
int cv_rootfs_finalize(const struct cv_rootfs_config *cfg, cv_error_t *err);

#endif
