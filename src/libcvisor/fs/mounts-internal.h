/* Shared between the filesystem modules: rootfs.c (pivot, propagation),
 * mounts.c (spec mounts), devices.c (/dev), masked.c (masked/readonly). */
#ifndef CVISOR_MOUNTS_INTERNAL_H
#define CVISOR_MOUNTS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "fs/mounts.h"

/* Attaches the detached mount TREEFD on the inode DESTFD refers to. */
int cv_attach_mount(int treefd, int destfd, const char *what, const char *dest, cv_error_t *err);
/* A fresh filesystem as a detached mount: fsopen/fsconfig/fsmount. DATA is
 * an array of "key" / "key=value" options (may be NULL), ATTR MOUNT_ATTR_*. */
int cv_fs_new(const char *type, const char *source, const char *const *data, size_t ndata, uint64_t attr,
	      cv_error_t *err);
/* Mounts one config.json mount inside ROOTFD. */
int cv_mount_one(int rootfd, const oci_mount *m, const struct cv_rootfs_config *cfg, cv_error_t *err);
/* True when some mount in the spec provides /dev by a bind mount. */
bool cv_spec_binds_dev(const oci_spec *spec);
/* Default devices, linux.devices, /dev links and /dev/console. */
int cv_devices_setup(int rootfd, const struct cv_rootfs_config *cfg, cv_error_t *err);
/* After pivot_root: maskedPaths and readonlyPaths, relative to "/". */
int cv_masked_paths(const oci_spec *spec, cv_error_t *err);
int cv_readonly_paths(const oci_spec *spec, cv_error_t *err);
/* A small file of unknown size (procfs), NUL-terminated; NULL on error. */
char *cv_read_small(const char *path, cv_error_t *err);
/* A copy of a host mount made by the runtime in the host's namespaces
 * (open_tree) is a peer of the original: what the container mounts below it
 * would propagate to the host. Makes TREE (and what is below it) a slave of
 * the host's mounts, or private when the spec's rootfsPropagation is. */
int cv_detach_from_host(int tree, const oci_spec *spec, const char *what, cv_error_t *err);
/* mount_setattr wrapper that keeps flags the kernel locked on the source
 * (read with fstatvfs) when it refuses to clear them. */
int cv_setattr_keep_locked(int fd, bool recursive, uint64_t set, uint64_t clr, const char *what, cv_error_t *err);

#endif
