/* The root of the container: propagation so nothing leaks to the host,
 * the rootfs made a mount point (a recursive clone, read-only throughout
 * when root.readonly), then pivot_root (or MS_MOVE + chroot; without a
 * mount namespace of its own, a chroot alone). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"
#include "fs/mounts-internal.h"
#include "fs/safe-path.h"

static int parse_propagation(const char *s, unsigned long *out, cv_error_t *err)
{
	static const struct {
		const char *name;
		unsigned long flags;
	} table[] = {
		{ "private", MS_PRIVATE },       { "rprivate", MS_PRIVATE | MS_REC },
		{ "slave", MS_SLAVE },           { "rslave", MS_SLAVE | MS_REC },
		{ "shared", MS_SHARED },         { "rshared", MS_SHARED | MS_REC },
		{ "unbindable", MS_UNBINDABLE }, { "runbindable", MS_UNBINDABLE | MS_REC },
	};
	if (!s || !*s) {
		*out = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].name, s) == 0) {
			*out = table[i].flags;
			return 0;
		}
	return cv_error(err, EINVAL, "linux.rootfsPropagation: unknown value `%s`", s);
}

/* pivot_root refuses shared parents; when propagation leaves mounts
 * shared, make the mount holding the rootfs private (in our namespace
 * only: it is a copy of the host's). */
static int make_parent_private(const char *rootfs, cv_error_t *err)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s", rootfs) >= (int)sizeof(path))
		return cv_error(err, ENAMETOOLONG, "rootfs `%s`", rootfs);
	for (;;) {
		struct statx stx;
		if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &stx) < 0)
			return cv_error_errno(err, "statx `%s`", path);
		if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
			break;
		char *slash = strrchr(path, '/');
		if (!slash || slash == path) {
			strcpy(path, "/");
			break;
		}
		*slash = '\0';
	}
	if (mount(NULL, path, NULL, MS_PRIVATE, NULL) < 0)
		return cv_error_errno(err, "make `%s` private", path);
	return 0;
}

static bool leaves_shared(unsigned long prop)
{
	return !(prop & MS_REC) || (prop & MS_SHARED);
}

/* The rootfs staged by stage_rootfs, until cv_rootfs_finalize takes it:
 * the state of one root being set up, by one thread (the container process
 * is single-threaded; threads of an embedding program never share one). */
static _Thread_local int rootfd = -1;

/* ---- a root without what the host has below the hidden paths ---- */

static bool path_under(const char *path, const char *dir, size_t n)
{
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/* The annotation's paths, cleaned ("dev", "proc"), each checked to be the
 * destination of one of the spec's mounts: hiding anything else would show
 * what the host has under its own mount point there. */
static int hidden_paths(const oci_spec *spec, const char *v, char ***out, cv_error_t *err)
{
	cleanup_strv char **list = NULL;
	size_t n = 0;
	for (const char *p = v; *p;) {
		size_t l = strcspn(p, ",");
		char want[PATH_MAX], clean[PATH_MAX];
		if (l == 0 || l >= sizeof(want) || p[0] != '/')
			return cv_error(err, EINVAL,
					"annotation " CV_ROOTFS_ANNOTATION_HIDE
					": `%.*s` in `%s`: an absolute path is needed",
					(int)l, p, v);
		snprintf(want, sizeof(want), "%.*s", (int)l, p);
		if (cv_path_clean(want, clean, sizeof(clean)) < 0 || !clean[0])
			return cv_error(err, EINVAL,
					"annotation " CV_ROOTFS_ANNOTATION_HIDE ": `%s`: not a path below the root",
					want);
		bool mounted = false;
		for (size_t i = 0; i < spec->mounts_len && !mounted; i++) {
			char dest[PATH_MAX];
			mounted = cv_path_clean(spec->mounts[i].destination, dest, sizeof(dest)) == 0 &&
				  strcmp(dest, clean) == 0;
		}
		if (!mounted)
			return cv_error(err, EINVAL,
					"annotation " CV_ROOTFS_ANNOTATION_HIDE
					": `%s` is not the destination of a mount",
					want);
		char **nl = realloc(list, (n + 2) * sizeof(*nl));
		if (!nl)
			return cv_error(err, ENOMEM, "annotation " CV_ROOTFS_ANNOTATION_HIDE);
		list = nl;
		if (!(list[n] = strdup(clean)))
			return cv_error(err, ENOMEM, "annotation " CV_ROOTFS_ANNOTATION_HIDE);
		list[++n] = NULL;
		p += l + (p[l] == ',');
	}
	*out = steal_pointer(&list);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The host's mount points below ROOTFS, relative, but for those at or below
 * a hidden path: only the outermost ones (a recursive copy of each brings
 * what is below it), sorted. */
static int mounts_to_keep(const char *rootfs, char *const *hidden, char ***out, cv_error_t *err)
{
	cleanup_free char *mi = cv_read_small("/proc/self/mountinfo", err);
	if (!mi)
		return -1;
	size_t rl = strlen(rootfs), n = 0;
	cleanup_strv char **keep = calloc(1, sizeof(*keep));
	if (!keep)
		return cv_error(err, ENOMEM, "rootfs mounts");
	for (char *line = mi, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char mp[PATH_MAX];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		cv_mountinfo_unescape(mp);
		if (!path_under(mp, rootfs, rl) || mp[rl == 1 ? 1 : rl] == '\0')
			continue;
		const char *rel = mp + rl + (rl > 1);
		bool hide = false;
		for (char *const *h = hidden; *h && !hide; h++)
			hide = path_under(rel, *h, strlen(*h));
		if (hide)
			continue;
		char **nk = realloc(keep, (n + 2) * sizeof(*nk));
		if (!nk)
			return cv_error(err, ENOMEM, "rootfs mounts");
		keep = nk;
		if (!(keep[n] = strdup(rel)))
			return cv_error(err, ENOMEM, "rootfs mounts");
		keep[++n] = NULL;
	}
	qsort(keep, n, sizeof(*keep), cmp_str);
	/* sorted, a path below another kept one follows it */
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept && path_under(keep[i], keep[kept - 1], strlen(keep[kept - 1]))) {
			free(keep[i]);
			continue;
		}
		keep[kept++] = keep[i];
	}
	keep[kept] = NULL;
	*out = steal_pointer(&keep);
	return 0;
}

int cv_rootfs_pruned_prepare(const oci_spec *spec, const char *rootfs, struct cv_rootfs_pruned *out, cv_error_t *err)
{
	out->tree = -1;
	out->keep = NULL;
	out->subs = NULL;
	const char *v = oci_kv_get(&spec->annotations, CV_ROOTFS_ANNOTATION_HIDE);
	if (!v)
		return 0;
	cleanup_strv char **hidden = NULL;
	if (hidden_paths(spec, v, &hidden, err) < 0)
		return -1;
	cleanup_close int tree = open_tree(AT_FDCWD, rootfs, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0 && (errno == EPERM || errno == EINVAL)) {
		/* not root, or mounts below it we may not uncover (we are in
		 * a user namespace ourselves): the whole tree then, whose
		 * mounts are no secret to us either */
		cv_debug("rootfs `%s`: cannot be copied alone (%s), nothing hidden", rootfs, strerror(errno));
		return 0;
	}
	if (tree < 0)
		return cv_error_errno(err, "copy rootfs `%s`", rootfs);
	if (cv_detach_from_host(tree, spec, rootfs, err) < 0 || mounts_to_keep(rootfs, hidden, &out->keep, err) < 0)
		return -1;
	size_t n = 0;
	while (out->keep[n])
		n++;
	if (!(out->subs = malloc((n + 1) * sizeof(int))))
		return cv_error(err, ENOMEM, "rootfs mounts");
	for (size_t i = 0; i <= n; i++)
		out->subs[i] = -1;
	for (size_t i = 0; i < n; i++) {
		char abs[PATH_MAX];
		snprintf(abs, sizeof(abs), "%s/%s", strcmp(rootfs, "/") ? rootfs : "", out->keep[i]);
		out->subs[i] = open_tree(AT_FDCWD, abs, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (out->subs[i] < 0)
			return cv_error_errno(err, "rootfs: copy the host's mount `%s`", abs);
		if (cv_detach_from_host(out->subs[i], spec, abs, err) < 0)
			return -1;
	}
	out->tree = steal_fd(&tree);
	return 0;
}

void cv_rootfs_pruned_release(struct cv_rootfs_pruned *p)
{
	if (p->tree >= 0)
		close(p->tree);
	p->tree = -1;
	for (size_t i = 0; p->subs && p->keep && p->keep[i]; i++)
		if (p->subs[i] >= 0)
			close(p->subs[i]);
	free(p->subs);
	p->subs = NULL;
	cv_strv_freep(&p->keep);
	p->keep = NULL;
}

/* The pruned copy over ROOTFS, with the copy of each kept host mount (each
 * with what is below it, made by cv_rootfs_pruned_prepare) attached where
 * it was. */
static int attach_pruned(const struct cv_rootfs_config *cfg, int tree, cv_error_t *err)
{
	const struct cv_rootfs_pruned *pr = cfg->pruned;
	if (move_mount(tree, "", AT_FDCWD, cfg->rootfs, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return cv_error_errno(err, "bind rootfs `%s` onto itself", cfg->rootfs);
	for (size_t i = 0; pr->keep && pr->keep[i]; i++) {
		cleanup_close int dest = cv_open_in_root(tree, pr->keep[i], O_PATH, 0, err);
		if (dest < 0 || cv_attach_mount(pr->subs[i], dest, pr->keep[i], pr->keep[i], err) < 0)
			return cv_error_prefix(err, "rootfs");
	}
	return 0;
}

/* The annotation as MOUNT_ATTR_* bits (0 when absent); an unknown flag is an
 * error naming it. */
static int rootfs_flags(const oci_spec *spec, uint64_t *out, cv_error_t *err)
{
	static const struct {
		const char *name;
		uint64_t attr;
	} table[] = {
		{ "nosuid", MOUNT_ATTR_NOSUID },
		{ "nodev", MOUNT_ATTR_NODEV },
		{ "noexec", MOUNT_ATTR_NOEXEC },
	};
	*out = 0;
	const char *v = oci_kv_get(&spec->annotations, CV_ROOTFS_ANNOTATION_FLAGS);
	if (!v)
		return 0;
	for (const char *p = v;;) {
		size_t n = strcspn(p, ",");
		size_t k = 0;
		while (k < sizeof(table) / sizeof(table[0]) &&
		       !(strlen(table[k].name) == n && !strncmp(p, table[k].name, n)))
			k++;
		if (k == sizeof(table) / sizeof(table[0]))
			return cv_error(err, EINVAL,
					"annotation " CV_ROOTFS_ANNOTATION_FLAGS
					": unknown flag `%.*s` in `%s` (known: nosuid, nodev, noexec)",
					(int)n, p, v);
		*out |= table[k].attr;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* The rootfs becomes a mount of its own by a recursive clone of root.path,
 * attached over it: root.path may then be any directory, the host's "/"
 * too (a bind of "/" onto itself is not reachable as "/"; the clone's fd
 * is). A read-only root makes every mount the clone brings along read-only;
 * its top stays writable for mount points until cv_rootfs_finalize. */
static int stage_rootfs(const struct cv_rootfs_config *cfg, cv_error_t *err)
{
	uint64_t set;
	if (rootfs_flags(cfg->spec, &set, err) < 0)
		return -1;
	bool ro = cfg->spec->root && cfg->spec->root->readonly;
	bool pruned = cfg->pruned && cfg->pruned->tree >= 0;
	if (cfg->no_pivot && strcmp(cfg->rootfs, "/") == 0)
		return cv_error(err, EINVAL, "root.path `/`: --no-pivot cannot move the host's root onto itself");
	cleanup_close int tree = pruned ? fcntl(cfg->pruned->tree, F_DUPFD_CLOEXEC, 3)
					: open_tree(AT_FDCWD, cfg->rootfs,
						    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (tree < 0)
		return cv_error_errno(err, "bind rootfs `%s`", cfg->rootfs);
	/* the pruned copy is attached first, with the host mounts it keeps:
	 * its flags are set on the whole of it then */
	if (pruned && attach_pruned(cfg, tree, err) < 0)
		return -1;
	struct statvfs sv;
	if (ro && fstatvfs(tree, &sv) < 0)
		return cv_error_errno(err, "statvfs rootfs `%s`", cfg->rootfs);
	if (cv_setattr_keep_locked(tree, true, set | (ro ? MOUNT_ATTR_RDONLY : 0), 0, cfg->rootfs, err) < 0)
		return cv_error_prefix(err, "rootfs");
	if (ro && !(sv.f_flag & ST_RDONLY) &&
	    cv_setattr_keep_locked(tree, false, 0, MOUNT_ATTR_RDONLY, cfg->rootfs, err) < 0)
		return cv_error_prefix(err, "rootfs");
	if (!pruned && move_mount(tree, "", AT_FDCWD, cfg->rootfs, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return cv_error_errno(err, "bind rootfs `%s` onto itself", cfg->rootfs);
	if (rootfd >= 0)
		close(rootfd);
	rootfd = steal_fd(&tree);
	return 0;
}

int cv_rootfs_open(const struct cv_rootfs_config *cfg, cv_error_t *err)
{
	int fd = rootfd >= 0 ? openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)
			     : open(cfg->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "open rootfs `%s`", cfg->rootfs);
	return fd;
}

/* 1 when the last mount is a sysfs that may wait for the devices: it shows
 * a network namespace still in the making (cv_rootfs_config.net_ready),
 * which gets their time too; nothing of /dev can be at or below it. */
static size_t sysfs_after_devices(const struct cv_rootfs_config *cfg)
{
	size_t n = cfg->spec->mounts_len;
	if (!cfg->net_ready || n == 0)
		return 0;
	const oci_mount *m = &cfg->spec->mounts[n - 1];
	char dest[PATH_MAX];
	if (!m->type || strcmp(m->type, "sysfs") != 0 || !m->destination ||
	    cv_path_clean(m->destination, dest, sizeof(dest)) < 0)
		return 0;
	return strcmp(dest, ".") != 0 && !path_under(dest, "dev", 3) ? 1 : 0;
}

int cv_rootfs_prepare(const struct cv_rootfs_config *cfg, cv_error_t *err)
{
	const oci_linux *lx = cfg->spec->linux_;
	unsigned long prop;
	if (parse_propagation(lx ? lx->rootfs_propagation : NULL, &prop, err) < 0)
		return -1;
	if (!prop)
		prop = MS_SLAVE | MS_REC;

	/* Nothing we mount from here on may reach the host: unless the mounts
	 * are meant to be the caller's (no mount namespace of our own). */
	if (!cfg->no_mount_ns && mount(NULL, "/", NULL, prop, NULL) < 0)
		return cv_error_errno(err, "set propagation of `/`");
	if (!cfg->no_mount_ns && leaves_shared(prop) && make_parent_private(cfg->rootfs, err) < 0)
		return -1;
	if (stage_rootfs(cfg, err) < 0)
		return -1;

	size_t n = cfg->spec->mounts_len, late = sysfs_after_devices(cfg);
	for (size_t i = 0; i < n - late; i++)
		if (cv_mount_one(rootfd, &cfg->spec->mounts[i], cfg, err) < 0)
			return -1;
	if (cv_devices_setup(rootfd, cfg, err) < 0)
		return -1;
	return late ? cv_mount_one(rootfd, &cfg->spec->mounts[n - 1], cfg, err) : 0;
}

int cv_rootfs_finalize(const struct cv_rootfs_config *cfg, cv_error_t *err)
{
	const oci_linux *lx = cfg->spec->linux_;
	unsigned long prop;
	if (parse_propagation(lx ? lx->rootfs_propagation : NULL, &prop, err) < 0)
		return -1;
	cleanup_close int newroot = rootfd >= 0 ? steal_fd(&rootfd) : cv_rootfs_open(cfg, err);
	if (newroot < 0)
		return -1;
	if (fchdir(newroot) < 0)
		return cv_error_errno(err, "chdir to rootfs `%s`", cfg->rootfs);

	if (cfg->no_mount_ns) {
		/* the caller's namespace: its root stays where it is */
		if (chroot(".") < 0)
			return cv_error_errno(err, "chroot `%s`", cfg->rootfs);
	} else if (cfg->no_pivot) {
		if (mount(".", "/", NULL, MS_MOVE, NULL) < 0)
			return cv_error_errno(err, "move rootfs `%s` to `/`", cfg->rootfs);
		if (chroot(".") < 0)
			return cv_error_errno(err, "chroot `%s`", cfg->rootfs);
	} else {
		/* The old root may be shared (rootfsPropagation shared); it is
		 * thrown away, so making it private first costs nothing. */
		if (prop && leaves_shared(prop) && mount(NULL, "/", NULL, MS_PRIVATE, NULL) < 0)
			return cv_error_errno(err, "make old root private");
		cleanup_close int oldroot = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (oldroot < 0)
			return cv_error_errno(err, "open `/`");
		/* pivot_root(".", "."): the old root ends up stacked on "." and
		 * is lazily detached, with no directory needed for it. */
		if (syscall(SYS_pivot_root, ".", ".") < 0)
			return cv_error_errno(err, "pivot_root to `%s`", cfg->rootfs);
		/* Keep the unmount from propagating to the host. Through the fd:
		 * mount(2) on "." would reach the new root below the old one,
		 * turning the container's shared mounts into private ones. */
		struct mount_attr slave = { .propagation = MS_SLAVE };
		if (mount_setattr(oldroot, "", AT_EMPTY_PATH | AT_RECURSIVE, &slave, sizeof(slave)) < 0)
			return cv_error_errno(err, "make old root slave");
		if (umount2(".", MNT_DETACH) < 0)
			return cv_error_errno(err, "detach old root");
	}
	if (chdir("/") < 0)
		return cv_error_errno(err, "chdir `/`");

	if (cv_masked_paths(cfg->spec, err) < 0 || cv_readonly_paths(cfg->spec, err) < 0)
		return -1;
	if (cfg->spec->root && cfg->spec->root->readonly) {
		cleanup_close int r = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (r < 0)
			return cv_error_errno(err, "open `/`");
		if (cv_setattr_keep_locked(r, false, MOUNT_ATTR_RDONLY, 0, "/", err) < 0)
			return cv_error_prefix(err, "read-only root");
	}
	if (prop && !cfg->no_mount_ns && mount(NULL, "/", NULL, prop, NULL) < 0)
		return cv_error_errno(err, "set rootfsPropagation of `/`");
	return 0;
}

int cv_rootfs_mount_id(const char *rootfs, uint64_t *id, cv_error_t *err)
{
	struct statx stx;
	if (statx(AT_FDCWD, rootfs, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0)
		return cv_error_errno(err, "statx rootfs `%s`", rootfs);
	if (!(stx.stx_mask & STATX_MNT_ID))
		return cv_error(err, ENOSYS,
				"rootfs `%s`: no mount id from statx (Linux 5.8 or later is needed "
				"for a container without a mount namespace)",
				rootfs);
	*id = stx.stx_mnt_id;
	return 0;
}

int cv_rootfs_detach_clone(const char *rootfs, uint64_t id, cv_error_t *err)
{
	uint64_t top;
	if (cv_rootfs_mount_id(rootfs, &top, err) < 0) {
		if ((*err)->errnum != ENOENT)
			return -1;
		cv_error_release(err); /* no rootfs, nothing mounted on it */
		return 0;
	}
	if (top != id)
		return 0; /* not ours, or gone already */
	/* lazily: the container's processes may still be in it */
	if (umount2(rootfs, MNT_DETACH | UMOUNT_NOFOLLOW) < 0)
		return cv_error_errno(err, "detach the container's mounts from `%s`", rootfs);
	return 0;
}
