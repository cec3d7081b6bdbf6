/* Tar archives of directory trees, through libarchive: what the sandbox
 * API's cache (cache.h) and directory copies carry.
 *
 * Writing walks the tree by fds only and never follows a symlink (one is
 * stored as a symlink). Extracting takes untrusted input: every entry is
 * created with fd-relative calls beneath the target, and an entry that
 * would leave it (an absolute path, a `..`, a path through a symlink, a
 * hard link to anything but a regular file this archive extracted), a
 * device node, or an archive beyond the limits is refused, naming the
 * entry. */
#ifndef CVISOR_FILES_ARCHIVE_H
#define CVISOR_FILES_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

enum cv_archive_format {
	CV_ARCHIVE_GZIP, /* tar.gz, the default */
	CV_ARCHIVE_NONE, /* plain tar */
	CV_ARCHIVE_ZSTD, /* tar.zst */
};

/* Parses a format name: "gzip" (also "" and NULL: the default), "none",
 * "zstd". "estargz" is EOPNOTSUPP (not implemented), any other name
 * EINVAL; both errors name it. */
int cv_archive_format_parse(const char *name, enum cv_archive_format *out, cv_error_t *err);
const char *cv_archive_format_name(enum cv_archive_format format);
/* ".tar.gz", ".tar", ".tar.zst" */
const char *cv_archive_format_suffix(enum cv_archive_format format);

/* Asked for every entry below the root before it is stored, with its path
 * relative to the root ("a/b/c", no leading "./"); true leaves it out (a
 * directory left out is not descended). */
typedef bool (*cv_archive_skip_fn)(void *arg, const char *rel_path, bool is_dir);

/* Writes an archive of the tree under DIRFD (the directory itself is not
 * an entry; its children are, as "name", "dir/name", ...) to OUT_FD.
 * Regular files, directories and symlinks, with their modes and mtimes;
 * device nodes, fifos and sockets are left out (a debug line says so).
 * Hard-linked files are stored as separate copies. Entries come in name
 * order, so the same tree gives the same bytes. SKIP may be NULL. */
int cv_archive_write(int dirfd, int out_fd, enum cv_archive_format format, cv_archive_skip_fn skip, void *skip_arg,
		     cv_error_t *err);

struct cv_archive_limits {
	uint64_t max_bytes;   /* sum of the entries' (declared) sizes */
	uint64_t max_entries; /* entries of any kind */
	size_t max_path;      /* bytes of an entry's path or link target */
};
#define CV_ARCHIVE_LIMITS_DEFAULT                                                                                      \
	((struct cv_archive_limits){ .max_bytes = UINT64_C(4) << 30, .max_entries = 1000000, .max_path = 4095 })

/* Extracts the tar, tar.gz or tar.zst read from IN_FD (detected from its
 * bytes) into the directory TARGET_DIRFD. Files belong to the caller;
 * modes are kept without setuid/setgid; mtimes are kept. An existing
 * entry of the same name is replaced (a directory is reused). LIMITS NULL:
 * CV_ARCHIVE_LIMITS_DEFAULT. On error the entry being extracted leaves
 * nothing behind; the entries before it stay (extract into a fresh
 * directory to get all or nothing). */
int cv_archive_extract(int in_fd, int target_dirfd, const struct cv_archive_limits *limits, cv_error_t *err);

/* Opens the directory that holds PATH's last component, beneath ROOT, one
 * component at a time and never through a symlink (-ELOOP); missing
 * directories are created with MODE when CREATE. *NAME points into PATH
 * at the last component. Returns an fd (O_RDONLY | O_CLOEXEC) or -errno,
 * and then leaves PATH cut after the component that failed, for the
 * caller's message. PATH has no empty, "." or ".." components. */
int cv_open_parent_beneath(int root, char *path, bool create, mode_t mode, const char **name);

#endif
