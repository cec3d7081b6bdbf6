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

/* The root for CV_ROOTFS_ANNOTATION_HIDE, made by the runtime in the host's
 * namespaces before the container process exists (in a user namespace, the
 * container process may copy a mount only with everything mounted below it):
 * a copy of root.path alone, and the host mounts below it to bring along. */
struct cv_rootfs_pruned {
	int tree;    /* -1: none (no annotation, or the runtime cannot make one) */
	char **keep; /* mount points to copy, relative to root.path; NULL-terminated */
	int *subs;   /* a recursive clone of each, made by the runtime (the
		      * container process may not reach them in a user
		      * namespace: a directory only root may enter above) */
};

struct cv_rootfs_config {
	const oci_spec *spec;
	const char *rootfs; /* absolute host path of root.path */
	bool no_pivot;      /* --no-pivot: MS_MOVE + chroot */
	/* no mount namespace of its own: the mounts are the caller's, on a
	 * clone of the rootfs stacked on it, propagation is left alone and the
	 * root change is a chroot (the lifecycle detaches the clone at delete) */
	bool no_mount_ns;
	int console_fd; /* pty slave to bind at /dev/console, or -1 */
	/* devices are bind-mounted from the host, not mknod'ed (so too when the
	 * runtime itself runs in a user namespace, see cv_ns_in_user_namespace) */
	bool new_userns;
	bool new_netns; /* without one, sysfs is mounted read-only */
	bool new_cgroupns;
	/* From cv_rootfs_idmap_prepare (indexed like spec->mounts), or NULL. */
	const int *mount_fds;
	/* From cv_rootfs_pruned_prepare, or NULL. */
	const struct cv_rootfs_pruned *pruned;
	/* The network namespace still in the making (cv_netns_maker): called
	 * before a mount that shows it (sysfs), or NULL. */
	int (*net_ready)(void *arg, cv_error_t *err);
	void *net_ready_arg;
	/* The v1 cgroups still in the making (cv_cgroup_config.v1_after_clone):
	 * called before a mount of a cgroup filesystem, or NULL. */
	int (*cgroup_ready)(void *arg, cv_error_t *err);
	void *cgroup_ready_arg;
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
/* Mounts the host has at or below these paths of root.path (comma
 * separated, each the destination of one of the spec's mounts, which covers
 * it anyway) are not copied into the container: they are not in its mount
 * table either (/proc/self/mountinfo). `cvisor do` sets
 * "/dev,/proc,/sys,/run,/tmp": the host's devtmpfs, cgroup filesystems,
 * network namespaces (/run/netns) and the like stay out of sight. */
#define CV_ROOTFS_ANNOTATION_HIDE "org.cvisor.rootfs.hide"
/* For the annotation: *out gets the copy of root.path alone and the list of
 * host mounts to bring along (made in the caller's namespaces, before the
 * container process); release with cv_rootfs_pruned_release. Without the
 * annotation, or when root.path cannot be copied alone (the runtime itself
 * in a user namespace), out->tree is -1 and the whole tree is copied. */
int cv_rootfs_pruned_prepare(const oci_spec *spec, const char *rootfs, struct cv_rootfs_pruned *out, cv_error_t *err);
void cv_rootfs_pruned_release(struct cv_rootfs_pruned *p);

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

/* Undoes mountinfo's escapes (\ooo for spaces and such) in place. */
void cv_mountinfo_unescape(char *s);

#endif
