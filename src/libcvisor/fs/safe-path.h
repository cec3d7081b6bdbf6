/* The only ways the runtime opens paths it does not fully trust: inside a
 * container rootfs (never escaping it through symlinks or ".."), inside
 * procfs/sysfs (verified to really be procfs/sysfs, so a container cannot
 * redirect the runtime's writes: CVE-2025-52881 class), and files it writes
 * on the host into a directory a container could write to (a symlink or a
 * FIFO planted there is replaced, never followed or opened). */
#ifndef CVISOR_SAFE_PATH_H
#define CVISOR_SAFE_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* openat2(rootfd, path, RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS) with a
 * fallback fd walk on kernels without openat2. O_CLOEXEC is always added. */
int cv_open_in_root(int rootfd, const char *path, int flags, mode_t mode, cv_error_t *err);
/* The same, the fd or -errno: for a caller to whom some errors are no error
 * (a path to mask that does not exist), without a message made and dropped. */
int cv_open_in_root_errno(int rootfd, const char *path, int flags, mode_t mode);
/* Opens /proc/<subpath> (e.g. "self/oom_score_adj", "sys/net/ipv4/ip_forward"),
 * checking the result is on procfs (fstatfs PROC_SUPER_MAGIC) and was reached
 * without crossing a mount or symlink. Returns an fd (O_CLOEXEC) or < 0. */
int cv_procfs_open(const char *subpath, int flags, cv_error_t *err);
/* Writes the whole buffer to /proc/<subpath> through cv_procfs_open. */
int cv_procfs_write(const char *subpath, const char *data, size_t len, cv_error_t *err);

/* Lexically cleans PATH into OUT: no leading "/", no "." or empty
 * components, ".." folded (never above the root); "." for the root. */
int cv_path_clean(const char *path, char *out, size_t outlen);
/* Resolves PATH inside ROOTFD like cv_open_in_root, creating what is missing
 * (directories 0755; the last component an empty 0644 file when FILE).
 * Components it creates are re-opened without following symlinks, so a
 * racing swap for a symlink fails instead of leading out of the rootfs.
 * Returns an fd (O_PATH, or O_RDONLY for a created file). */
int cv_mkdir_open_in_root(int rootfd, const char *path, bool file, cv_error_t *err);
/* The verified procfs root fd itself (owned by this module, do not close):
 * for the few opens that must follow a magic link of our own child, such as
 * "<pid>/ns/user". */
int cv_procfs_root(cv_error_t *err);
/* The procfs root fd if this process has opened one, else -1 (for the
 * init, which closes everything). */
int cv_procfs_cached(void);
/* Whether the procfs of cv_procfs_root belongs to our pid namespace, so
 * that a pid from fork or clone names our child there (false when unsure). */
bool cv_procfs_shows_our_pids(void);

/* Opens (O_PATH) the directory that holds PATH's last component, as PATH
 * names it now: call it before anything untrusted runs, so that what runs
 * cannot swap a directory of the path for a symlink. *name points into PATH
 * at that last component; "", "." and ".." are refused. */
int cv_open_parent_dir(const char *path, const char **name, cv_error_t *err);

#endif
