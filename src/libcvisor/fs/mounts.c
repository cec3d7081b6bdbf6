/* The mounts of config.json, attached onto destinations resolved inside the
 * rootfs (openat2 RESOLVE_IN_ROOT) with the new mount API: a filesystem is
 * built detached (fsopen/fsmount or open_tree), its flags are set while
 * nobody can see it (mount_setattr), then it is moved onto the destination
 * fd (move_mount). No path string is ever walked twice, so a symlink swapped
 * in by the container cannot redirect a mount to the host. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "log.h"
#include "fs/mounts-internal.h"
#include "fs/safe-path.h"
#include "process/namespaces.h"

#define ATTR_ATIME_ALL (MOUNT_ATTR__ATIME)
/* a mount table of some hundred thousand entries */
#define PROC_FILE_MAX (64u << 20)

enum opt_kind {
	K_ATTR,  /* per-mount attribute: val set, or cleared when `clear` */
	K_ATIME, /* atime mode (value inside MOUNT_ATTR__ATIME) */
	K_RATTR, /* recursive attribute */
	K_RATIME,
	K_SB, /* superblock flag, handed to fsconfig by name */
	K_BIND,
	K_RBIND,
	K_PROP, /* propagation, val = MS_* */
	K_RPROP,
	K_REMOUNT,
	K_IDMAP,
	K_RIDMAP,
	K_COPYUP, /* tmpcopyup / notmpcopyup */
	K_NOOP,   /* silent/loud: kernel log verbosity only */
};

struct mount_opt {
	const char *name;
	enum opt_kind kind;
	bool clear;
	uint64_t val;
};

static const struct mount_opt mount_opts[] = {
	{ "ro", K_ATTR, false, MOUNT_ATTR_RDONLY },
	{ "rw", K_ATTR, true, MOUNT_ATTR_RDONLY },
	{ "nosuid", K_ATTR, false, MOUNT_ATTR_NOSUID },
	{ "suid", K_ATTR, true, MOUNT_ATTR_NOSUID },
	{ "nodev", K_ATTR, false, MOUNT_ATTR_NODEV },
	{ "dev", K_ATTR, true, MOUNT_ATTR_NODEV },
	{ "noexec", K_ATTR, false, MOUNT_ATTR_NOEXEC },
	{ "exec", K_ATTR, true, MOUNT_ATTR_NOEXEC },
	{ "nodiratime", K_ATTR, false, MOUNT_ATTR_NODIRATIME },
	{ "diratime", K_ATTR, true, MOUNT_ATTR_NODIRATIME },
	{ "noatime", K_ATIME, false, MOUNT_ATTR_NOATIME },
	{ "atime", K_ATIME, true, MOUNT_ATTR_NOATIME },
	{ "relatime", K_ATIME, false, MOUNT_ATTR_RELATIME },
	{ "norelatime", K_ATIME, true, MOUNT_ATTR_RELATIME },
	{ "strictatime", K_ATIME, false, MOUNT_ATTR_STRICTATIME },
	{ "nostrictatime", K_ATIME, true, MOUNT_ATTR_STRICTATIME },
	{ "rro", K_RATTR, false, MOUNT_ATTR_RDONLY },
	{ "rrw", K_RATTR, true, MOUNT_ATTR_RDONLY },
	{ "rnosuid", K_RATTR, false, MOUNT_ATTR_NOSUID },
	{ "rsuid", K_RATTR, true, MOUNT_ATTR_NOSUID },
	{ "rnodev", K_RATTR, false, MOUNT_ATTR_NODEV },
	{ "rdev", K_RATTR, true, MOUNT_ATTR_NODEV },
	{ "rnoexec", K_RATTR, false, MOUNT_ATTR_NOEXEC },
	{ "rexec", K_RATTR, true, MOUNT_ATTR_NOEXEC },
	{ "rnodiratime", K_RATTR, false, MOUNT_ATTR_NODIRATIME },
	{ "rdiratime", K_RATTR, true, MOUNT_ATTR_NODIRATIME },
	{ "rnoatime", K_RATIME, false, MOUNT_ATTR_NOATIME },
	{ "ratime", K_RATIME, true, MOUNT_ATTR_NOATIME },
	{ "rrelatime", K_RATIME, false, MOUNT_ATTR_RELATIME },
	{ "rnorelatime", K_RATIME, true, MOUNT_ATTR_RELATIME },
	{ "rstrictatime", K_RATIME, false, MOUNT_ATTR_STRICTATIME },
	{ "rnostrictatime", K_RATIME, true, MOUNT_ATTR_STRICTATIME },
	{ "sync", K_SB, false, 0 },
	{ "async", K_SB, true, 0 },
	{ "dirsync", K_SB, false, 0 },
	{ "mand", K_SB, false, 0 },
	{ "nomand", K_SB, true, 0 },
	{ "lazytime", K_SB, false, 0 },
	{ "nolazytime", K_SB, true, 0 },
	{ "silent", K_NOOP, false, 0 },
	{ "loud", K_NOOP, true, 0 },
	{ "bind", K_BIND, false, 0 },
	{ "rbind", K_RBIND, false, 0 },
	{ "private", K_PROP, false, MS_PRIVATE },
	{ "rprivate", K_RPROP, false, MS_PRIVATE },
	{ "shared", K_PROP, false, MS_SHARED },
	{ "rshared", K_RPROP, false, MS_SHARED },
	{ "slave", K_PROP, false, MS_SLAVE },
	{ "rslave", K_RPROP, false, MS_SLAVE },
	{ "unbindable", K_PROP, false, MS_UNBINDABLE },
	{ "runbindable", K_RPROP, false, MS_UNBINDABLE },
	{ "remount", K_REMOUNT, false, 0 },
	{ "idmap", K_IDMAP, false, 0 },
	{ "ridmap", K_RIDMAP, false, 0 },
	{ "tmpcopyup", K_COPYUP, false, 0 },
	{ "notmpcopyup", K_COPYUP, true, 0 },
};

struct parsed_opts {
	uint64_t set, clr;   /* per-mount attributes */
	uint64_t rset, rclr; /* recursive attributes */
	bool bind, rec, remount, idmap, ridmap, copyup;
	unsigned long prop;
	bool rprop;
	const char *sb[16]; /* superblock flag names for fsconfig */
	size_t nsb;
	const char **data; /* everything else, for the filesystem */
	size_t ndata;
	char cover_mode[16]; /* tmpfs: "mode=NNNN" of the directory it covers */
};

static void parsed_free(struct parsed_opts *p)
{
	free(p->data);
}

static const struct mount_opt *find_opt(const char *name)
{
	for (size_t i = 0; i < sizeof(mount_opts) / sizeof(mount_opts[0]); i++)
		if (strcmp(mount_opts[i].name, name) == 0)
			return &mount_opts[i];
	return NULL;
}

static int parse_opts(const oci_mount *m, struct parsed_opts *p, cv_error_t *err)
{
	memset(p, 0, sizeof(*p));
	if (m->options.len > 0) {
		p->data = calloc(m->options.len, sizeof(*p->data));
		if (!p->data)
			return cv_error(err, ENOMEM, "mount options");
	}
	for (size_t i = 0; i < m->options.len; i++) {
		const char *o = m->options.v[i];
		const struct mount_opt *d = find_opt(o);
		if (!d) {
			if (o[0] == '\0' || strpbrk(o, " \t\n"))
				return cv_error(err, EINVAL, "invalid mount option `%s`", o);
			if (strncmp(o, "x-", 2) == 0)
				continue; /* userspace-only options (mount(8) convention) */
			p->data[p->ndata++] = o;
			continue;
		}
		switch (d->kind) {
		case K_ATTR:
			if (d->clear) {
				p->clr |= d->val;
				p->set &= ~d->val;
			} else {
				p->set |= d->val;
				p->clr &= ~d->val;
			}
			break;
		case K_ATIME:
			p->clr |= ATTR_ATIME_ALL;
			p->set &= ~ATTR_ATIME_ALL;
			/* "atime", "norelatime", "nostrictatime" fall back to relatime */
			if (!d->clear)
				p->set |= d->val;
			break;
		case K_RATTR:
			if (d->clear) {
				p->rclr |= d->val;
				p->rset &= ~d->val;
			} else {
				p->rset |= d->val;
				p->rclr &= ~d->val;
			}
			break;
		case K_RATIME:
			p->rclr |= ATTR_ATIME_ALL;
			p->rset &= ~ATTR_ATIME_ALL;
			if (!d->clear)
				p->rset |= d->val;
			break;
		case K_SB:
			if (p->nsb >= sizeof(p->sb) / sizeof(p->sb[0]))
				return cv_error(err, E2BIG, "too many mount options");
			p->sb[p->nsb++] = d->name;
			break;
		case K_BIND:
			p->bind = true;
			break;
		case K_RBIND:
			p->bind = p->rec = true;
			break;
		case K_PROP:
		case K_RPROP:
			p->prop = d->val;
			p->rprop = d->kind == K_RPROP;
			break;
		case K_REMOUNT:
			p->remount = true;
			break;
		case K_IDMAP:
			p->idmap = true;
			break;
		case K_RIDMAP:
			p->idmap = p->ridmap = true;
			break;
		case K_COPYUP:
			p->copyup = !d->clear;
			break;
		case K_NOOP:
			break;
		}
	}
	return 0;
}

/* The kernel explains fsconfig failures in a message readable from the
 * fs context fd; append it to the error. */
static int fsconfig_error(int fsfd, cv_error_t *err, const char *ctx)
{
	int saved = errno;
	char buf[256], msg[512] = "";
	ssize_t n;
	while ((n = read(fsfd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		if (n > 2 && buf[1] == ' ') {
			size_t l = strlen(msg);
			snprintf(msg + l, sizeof(msg) - l, "%s%s", l ? "; " : "", buf + 2);
		}
	}
	if (msg[0])
		return cv_error(err, saved, "%s (%s)", ctx, msg);
	return cv_error(err, saved, "%s", ctx);
}

#define FSCONFIG_FAIL(fsfd, err, ...)                                                                                  \
	({                                                                                                             \
		char _ctx[PATH_MAX + 512];                                                                             \
		int _saved = errno;                                                                                    \
		snprintf(_ctx, sizeof(_ctx), __VA_ARGS__);                                                             \
		errno = _saved;                                                                                        \
		fsconfig_error(fsfd, err, _ctx);                                                                       \
	})

int cv_fs_new(const char *type, const char *source, const char *const *data, size_t ndata, uint64_t attr,
	      cv_error_t *err)
{
	cleanup_close int fsfd = fsopen(type, FSOPEN_CLOEXEC);
	if (fsfd < 0) {
		if (errno == ENODEV)
			return cv_error(err, ENODEV, "unknown filesystem type `%s`", type);
		return cv_error_errno(err, "fsopen `%s`", type);
	}
	if (source && fsconfig(fsfd, FSCONFIG_SET_STRING, "source", source, 0) < 0)
		return FSCONFIG_FAIL(fsfd, err, "mount `%s`: source `%s`", type, source);
	for (size_t i = 0; i < ndata; i++) {
		char key[256];
		const char *eq = strchr(data[i], '=');
		int r;
		if (eq) {
			size_t klen = (size_t)(eq - data[i]);
			if (klen >= sizeof(key))
				return cv_error(err, EINVAL, "mount `%s`: option `%s` too long", type, data[i]);
			memcpy(key, data[i], klen);
			key[klen] = '\0';
			r = fsconfig(fsfd, FSCONFIG_SET_STRING, key, eq + 1, 0);
		} else {
			r = fsconfig(fsfd, FSCONFIG_SET_FLAG, data[i], NULL, 0);
		}
		if (r < 0)
			return FSCONFIG_FAIL(fsfd, err, "mount `%s`: option `%s`", type, data[i]);
	}
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return FSCONFIG_FAIL(fsfd, err, "mount `%s`%s", type, source ? " from source" : "");
	int mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, (unsigned int)attr);
	if (mfd < 0)
		return cv_error_errno(err, "fsmount `%s`", type);
	return mfd;
}

int cv_attach_mount(int treefd, int destfd, const char *what, const char *dest, cv_error_t *err)
{
	if (move_mount(treefd, "", destfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cv_error_errno(err, "mount `%s` on `%s`", what, dest);
	return 0;
}

static uint64_t statvfs_attrs(unsigned long f)
{
	uint64_t a = 0;
	if (f & ST_RDONLY)
		a |= MOUNT_ATTR_RDONLY;
	if (f & ST_NOSUID)
		a |= MOUNT_ATTR_NOSUID;
	if (f & ST_NODEV)
		a |= MOUNT_ATTR_NODEV;
	if (f & ST_NOEXEC)
		a |= MOUNT_ATTR_NOEXEC;
	if (f & ST_NODIRATIME)
		a |= MOUNT_ATTR_NODIRATIME;
	if (f & ST_NOATIME)
		a |= MOUNT_ATTR_NOATIME;
	else if (!(f & ST_RELATIME))
		a |= MOUNT_ATTR_STRICTATIME;
	return a;
}

static void attr_names(uint64_t set, uint64_t clr, char *buf, size_t len)
{
	static const struct {
		uint64_t v;
		const char *on, *off;
	} names[] = {
		{ MOUNT_ATTR_RDONLY, "ro", "rw" },
		{ MOUNT_ATTR_NOSUID, "nosuid", "suid" },
		{ MOUNT_ATTR_NODEV, "nodev", "dev" },
		{ MOUNT_ATTR_NOEXEC, "noexec", "exec" },
		{ MOUNT_ATTR_NODIRATIME, "nodiratime", "diratime" },
	};
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && n < len; i++) {
		const char *s = (set & names[i].v) ? names[i].on : (clr & names[i].v) ? names[i].off : NULL;
		if (s)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", s);
	}
	if (n < len && (clr & ATTR_ATIME_ALL)) {
		uint64_t a = set & ATTR_ATIME_ALL;
		snprintf(buf + n, len - n, "%s%s", n ? "," : "",
			 a == MOUNT_ATTR_NOATIME       ? "noatime"
			 : a == MOUNT_ATTR_STRICTATIME ? "strictatime"
						       : "relatime");
	}
}

int cv_setattr_keep_locked(int fd, bool recursive, uint64_t set, uint64_t clr, const char *what, cv_error_t *err)
{
	unsigned int flags = AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0);
	struct mount_attr a = { .attr_set = set, .attr_clr = clr };
	if (set == 0 && clr == 0)
		return 0;
	if (mount_setattr(fd, "", flags, &a, sizeof(a)) == 0)
		return 0;
	if (errno == EPERM) {
		/* In a user namespace the kernel locks the flags the source
		 * mount had; keep them and apply the rest. */
		struct statvfs sv;
		if (fstatvfs(fd, &sv) < 0)
			return cv_error_errno(err, "statvfs `%s`", what);
		uint64_t locked = statvfs_attrs(sv.f_flag);
		a.attr_set = set | (locked & ~ATTR_ATIME_ALL);
		a.attr_clr = clr & ~locked;
		if (clr & ATTR_ATIME_ALL) {
			/* keep the source's atime mode too */
			a.attr_set = (a.attr_set & ~ATTR_ATIME_ALL) | (locked & ATTR_ATIME_ALL);
			a.attr_clr |= ATTR_ATIME_ALL;
		}
		if (mount_setattr(fd, "", flags, &a, sizeof(a)) == 0) {
			cv_debug("mount `%s`: kept locked flags %#llx", what, (unsigned long long)locked);
			return 0;
		}
	}
	char names[128];
	attr_names(set, clr, names, sizeof(names));
	return cv_error_errno(err, "set mount flags %s%s on `%s`", names, recursive ? " recursively" : "", what);
}

static int set_propagation(int fd, unsigned long prop, bool rec, const char *dest, cv_error_t *err)
{
	if (!prop)
		return 0;
	struct mount_attr a = { .propagation = prop };
	if (mount_setattr(fd, "", AT_EMPTY_PATH | (rec ? AT_RECURSIVE : 0), &a, sizeof(a)) < 0)
		return cv_error_errno(err, "set propagation of `%s`", dest);
	return 0;
}

/* ---- idmapped mounts ---- */

static int write_idmap(const char *pid, const char *file, const oci_id_mappings *m, cv_error_t *err)
{
	char buf[4096], sub[64];
	size_t n = 0;
	for (size_t i = 0; i < m->len; i++) {
		int w = snprintf(buf + n, sizeof(buf) - n, "%u %u %u\n", m->v[i].container_id, m->v[i].host_id,
				 m->v[i].size);
		if (w < 0 || (size_t)w >= sizeof(buf) - n)
			return cv_error(err, E2BIG, "idmapped mount: too many %s entries", file);
		n += (size_t)w;
	}
	snprintf(sub, sizeof(sub), "%s/%s", pid, file);
	return cv_procfs_write(sub, buf, n, err);
}

/* The child of userns_for_mapping, born in the new user namespace and
 * sharing our memory. When our procfs shows pids of another pid namespace,
 * it first puts its pid as procfs shows it in PID and says so on READY;
 * then it waits for the end of GO: our close, or our death. */
struct userns_child {
	int procfd, go_rd, go_wr, ready_wr;
	char pid[32];
};

/* Not instrumented: it runs on a stack in our heap, unknown to ASan, which
 * then warns on stderr at its _exit (the sandbox's output, in a sanitizer
 * build). */
__attribute__((no_sanitize_address)) static int userns_child(void *arg)
{
	struct userns_child *c = arg;
	char b = 0;
	close(c->go_wr);
	if (c->ready_wr >= 0) {
		ssize_t l = readlinkat(c->procfd, "self", c->pid, sizeof(c->pid) - 1);
		c->pid[l > 0 ? l : 0] = '\0';
		if (write(c->ready_wr, &b, 1) != 1)
			_exit(0);
	}
	while (read(c->go_rd, &b, 1) > 0)
		;
	_exit(0);
}

/* The child that holds a new user namespace until its maps are written
 * and its ns file open: gone once reaped. */
struct userns_helper {
	pid_t pid;
	void *stack;
};

static void userns_helper_reap(struct userns_helper *h)
{
	if (h->pid > 0)
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
	h->pid = 0;
	free(h->stack);
	h->stack = NULL;
}

#define USERNS_STACK 16384

/* A user namespace holding the mount's mappings, kept alive by its fd: a
 * child is born in it (sharing our memory: no copy of our address space to
 * make and tear down), we write its maps, open its ns file, and let it go;
 * H, to be reaped, is the child, which exits by itself then. With clone's
 * pid valid in our procfs, nothing waits for the child to run (each wait
 * for another CPU's wakeup: 0.1 to 0.5 ms here). */
static int userns_for_mapping(const oci_id_mappings *uids, const oci_id_mappings *gids, struct userns_helper *h,
			      cv_error_t *err)
{
	*h = (struct userns_helper){ 0 };
	int procfd = cv_procfs_root(err);
	if (procfd < 0)
		return -1;
	bool known_pid = cv_procfs_shows_our_pids();
	cleanup_close int go_rd = -1, go_wr = -1, ready_rd = -1, ready_wr = -1;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return cv_error_errno(err, "pipe");
	go_rd = p[0];
	go_wr = p[1];
	if (!known_pid) {
		if (pipe2(p, O_CLOEXEC) < 0)
			return cv_error_errno(err, "pipe");
		ready_rd = p[0];
		ready_wr = p[1];
	}
	/* the child's argument and stack: on the heap, as it may outlive
	 * this frame (until reaped) */
	struct userns_child *c = malloc(sizeof(*c) + USERNS_STACK);
	if (!c)
		return cv_error(err, ENOMEM, "idmapped mount");
	*c = (struct userns_child){ .procfd = procfd, .go_rd = go_rd, .go_wr = go_wr, .ready_wr = ready_wr };
	h->stack = c;
	char *top = (char *)c + sizeof(*c) + USERNS_STACK;
	pid_t pid = clone(userns_child, (void *)((uintptr_t)top & ~(uintptr_t)15), CLONE_VM | CLONE_NEWUSER | SIGCHLD,
			  c);
	if (pid < 0) {
		userns_helper_reap(h);
		return cv_error(err, EPERM, "idmapped mount: cannot create a user namespace: %s", strerror(errno));
	}
	h->pid = pid;
	char child[32];
	int r = 0;
	if (known_pid) {
		snprintf(child, sizeof(child), "%d", (int)pid);
	} else {
		close(steal_fd(&ready_wr));
		char b;
		ssize_t n;
		do
			n = read(ready_rd, &b, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1 || !c->pid[0]) {
			r = cv_error(err, EPERM, "idmapped mount: cannot create a user namespace");
			goto out;
		}
		memcpy(child, c->pid, sizeof(child));
	}
	if ((r = write_idmap(child, "uid_map", uids, err)) < 0 || (r = write_idmap(child, "gid_map", gids, err)) < 0)
		goto out;
	char path[64];
	snprintf(path, sizeof(path), "%s/ns/user", child);
	/* a magic link of our own child, below the procfs we verified */
	r = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (r < 0)
		r = cv_error_errno(err, "open `/proc/%s`", path);
out:
	close(steal_fd(&go_wr)); /* its end */
	if (r < 0)
		userns_helper_reap(h);
	return r;
}

/* The user namespaces made for one container's mounts, by mapping: a
 * sandbox's workspace and writable directories usually share their owner,
 * and each namespace costs a fork. */
#define USERNS_CACHE 8
struct userns_cache {
	size_t n;
	struct {
		const oci_id_mappings *u, *g;
		int fd;
		struct userns_helper helper;
	} v[USERNS_CACHE];
};

static bool same_mappings(const oci_id_mappings *a, const oci_id_mappings *b)
{
	return a->len == b->len && memcmp(a->v, b->v, a->len * sizeof(*a->v)) == 0;
}

static void userns_cache_clear(struct userns_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		close(c->v[i].fd);
		userns_helper_reap(&c->v[i].helper);
	}
	c->n = 0;
}

/* CACHE may be NULL: a namespace for this mount alone. */
static int apply_idmap(int tree, const oci_mount *m, const struct parsed_opts *p, const oci_spec *spec,
		       struct userns_cache *cache, cv_error_t *err)
{
	const oci_id_mappings *u = &m->uid_mappings, *g = &m->gid_mappings;
	if (!u->len && !g->len && spec->linux_) {
		/* "idmap" alone: the container's own mappings */
		u = &spec->linux_->uid_mappings;
		g = &spec->linux_->gid_mappings;
	}
	if (!u->len || !g->len)
		return cv_error(err, EINVAL, "idmapped mount on `%s`: uidMappings and gidMappings are both required",
				m->destination);
	cleanup_close int own = -1;
	struct userns_helper own_helper __attribute__((cleanup(userns_helper_reap))) = { 0 };
	int usernsfd = -1;
	for (size_t i = 0; cache && i < cache->n && usernsfd < 0; i++)
		if (same_mappings(cache->v[i].u, u) && same_mappings(cache->v[i].g, g))
			usernsfd = cache->v[i].fd;
	if (usernsfd < 0) {
		struct userns_helper h;
		usernsfd = userns_for_mapping(u, g, &h, err);
		if (usernsfd < 0)
			return cv_error_prefix(err, "idmapped mount on `%s`", m->destination);
		/* the cache's helpers are reaped with it, after the other
		 * mounts: their exits overlap our work */
		if (cache && cache->n < USERNS_CACHE) {
			cache->v[cache->n++] = (typeof(cache->v[0])){ u, g, usernsfd, h };
		} else {
			own = usernsfd;
			own_helper = h;
		}
	}
	struct mount_attr a = { .attr_set = MOUNT_ATTR_IDMAP, .userns_fd = (uint64_t)usernsfd };
	if (mount_setattr(tree, "", AT_EMPTY_PATH | (p->ridmap ? AT_RECURSIVE : 0), &a, sizeof(a)) < 0) {
		struct statfs sf;
		if (errno == EINVAL && fstatfs(tree, &sf) == 0)
			return cv_error(err, EINVAL,
					"idmapped mount of `%s` on `%s`: Invalid argument (is its filesystem, magic "
					"%#lx, one this kernel can idmap?)",
					m->source ? m->source : "", m->destination, (unsigned long)sf.f_type);
		return cv_error_errno(err, "idmapped mount of `%s` on `%s`", m->source ? m->source : "",
				      m->destination);
	}
	return 0;
}

/* ---- cgroup v1 (type "cgroup") ---- */

static int cgroup_attach_all(int rootfd, int tmpfs_destfd, const oci_mount *m, const struct parsed_opts *p,
			     const struct cv_rootfs_config *cfg, cv_error_t *err);

/* The per-mount attributes a bind or new mount gets. */
static uint64_t base_attrs(const struct parsed_opts *p)
{
	return p->set;
}

static bool is_pseudo_fs(const char *type)
{
	static const char *const pseudo[] = { "proc",  "sysfs",      "cgroup",  "cgroup2", "mqueue", "devpts",
					      "tmpfs", "securityfs", "debugfs", "tracefs", "bpf",    NULL };
	for (const char *const *t = pseudo; *t; t++)
		if (strcmp(*t, type) == 0)
			return true;
	return false;
}

static int mount_new_fs(const char *type, const oci_mount *m, struct parsed_opts *p, const struct cv_rootfs_config *cfg,
			cv_error_t *err)
{
	const char *data[64];
	size_t nd = 0;
	if (p->ndata + p->nsb + 2 > sizeof(data) / sizeof(data[0]))
		return cv_error(err, E2BIG, "mount `%s`: too many options", m->destination);
	for (size_t i = 0; i < p->nsb; i++)
		data[nd++] = p->sb[i];
	if (p->cover_mode[0])
		data[nd++] = p->cover_mode;
	/* Read-only superblocks only for filesystems with their own; proc,
	 * sysfs and friends share theirs with the host. */
	if ((p->set & MOUNT_ATTR_RDONLY) && !is_pseudo_fs(type))
		data[nd++] = "ro";
	for (size_t i = 0; i < p->ndata; i++)
		data[nd++] = p->data[i];
	const char *source = m->source;
	if (source && !*source)
		source = NULL;
	(void)cfg;
	return cv_fs_new(type, source ? source : type, data, nd, base_attrs(p), err);
}

static bool spec_has_cgroupns(const struct cv_rootfs_config *cfg)
{
	return cfg->new_cgroupns;
}

/* Finishes TREE (a detached mount) and attaches it at DEST in the rootfs. */
static int finish_and_attach(int tree, int destfd, const oci_mount *m, const struct parsed_opts *p, bool attrs_done,
			     cv_error_t *err)
{
	const char *what = m->source && *m->source ? m->source : (m->type ? m->type : "none");
	if (!attrs_done && cv_setattr_keep_locked(tree, false, p->set, p->clr, what, err) < 0)
		return cv_error_prefix(err, "mount on `%s`", m->destination);
	if (cv_setattr_keep_locked(tree, true, p->rset, p->rclr, what, err) < 0)
		return cv_error_prefix(err, "mount on `%s`", m->destination);
	if (cv_attach_mount(tree, destfd, what, m->destination, err) < 0)
		return -1;
	return set_propagation(tree, p->prop, p->rprop, m->destination, err);
}

static int do_remount(int rootfd, const oci_mount *m, struct parsed_opts *p, cv_error_t *err)
{
	cleanup_close int fd = cv_open_in_root(rootfd, m->destination, O_PATH, 0, err);
	if (fd < 0)
		return cv_error_prefix(err, "remount");
	if (p->nsb || p->ndata) {
		cleanup_close int fsfd = fspick(fd, "", FSPICK_EMPTY_PATH | FSPICK_CLOEXEC);
		if (fsfd < 0)
			return cv_error_errno(err, "remount `%s`", m->destination);
		for (size_t i = 0; i < p->nsb + p->ndata; i++) {
			const char *o = i < p->nsb ? p->sb[i] : p->data[i - p->nsb];
			const char *eq = strchr(o, '=');
			int r;
			if (eq) {
				char key[256];
				snprintf(key, sizeof(key), "%.*s", (int)(eq - o), o);
				r = fsconfig(fsfd, FSCONFIG_SET_STRING, key, eq + 1, 0);
			} else {
				r = fsconfig(fsfd, FSCONFIG_SET_FLAG, o, NULL, 0);
			}
			if (r < 0)
				return FSCONFIG_FAIL(fsfd, err, "remount `%s`: option `%s`", m->destination, o);
		}
		if (fsconfig(fsfd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) < 0)
			return FSCONFIG_FAIL(fsfd, err, "remount `%s`", m->destination);
	}
	if (cv_setattr_keep_locked(fd, false, p->set, p->clr, m->destination, err) < 0 ||
	    cv_setattr_keep_locked(fd, true, p->rset, p->rclr, m->destination, err) < 0)
		return cv_error_prefix(err, "remount");
	return set_propagation(fd, p->prop, p->rprop, m->destination, err);
}

/* Type-implied options and the checks every mount gets, shared by the
 * container side and cv_rootfs_idmap_prepare. */
static int normalize_opts(const oci_mount *m, struct parsed_opts *p, cv_error_t *err)
{
	const char *type = m->type && *m->type ? m->type : NULL;
	if (type && (strcmp(type, "bind") == 0 || strcmp(type, "rbind") == 0)) {
		p->bind = true;
		if (type[0] == 'r')
			p->rec = true;
	}
	if ((m->uid_mappings.len || m->gid_mappings.len) && !p->idmap)
		p->idmap = true;
	if (p->idmap && !p->bind)
		return cv_error(err, EINVAL, "mount `%s`: idmapped mounts need a bind mount", m->destination);
	return 0;
}

static int premade_fd(const oci_mount *m, const struct cv_rootfs_config *cfg)
{
	const oci_spec *spec = cfg->spec;
	if (!cfg->mount_fds || m < spec->mounts || m >= spec->mounts + spec->mounts_len)
		return -1;
	return cfg->mount_fds[m - spec->mounts];
}

/* Whether the config joins a mount namespace by path: bind sources are
 * then resolved there, by the container process, not by the runtime. */
static bool joins_mount_ns(const oci_spec *spec)
{
	for (size_t i = 0; spec->linux_ && i < spec->linux_->namespaces_len; i++) {
		const oci_namespace *ns = &spec->linux_->namespaces[i];
		if (ns->type && strcmp(ns->type, "mount") == 0 && ns->path && *ns->path)
			return true;
	}
	return false;
}

int cv_detach_from_host(int tree, const oci_spec *spec, const char *what, cv_error_t *err)
{
	const char *rp = spec->linux_ ? spec->linux_->rootfs_propagation : NULL;
	struct mount_attr a = { .propagation = rp && strstr(rp, "private") ? MS_PRIVATE : MS_SLAVE };
	if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a)) < 0)
		return cv_error_errno(err, "set propagation of the copy of `%s`", what);
	return 0;
}

int cv_rootfs_idmap_prepare(const oci_spec *spec, int **fds_out, cv_error_t *err)
{
	*fds_out = NULL;
	if (!spec->mounts_len)
		return 0;
	bool binds = !joins_mount_ns(spec);
	int *fds = malloc(spec->mounts_len * sizeof(*fds));
	if (!fds)
		return cv_error(err, ENOMEM, "idmapped mounts");
	for (size_t i = 0; i < spec->mounts_len; i++)
		fds[i] = -1;
	bool any = false;
	struct userns_cache cache __attribute__((cleanup(userns_cache_clear))) = { 0 };
	for (size_t i = 0; i < spec->mounts_len; i++) {
		const oci_mount *m = &spec->mounts[i];
		struct parsed_opts p __attribute__((cleanup(parsed_free)));
		if (parse_opts(m, &p, err) < 0 || normalize_opts(m, &p, err) < 0) {
			cv_error_prefix(err, "mount `%s`", m->destination);
			goto fail;
		}
		if (!p.bind || p.remount || (!p.idmap && !binds))
			continue;
		if (!m->source || !*m->source) {
			cv_error(err, EINVAL, "bind mount on `%s`: no source", m->destination);
			goto fail;
		}
		fds[i] = open_tree(AT_FDCWD, m->source,
				   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (p.rec ? AT_RECURSIVE : 0));
		/* an unprivileged runtime may not clone mounts: the container
		 * process binds what needs no idmap itself, as it reaches it */
		if (fds[i] < 0 && errno == EPERM && !p.idmap)
			continue;
		if (fds[i] < 0) {
			cv_error_errno(err, "bind mount `%s` on `%s`", m->source, m->destination);
			goto fail;
		}
		if (cv_detach_from_host(fds[i], spec, m->source, err) < 0 ||
		    (p.idmap && apply_idmap(fds[i], m, &p, spec, &cache, err) < 0))
			goto fail;
		any = true;
	}
	if (any)
		*fds_out = fds;
	else
		free(fds);
	return 0;
fail:
	cv_rootfs_idmap_release(fds, spec->mounts_len);
	return -1;
}

void cv_rootfs_idmap_release(int *fds, size_t n)
{
	if (!fds)
		return;
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}

/* ---- tmpcopyup: the destination's contents copied into a new tmpfs ---- */

/* Deeper trees than this are refused rather than risk the stack. */
#define COPYUP_MAX_DEPTH 64

struct copyup {
	const char *dest;    /* for messages */
	bool userns;         /* owners outside the mapping are left to the kernel */
	char path[PATH_MAX]; /* current relative path, for messages */
};

static int copyup_fail(struct copyup *c, cv_error_t *err, const char *what)
{
	return cv_error_errno(err, "tmpcopyup on `%s`: %s `%s`", c->dest, what, c->path[0] ? c->path : ".");
}

/* Attributes the source had and the kernel lets us give: xattrs it refuses
 * (security.* in a user namespace, trusted.*, unsupported ones) are
 * skipped, as a copy by cp -a would. */
static int copy_xattrs(struct copyup *c, int src, int dst, cv_error_t *err)
{
	char names[4096];
	ssize_t n = flistxattr(src, names, sizeof(names));
	if (n < 0) {
		if (errno == ENOTSUP || errno == ERANGE)
			return 0;
		return copyup_fail(c, err, "list xattrs of");
	}
	for (char *name = names; name < names + n; name += strlen(name) + 1) {
		char val[4096];
		ssize_t vl = fgetxattr(src, name, val, sizeof(val));
		if (vl < 0) {
			if (errno == ENODATA || errno == ERANGE || errno == ENOTSUP)
				continue;
			return copyup_fail(c, err, "read xattr of");
		}
		if (fsetxattr(dst, name, val, (size_t)vl, 0) < 0 && errno != EPERM && errno != ENOTSUP &&
		    errno != EOPNOTSUPP && errno != EINVAL)
			return copyup_fail(c, err, "set xattr on");
	}
	return 0;
}

/* Owner, then mode (a chown clears set-id bits), then times. FD may be an
 * O_PATH fd of a symlink (mode and xattrs do not apply then). */
static int copy_meta(struct copyup *c, const struct stat *st, int fd, bool link, cv_error_t *err)
{
	if (fchownat(fd, "", st->st_uid, st->st_gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 &&
	    !(c->userns && (errno == EINVAL || errno == EPERM || errno == EOVERFLOW)))
		return copyup_fail(c, err, "chown");
	if (!link) {
		if (fchmod(fd, st->st_mode & 07777) < 0)
			return copyup_fail(c, err, "chmod");
	}
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	if (utimensat(fd, "", ts, AT_EMPTY_PATH) < 0 && errno != EINVAL && errno != ENOENT) {
		/* AT_EMPTY_PATH is newer than utimensat on O_PATH fds; fall back to futimens */
		if (link || futimens(fd, ts) < 0)
			return copyup_fail(c, err, "set times of");
	}
	return 0;
}

static int copy_file_data(struct copyup *c, int src, int dst, off_t size, cv_error_t *err)
{
	off_t left = size;
	while (left > 0) {
		ssize_t n = copy_file_range(src, NULL, dst, NULL, (size_t)left, 0);
		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
			char buf[65536];
			n = read(src, buf, sizeof(buf));
			int r;
			if (n > 0 && (r = cv_write_all(dst, buf, (size_t)n)) < 0) {
				errno = -r;
				return copyup_fail(c, err, "write");
			}
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return copyup_fail(c, err, "copy");
		}
		if (n == 0)
			break; /* the file shrank under us */
		left -= n;
	}
	return 0;
}

static int copy_tree(struct copyup *c, int srcdir, int dstdir, int depth, cv_error_t *err);

static int copy_entry(struct copyup *c, int srcdir, int dstdir, const char *name, int depth, cv_error_t *err)
{
	struct stat st;
	if (fstatat(srcdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0; /* removed meanwhile */
		return copyup_fail(c, err, "stat");
	}
	mode_t type = st.st_mode & S_IFMT;
	if (type == S_IFDIR) {
		if (depth >= COPYUP_MAX_DEPTH)
			return cv_error(err, ELOOP, "tmpcopyup on `%s`: `%s` is nested too deeply", c->dest, c->path);
		if (mkdirat(dstdir, name, 0700) < 0)
			return copyup_fail(c, err, "mkdir");
		/* O_NOFOLLOW|O_DIRECTORY: a directory swapped for a symlink
		 * meanwhile fails here instead of being followed. */
		cleanup_close int s = openat(srcdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (s < 0)
			return copyup_fail(c, err, "open");
		cleanup_close int d = openat(dstdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d < 0)
			return copyup_fail(c, err, "open copy of");
		if (copy_tree(c, s, d, depth + 1, err) < 0 || copy_xattrs(c, s, d, err) < 0)
			return -1;
		return copy_meta(c, &st, d, false, err);
	}
	if (type == S_IFREG) {
		cleanup_close int s = openat(srcdir, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (s < 0)
			return copyup_fail(c, err, "open");
		struct stat st2;
		if (fstat(s, &st2) < 0)
			return copyup_fail(c, err, "stat");
		if (!S_ISREG(st2.st_mode) || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev)
			return cv_error(err, EAGAIN, "tmpcopyup on `%s`: `%s` changed while being copied", c->dest,
					c->path);
		cleanup_close int d = openat(dstdir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (d < 0)
			return copyup_fail(c, err, "create");
		if (copy_file_data(c, s, d, st2.st_size, err) < 0 || copy_xattrs(c, s, d, err) < 0)
			return -1;
		return copy_meta(c, &st2, d, false, err);
	}
	if (type == S_IFLNK) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(srcdir, name, target, sizeof(target) - 1);
		if (n < 0)
			return copyup_fail(c, err, "readlink");
		target[n] = '\0';
		/* copied as text: it is only followed later, inside the container */
		if (symlinkat(target, dstdir, name) < 0)
			return copyup_fail(c, err, "symlink");
		cleanup_close int d = openat(dstdir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (d < 0)
			return copyup_fail(c, err, "open copy of");
		return copy_meta(c, &st, d, true, err);
	}
	/* device nodes, fifos, sockets */
	if (mknodat(dstdir, name, st.st_mode, st.st_rdev) < 0)
		return copyup_fail(c, err, "mknod");
	cleanup_close int d = openat(dstdir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0)
		return copyup_fail(c, err, "open copy of");
	if (fchownat(d, "", st.st_uid, st.st_gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 &&
	    !(c->userns && (errno == EINVAL || errno == EPERM || errno == EOVERFLOW)))
		return copyup_fail(c, err, "chown");
	/* by name: the tmpfs is still detached, nobody else can reach it */
	if (fchmodat(dstdir, name, st.st_mode & 07777, 0) < 0)
		return copyup_fail(c, err, "chmod");
	return 0;
}

static int copy_tree(struct copyup *c, int srcdir, int dstdir, int depth, cv_error_t *err)
{
	int dupfd = fcntl(srcdir, F_DUPFD_CLOEXEC, 3);
	if (dupfd < 0)
		return copyup_fail(c, err, "dup");
	cleanup_dir DIR *dir = fdopendir(dupfd);
	if (!dir) {
		close(dupfd);
		return copyup_fail(c, err, "read directory");
	}
	size_t base = strlen(c->path);
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(dir);
		if (!de) {
			if (errno)
				return copyup_fail(c, err, "read directory");
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(c->path + base, sizeof(c->path) - base, "%s%s", base ? "/" : "", de->d_name) >=
		    (int)(sizeof(c->path) - base))
			return cv_error(err, ENAMETOOLONG, "tmpcopyup on `%s`: path too long", c->dest);
		int r = copy_entry(c, srcdir, dstdir, de->d_name, depth, err);
		c->path[base] = '\0';
		if (r < 0)
			return r;
	}
	return 0;
}

/* Copies what DESTFD (an O_PATH directory inside the rootfs) holds into the
 * root of the detached tmpfs TREE, before TREE covers it. */
static int tmpcopyup(int tree, int destfd, const oci_mount *m, const struct cv_rootfs_config *cfg, cv_error_t *err)
{
	struct copyup c = { .dest = m->destination, .userns = cfg->new_userns };
	cleanup_close int src = openat(destfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (src < 0)
		return copyup_fail(&c, err, "open");
	cleanup_close int dst = openat(tree, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dst < 0)
		return copyup_fail(&c, err, "open the new tmpfs for");
	return copy_tree(&c, src, dst, 0, err);
}

/* ---- destinations under /proc ---- */

/* runc's rule: a mount on /proc itself must be a procfs (a fresh one or a
 * bind of one); below /proc only the files lxcfs emulates may be covered,
 * since anything else would let a mount hide or replace kernel interfaces
 * the masks and the runtime rely on. */
static int check_proc_dest(const oci_mount *m, const struct parsed_opts *p, int tree, int destfd, cv_error_t *err)
{
	static const char *const allowed[] = {
		"proc/cpuinfo",
		"proc/diskstats",
		"proc/meminfo",
		"proc/stat",
		"proc/swaps",
		"proc/uptime",
		"proc/loadavg",
		"proc/slabinfo",
		"proc/net/dev",
		"proc/sys/kernel/ns_last_pid",
		"proc/sys/crypto/fips_enabled",
	};
	char clean[PATH_MAX];
	int r = cv_path_clean(m->destination, clean, sizeof(clean));
	if (r < 0)
		return cv_error(err, -r, "mount destination `%s`", m->destination);
	if (strcmp(clean, "proc") == 0) {
		struct statfs sf;
		if (p->bind) {
			if (fstatfs(tree, &sf) < 0)
				return cv_error_errno(err, "statfs `%s`", m->source);
			if (sf.f_type == PROC_SUPER_MAGIC)
				return 0;
		} else if (m->type && strcmp(m->type, "proc") == 0) {
			return 0;
		}
		return cv_error(err, EPERM, "mount on `%s`: only a procfs may be mounted on /proc", m->destination);
	}
	if (strncmp(clean, "proc/", 5) == 0) {
		for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
			if (strcmp(clean, allowed[i]) == 0)
				return 0;
		return cv_error(err, EPERM, "mount on `%s`: destinations inside /proc are not allowed", m->destination);
	}
	/* A symlink may lead into the container's procfs: judge where it landed. */
	struct statfs sf;
	if (fstatfs(destfd, &sf) < 0)
		return cv_error_errno(err, "statfs mount destination `%s`", m->destination);
	if (sf.f_type == PROC_SUPER_MAGIC)
		return cv_error(err, EPERM, "mount on `%s`: the destination resolves inside /proc", m->destination);
	return 0;
}

/* runc's rule: a tmpfs without mode= keeps the mode of the directory it
 * covers; over a destination that does not exist yet it gets tmpfs's own
 * default (1777). */
static int tmpfs_cover_mode(int rootfd, const oci_mount *m, struct parsed_opts *p, cv_error_t *err)
{
	cleanup_error cv_error_t missing = NULL;
	struct stat st;

	for (size_t i = 0; i < p->ndata; i++)
		if (strncmp(p->data[i], "mode=", 5) == 0)
			return 0;
	cleanup_close int fd = cv_open_in_root(rootfd, m->destination, O_PATH, 0, &missing);
	if (fd < 0)
		return 0; /* cv_mkdir_open_in_root creates it, or says why it cannot */
	if (fstat(fd, &st) < 0)
		return cv_error_errno(err, "stat mount destination `%s`", m->destination);
	if (S_ISDIR(st.st_mode))
		snprintf(p->cover_mode, sizeof(p->cover_mode), "mode=%04o", (unsigned)(st.st_mode & 07777));
	return 0;
}

/* A cgroup filesystem: rooted at the container's cgroup (its cgroup
 * namespace, or its directories bound), which must exist and hold it. */
static bool shows_cgroups(const oci_mount *m, const struct parsed_opts *p)
{
	return !p->bind && m->type && (strcmp(m->type, "cgroup") == 0 || strcmp(m->type, "cgroup2") == 0);
}

int cv_mount_one(int rootfd, const oci_mount *m, const struct cv_rootfs_config *cfg, cv_error_t *err)
{
	struct parsed_opts p __attribute__((cleanup(parsed_free)));
	const char *type = m->type && *m->type ? m->type : NULL;

	if (parse_opts(m, &p, err) < 0)
		return cv_error_prefix(err, "mount `%s`", m->destination);
	if (normalize_opts(m, &p, err) < 0)
		return -1;
	if (p.copyup && (p.bind || strcmp(type, "tmpfs") != 0))
		return cv_error(err, EINVAL, "mount `%s`: tmpcopyup applies only to tmpfs mounts", m->destination);
	if (p.remount)
		return do_remount(rootfd, m, &p, err);
	if (!p.bind && !type)
		return cv_error(err, EINVAL, "mount `%s`: no type and not a bind mount", m->destination);
	if (cfg->cgroup_ready && shows_cgroups(m, &p) && cfg->cgroup_ready(cfg->cgroup_ready_arg, err) < 0)
		return -1;

	cleanup_close int tree = -1;
	bool is_file = false, attrs_done = false;

	if (p.bind) {
		if (!m->source || !*m->source)
			return cv_error(err, EINVAL, "bind mount on `%s`: no source", m->destination);
		if (p.nsb || p.ndata)
			cv_warn("bind mount on `%s`: options that only apply to a new filesystem are ignored",
				m->destination);
		int premade = premade_fd(m, cfg);
		if (premade >= 0) {
			tree = premade; /* taken (and idmapped) by the runtime, see cv_rootfs_idmap_prepare */
		} else {
			if (p.idmap && cfg->new_userns)
				return cv_error(
					err, EPERM,
					"idmapped mount on `%s`: in a user namespace it must be prepared by the runtime",
					m->destination);
			tree = open_tree(AT_FDCWD, m->source,
					 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (p.rec ? AT_RECURSIVE : 0));
			if (tree < 0)
				return cv_error_errno(err, "bind mount `%s` on `%s`", m->source, m->destination);
			if (p.idmap && apply_idmap(tree, m, &p, cfg->spec, NULL, err) < 0)
				return -1;
		}
		struct stat st;
		if (fstat(tree, &st) < 0)
			return cv_error_errno(err, "stat `%s`", m->source);
		is_file = !S_ISDIR(st.st_mode);
	} else if (strcmp(type, "cgroup") == 0) {
		/* Below; needs the destination first. */
	} else {
		if (strcmp(type, "sysfs") == 0 && !cfg->new_netns)
			p.set |= MOUNT_ATTR_RDONLY, p.clr &= ~(uint64_t)MOUNT_ATTR_RDONLY;
		if (strcmp(type, "sysfs") == 0 && cfg->net_ready && cfg->net_ready(cfg->net_ready_arg, err) < 0)
			return -1;
		/* a read-only tmpfs is filled first, made read-only after */
		uint64_t late_ro = p.copyup ? (p.set & MOUNT_ATTR_RDONLY) : 0;
		p.set &= ~late_ro;
		if (strcmp(type, "tmpfs") == 0 && tmpfs_cover_mode(rootfd, m, &p, err) < 0)
			return -1;
		tree = mount_new_fs(type, m, &p, cfg, err);
		p.set |= late_ro;
		if (tree < 0 && strcmp(type, "sysfs") == 0 && (cfg->new_userns || cv_ns_in_user_namespace()) &&
		    (*err)->errnum == EPERM) {
			/* A user namespace without its own network namespace may
			 * not mount sysfs: bind the host's, read-only. */
			cv_error_release(err);
			tree = open_tree(AT_FDCWD, "/sys", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
			if (tree < 0)
				return cv_error_errno(err, "bind `/sys` on `%s`", m->destination);
			if (cv_setattr_keep_locked(tree, true, MOUNT_ATTR_RDONLY | p.set,
						   p.clr & ~(uint64_t)MOUNT_ATTR_RDONLY, "/sys", err) < 0)
				return -1;
			attrs_done = true;
		} else if (tree < 0) {
			return cv_error_prefix(err, "mount on `%s`", m->destination);
		} else {
			attrs_done = !p.copyup; /* fsmount applied them */
		}
	}

	cleanup_close int destfd = cv_mkdir_open_in_root(rootfd, m->destination, is_file, err);
	if (destfd < 0)
		return cv_error_prefix(err, "mount destination");
	if (check_proc_dest(m, &p, tree, destfd, err) < 0)
		return -1;
	if (p.copyup && tmpcopyup(tree, destfd, m, cfg, err) < 0)
		return -1;

	if (!p.bind && strcmp(type, "cgroup") == 0)
		return cgroup_attach_all(rootfd, destfd, m, &p, cfg, err);
	return finish_and_attach(tree, destfd, m, &p, attrs_done, err);
}

bool cv_spec_binds_dev(const oci_spec *spec)
{
	for (size_t i = 0; i < spec->mounts_len; i++) {
		const oci_mount *m = &spec->mounts[i];
		char clean[PATH_MAX];
		if (cv_path_clean(m->destination, clean, sizeof(clean)) < 0 || strcmp(clean, "dev") != 0)
			continue;
		if (m->type && (strcmp(m->type, "bind") == 0 || strcmp(m->type, "rbind") == 0))
			return true;
		for (size_t j = 0; j < m->options.len; j++)
			if (strcmp(m->options.v[j], "bind") == 0 || strcmp(m->options.v[j], "rbind") == 0)
				return true;
	}
	return false;
}

/* ---- cgroup v1 layout: a tmpfs with one entry per hierarchy ---- */

/* The strings point into the mountinfo text the list was parsed from. */
struct cg_hier {
	const char *mountpoint; /* host mount point */
	const char *root;       /* mount's root inside the hierarchy */
	const char *name;       /* entry under the tmpfs: "cpu,cpuacct", "unified" */
	const char *opts;       /* controllers for a fresh mount ("cpu,cpuacct", "name=systemd"); "" for v2 */
	bool v2;
};

struct cg_hiers {
	char *text;
	struct cg_hier *v;
	size_t n;
};

static void cg_hiers_free(struct cg_hiers *h)
{
	free(h->v);
	free(h->text);
}

/* Our cgroup path in the hierarchy whose /proc/self/cgroup controller
 * list is CTRL ("" for v2). */
static int own_cgroup(const char *cgfile, const char *ctrl, char *out, size_t outlen)
{
	const char *p = cgfile;
	size_t cl = strlen(ctrl);
	while (*p) {
		const char *nl = strchrnul(p, '\n');
		const char *c1 = memchr(p, ':', (size_t)(nl - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(nl - c1 - 1)) : NULL;
		if (c2 && (size_t)(c2 - c1 - 1) == cl && strncmp(c1 + 1, ctrl, cl) == 0) {
			snprintf(out, outlen, "%.*s", (int)(nl - c2 - 1), c2 + 1);
			return 0;
		}
		p = *nl ? nl + 1 : nl;
	}
	return -ENOENT;
}

/* /proc/self/mountinfo or /proc/self/cgroup, whole */
char *cv_read_small(const char *path, cv_error_t *err)
{
	char *buf = NULL;
	size_t len;
	if (cv_read_file_at(AT_FDCWD, path, PROC_FILE_MAX, 0, &buf, &len, err) < 0)
		return NULL;
	return buf;
}

void cv_mountinfo_unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] && r[3]) {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Cuts LINE at spaces in place: up to MAX fields, returns how many. */
static size_t split_fields(char *line, char **f, size_t max)
{
	size_t n = 0;
	for (char *save = NULL, *t = strtok_r(line, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save))
		f[n++] = t;
	return n;
}

/* The controllers of a v1 super-block option list: the options minus
 * rw/ro and such, compacted in place. */
static void keep_controllers(char *super)
{
	static const char *const skip[] = { "rw",    "ro",         "clone_children", "noprefix",
					    "xattr", "nsdelegate", "cpuset_v2_mode", "favordynmods" };
	char *w = super;
	for (char *save = NULL, *tok = strtok_r(super, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool drop = strncmp(tok, "release_agent", 13) == 0;
		for (size_t i = 0; !drop && i < sizeof(skip) / sizeof(skip[0]); i++)
			drop = strcmp(tok, skip[i]) == 0;
		if (drop)
			continue;
		if (w != super)
			*w++ = ',';
		size_t l = strlen(tok);
		memmove(w, tok, l);
		w += l;
	}
	*w = '\0';
}

/* The cgroup hierarchies of /proc/self/mountinfo, one entry each (a bind
 * mount of one already seen is skipped). Parsed in place: the text stays
 * with the list, so nothing is copied per entry. */
static int list_hierarchies(struct cg_hiers *out, cv_error_t *err)
{
	out->text = cv_read_small("/proc/self/mountinfo", err);
	if (!out->text)
		return -1;
	size_t cap = 0;
	for (char *line = out->text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* id parent dev root mountpoint options [optional...] - fstype source super */
		char *f[32];
		size_t nf = split_fields(line, f, sizeof(f) / sizeof(f[0]));
		size_t dash = 6;
		while (dash < nf && strcmp(f[dash], "-") != 0)
			dash++;
		if (dash + 3 >= nf)
			continue;
		const char *fstype = f[dash + 1];
		bool v2 = strcmp(fstype, "cgroup2") == 0;
		if (!v2 && strcmp(fstype, "cgroup") != 0)
			continue;
		char *super = f[dash + 3];
		if (v2)
			super[0] = '\0';
		else
			keep_controllers(super);
		bool dup = false;
		for (size_t i = 0; i < out->n && !dup; i++)
			dup = out->v[i].v2 == v2 && strcmp(out->v[i].opts, super) == 0;
		if (dup)
			continue;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			struct cg_hier *nv = reallocarray(out->v, cap, sizeof(*nv));
			if (!nv)
				return cv_error(err, ENOMEM, "cgroup hierarchies");
			out->v = nv;
		}
		cv_mountinfo_unescape(f[3]);
		cv_mountinfo_unescape(f[4]);
		const char *base = strrchr(f[4], '/');
		out->v[out->n++] = (struct cg_hier){ .mountpoint = f[4],
						     .root = f[3],
						     .name = base ? base + 1 : f[4],
						     .opts = super,
						     .v2 = v2 };
	}
	return 0;
}

static int cgroup_attach_all(int rootfd, int destfd, const oci_mount *m, const struct parsed_opts *p,
			     const struct cv_rootfs_config *cfg, cv_error_t *err)
{
	(void)rootfd;
	/* read-only unless "rw" was asked for explicitly */
	uint64_t attrs = p->set;
	if (!(p->clr & MOUNT_ATTR_RDONLY))
		attrs |= MOUNT_ATTR_RDONLY;
	static const char *const mode[] = { "mode=755" };
	cleanup_close int tmp = cv_fs_new("tmpfs", "tmpfs", mode, 1, p->set & ~(uint64_t)MOUNT_ATTR_RDONLY, err);
	if (tmp < 0)
		return cv_error_prefix(err, "cgroup mount on `%s`", m->destination);
	/* Attached first: the hierarchies then go onto a mount of our namespace. */
	if (cv_attach_mount(tmp, destfd, "cgroup", m->destination, err) < 0)
		return -1;

	__attribute__((cleanup(cg_hiers_free))) struct cg_hiers hs = { 0 };
	if (list_hierarchies(&hs, err) < 0)
		return -1;
	const struct cg_hier *h = hs.v;
	size_t nh = hs.n;
	cleanup_free char *cgfile = cv_read_small("/proc/self/cgroup", err);
	if (!cgfile)
		return -1;

	for (size_t i = 0; i < nh; i++) {
		char own[PATH_MAX];
		const char *key = h[i].v2 ? "" : h[i].opts;
		if (own_cgroup(cgfile, key, own, sizeof(own)) < 0) {
			cv_debug("cgroup hierarchy `%s` not in /proc/self/cgroup, skipped", h[i].mountpoint);
			continue;
		}
		cleanup_close int sub = -1;
		if (spec_has_cgroupns(cfg)) {
			/* In a cgroup namespace a fresh mount shows our own cgroup as its root. */
			const char *const opt[] = { h[i].opts };
			sub = h[i].v2 ? cv_fs_new("cgroup2", "cgroup2", NULL, 0, attrs, err)
				      : cv_fs_new("cgroup", "cgroup", opt, 1, attrs, err);
			if (sub < 0)
				return cv_error_prefix(err, "cgroup mount on `%s`", m->destination);
		} else {
			/* Bind our own cgroup directory of the host hierarchy. */
			const char *rel = own;
			size_t rl = strlen(h[i].root);
			if (strcmp(h[i].root, "/") != 0) {
				if (strncmp(own, h[i].root, rl) != 0 || (own[rl] != '/' && own[rl] != '\0'))
					continue; /* our cgroup is not visible through this mount */
				rel = own + rl;
			}
			char src[PATH_MAX * 2];
			snprintf(src, sizeof(src), "%s%s", h[i].mountpoint, rel);
			sub = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
			if (sub < 0)
				return cv_error_errno(err, "cgroup mount on `%s`: bind `%s`", m->destination, src);
			if (cv_setattr_keep_locked(sub, false, attrs, p->clr & ~(uint64_t)MOUNT_ATTR_RDONLY, src, err) <
			    0)
				return cv_error_prefix(err, "cgroup mount on `%s`", m->destination);
		}
		if (mkdirat(tmp, h[i].name, 0755) < 0 && errno != EEXIST)
			return cv_error_errno(err, "cgroup mount on `%s`: mkdir `%s`", m->destination, h[i].name);
		if (move_mount(sub, "", tmp, h[i].name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return cv_error_errno(err, "cgroup mount on `%s`: attach `%s`", m->destination, h[i].name);
		/* "cpu" -> "cpu,cpuacct" for co-mounted controllers, as on the host */
		if (!h[i].v2 && strchr(h[i].name, ',')) {
			char names[256];
			snprintf(names, sizeof(names), "%s", h[i].name);
			char *save = NULL;
			for (char *tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (symlinkat(h[i].name, tmp, tok) < 0 && errno != EEXIST)
					return cv_error_errno(err, "cgroup mount on `%s`: symlink `%s`", m->destination,
							      tok);
		}
	}
	if ((attrs & MOUNT_ATTR_RDONLY) &&
	    cv_setattr_keep_locked(tmp, false, MOUNT_ATTR_RDONLY, 0, "cgroup tmpfs", err) < 0)
		return -1;
	return set_propagation(tmp, p->prop, p->rprop, m->destination, err);
}
