/* The parent side of create/start/run. The runtime clones the container
 * process with its namespaces, feeds it uid/gid maps, time offsets, the
 * cgroup and the hooks over the sync socket, and returns once the child is
 * blocked before execve. On any failure everything made so far (child,
 * cgroup, state directory) is removed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process/caps.h"
#include "cgroups/cgroups.h"
#include "cleanup.h"
#include "process/console.h"
#include "lifecycle/create.h"
#include "cvisor.h"
#include "io.h"
#include "unix-socket.h"
#include "lifecycle/exe-guard.h"
#include "lifecycle/helper.h"
#include "lifecycle/hooks.h"
#include "lifecycle/shared-launch.h"
#include "process/init.h"
#include "process/init-loop.h"
#include "log.h"
#include "process/mempolicy.h"
#include "process/namespaces.h"
#include "process/passwd.h"
#include "process/process-attrs.h"
#include "fs/mounts.h"
#include "process/process.h"
#include "seccomp/seccomp-filter.h"
#include "process/sync.h"
#include "lifecycle/status.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

struct launch {
	/* inputs */
	const struct cvisor_create_options *opts;
	bool run_mode;
	bool detach;
	/* cvisor do: no record in the state store, nothing written to disk; the
	 * container process dies with the runtime (see cv_run_transient) */
	bool transient;
	/* the config already parsed (transient): taken over, not read again */
	oci_spec *given_spec;
	/* transient: the program's stdio (struct cv_transient) */
	const int *stdio;
	bool no_cgroup; /* transient: struct cv_transient's */
	/* transient: struct cv_transient's await_start, or NULL */
	int (*await_start)(void *arg, char **args, size_t *args_len, int *stdin_fd, cv_error_t *err);
	bool start_after_while_exec; /* transient: struct cv_transient's */
	bool keyring_as_caller;      /* transient: struct cv_transient's */
	void *await_arg;
	/* transient: struct cv_transient's while_setup, or NULL */
	void (*while_setup)(const oci_spec *spec, void *arg);
	void *while_setup_arg;
	/* outputs kept for run */
	pid_t pid;
	int pidfd;
	int sync_fd;
	int console_master;
	int init_status;  /* transient with an init: its status eventfd */
	bool init_leaves; /* and the init leaves the cgroup before its status */
	oci_spec *spec;
	struct cv_container *c;
	/* the container process shares our memory (shared-launch.h): what its
	 * handshake left, its stack never unmapped while it may run */
	struct cv_shared_launch *shared;
};

/* Writes path atomically: a temporary file beside it, then rename. */
int cv_write_pid_file(const char *path, pid_t pid, cv_error_t *err)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d", (int)pid);
	const char *slash = strrchr(path, '/');
	cleanup_free char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
	if (slash && !dir)
		return cv_error(err, ENOMEM, "pid file `%s`", path);
	cleanup_close int dfd = open(dir ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return cv_error_errno(err, "pid file `%s`: open its directory", path);
	if (cv_write_file_atomic(dfd, slash ? slash + 1 : path, buf, (size_t)n, 0644, err) < 0)
		return cv_error_prefix(err, "pid file `%s`", path);
	return 0;
}

static char *owner_name(void)
{
	char *s = NULL;
	if (cv_passwd_by_uid(NULL, geteuid(), &s, NULL) != 0)
		return s;
	if (asprintf(&s, "%u", (unsigned)geteuid()) < 0)
		return NULL;
	return s;
}

static int set_status(oci_state *st, const char *status, cv_error_t *err)
{
	char *d = strdup(status);
	if (!d)
		return cv_error(err, ENOMEM, "state");
	free(st->status);
	st->status = d;
	return 0;
}

static int public_state(oci_state *st, const char *status, char **out, cv_error_t *err)
{
	size_t len;
	cleanup_free char *saved = st->status ? strdup(st->status) : NULL;
	int r = set_status(st, status, err);
	if (r < 0)
		return r;
	r = oci_state_emit_public(st, false, out, &len, err);
	if (saved) {
		free(st->status);
		st->status = steal_pointer(&saved);
	}
	return r;
}

static int kill_pidfd_wait(int pidfd, pid_t pid, bool reap)
{
	(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	if (reap) {
		pid_t w;
		do
			w = waitpid(pid, NULL, 0);
		while (w < 0 && errno == EINTR);
	}
	return 0;
}

/* Namespaces joined by path (except user) are joined by the runtime itself
 * around clone, so new namespaces created by clone sit next to them with the
 * right owner; the runtime's own are restored right after. */
struct ns_save {
	int fd[8];
	int type[8];
	int n;
};

static void ns_restore(struct ns_save *s)
{
	for (int i = s->n - 1; i >= 0; i--) {
		if (setns(s->fd[i], s->type[i]) < 0)
			cv_warn("restore the runtime's namespace: %s", strerror(errno));
		close(s->fd[i]);
	}
	s->n = 0;
}

static const char *ns_self_name(int type)
{
	switch (type) {
	case CLONE_NEWPID:
		return "pid_for_children";
	case CLONE_NEWNET:
		return "net";
	case CLONE_NEWNS:
		return "mnt";
	case CLONE_NEWIPC:
		return "ipc";
	case CLONE_NEWUTS:
		return "uts";
	case CLONE_NEWCGROUP:
		return "cgroup";
	case CLONE_NEWTIME:
		return "time_for_children";
	default:
		return NULL;
	}
}

static int ns_join_parent(const struct cv_ns_plan *plan, struct ns_save *s, cv_error_t *err)
{
	const char *paths[9];
	int types[9], n = 0;
	if (plan->pid_path) {
		paths[n] = plan->pid_path;
		types[n++] = CLONE_NEWPID;
	}
	for (int i = 0; i < plan->njoin; i++) {
		paths[n] = plan->join_path[i];
		types[n++] = plan->join_type[i];
	}
	for (int i = 0; i < n; i++) {
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/ns/%s", ns_self_name(types[i]));
		int own = open(self, O_RDONLY | O_CLOEXEC);
		if (own < 0)
			return cv_error_errno(err, "open `%s`", self);
		s->fd[s->n] = own;
		s->type[s->n++] = types[i];
		cleanup_close int target = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (target < 0)
			return cv_error_errno(err, "open namespace `%s`", paths[i]);
		if (setns(target, types[i]) < 0)
			return cv_error_errno(err, "setns `%s`", paths[i]);
	}
	return 0;
}

#define ROOTFS_CLONE_FILE "rootfs-clone" /* in the state directory */

/* Without a mount namespace: the id of the clone the ready container
 * process stacked on ROOTFS (it was BELOW before), kept for delete. */
static int record_rootfs_clone(struct cv_container *c, const char *rootfs, uint64_t below, cv_error_t *err)
{
	uint64_t top;
	char buf[32];
	if (cv_rootfs_mount_id(rootfs, &top, err) < 0)
		return -1;
	if (top == below)
		return cv_error(err, EIO, "rootfs `%s`: the container's mounts are not on it", rootfs);
	if (!c->entry)
		return 0;
	int n = snprintf(buf, sizeof(buf), "%" PRIu64 "\n", top);
	return cv_write_file_atomic(c->entry->dirfd, ROOTFS_CLONE_FILE, buf, (size_t)n, 0600, err);
}

/* delete: the mounts of a container without a mount namespace go with it. */
static int detach_rootfs_clone(struct cv_container *c, cv_error_t *err)
{
	char buf[32];
	ssize_t n = cv_read_buf_at(c->entry->dirfd, ROOTFS_CLONE_FILE, buf, sizeof(buf));
	if (n == -ENOENT)
		return 0; /* it had a mount namespace */
	if (n < 0)
		return cv_error(err, (int)-n, "read `%s` in the state directory", ROOTFS_CLONE_FILE);
	char *end;
	errno = 0;
	uint64_t id = strtoull(buf, &end, 10);
	if (errno || end == buf || *end != '\n')
		return cv_error(err, EINVAL, "`%s` in the state directory: not a mount id", ROOTFS_CLONE_FILE);
	return cv_rootfs_detach_clone(c->state->rootfs, id, err);
}

/* The fds of 0-2 that the pty of process.terminal becomes: those STDIO
 * marks (transient), else all three. */
static int console_mask(const int *stdio)
{
	if (!stdio)
		return CV_CONSOLE_ALL_STDIO;
	int m = 0;
	for (int fd = 0; fd < 3; fd++)
		if (stdio[fd] == CV_STDIO_PTY)
			m |= 1 << fd;
	return m;
}

/* What launch builds, step by step. Once `undo` is set, a failure removes
 * what exists (launch_undo); launch_work_release frees the rest. */
struct launch_work {
	char *bundle;
	char *config_data; /* the config as read (NULL when given in memory) */
	size_t config_len;
	char *rootfs; /* root.path, resolved */
	struct cv_seccomp *seccomp;
	struct cv_ns_plan plan;
	struct cv_cgroup_config cgc;
	bool undo;             /* from the state directory on, failures clean up */
	bool created;          /* the state directory is ours to remove */
	bool want_init;        /* the init annotation: an init runs the program */
	bool no_mount_ns;      /* the mounts are made in the runtime's namespace */
	bool below_known;      /* rootfs_below is read: undo detaches what is above */
	uint64_t rootfs_below; /* without a mount namespace: see cv_rootfs_mount_id */
	int fifo;              /* exec.fifo, O_PATH (create) */
	int sock_parent, sock_child;
	int status_r, status_w;         /* transient with an init: its status eventfd, ours and its */
	struct cv_rootfs_pruned pruned; /* cv_rootfs_pruned_prepare: the child's too */
	int *idmap_fds;                 /* cv_rootfs_idmap_prepare's, until the child has them */
	struct cv_cgroup_self_join cgjoin;
	pid_t pid;
	int pidfd;
	int master;                      /* the pty master, unless sent to the console socket */
	bool into_cgroup;                /* the child was born in its v2 directory */
	bool v2;                         /* the container has a v2 directory */
	bool early;                      /* no hook takes the state: the child goes on at once */
	bool handshake;                  /* the child stops once its namespaces exist (NS_READY) */
	oci_state *state;                /* the record; moved to the container once complete */
	bool share;                      /* the child may share our memory (share_memory) */
	struct cv_shared_launch *shared; /* it does: its handshake done */
	int image_fd;                    /* the init's own program (shared, with a memory limit) */
	int *leave_fds;                  /* the init's way out of the cgroup (cv_cgroup_leave_open) */
	size_t nleave;
	struct cv_cgroup_memory_apart memory; /* the v1 memory cgroup kept from a shared init */
};

static void leave_fds_release(struct launch_work *w)
{
	for (size_t i = 0; i < w->nleave; i++)
		close(w->leave_fds[i]);
	free(steal_pointer(&w->leave_fds));
	w->nleave = 0;
	cv_closep(&w->memory.leave);
	cv_closep(&w->memory.join);
}

static void launch_work_release(struct launch_work *w, size_t mounts_len)
{
	free(w->bundle);
	free(w->config_data);
	free(w->rootfs);
	cv_seccomp_free(w->seccomp);
	cv_closep(&w->fifo);
	cv_closep(&w->sock_parent);
	cv_closep(&w->sock_child);
	cv_closep(&w->status_r);
	cv_closep(&w->status_w);
	cv_closep(&w->image_fd);
	leave_fds_release(w);
	cv_rootfs_pruned_release(&w->pruned);
	cv_closep(&w->pidfd);
	cv_closep(&w->master);
	if (w->idmap_fds)
		cv_rootfs_idmap_release(w->idmap_fds, mounts_len);
	cv_cgroup_self_join_close(&w->cgjoin);
	if (w->shared) {
		/* still here only after a failure: no child, or launch_undo
		 * reaped it (on success it moved to L, the init on its stack) */
		cv_shared_launch_release(w->shared);
		free(w->shared);
	}
}

static bool memory_limit(const oci_spec *spec)
{
	const oci_resources *r = spec->linux_ ? spec->linux_->resources : NULL;
	return r && r->memory && r->memory->limit.set;
}

/* A launch that was to share our memory forks after all. */
static void launch_unshare(struct launch_work *w)
{
	cv_shared_launch_release(w->shared);
	free(steal_pointer(&w->shared));
	cv_closep(&w->image_fd); /* a forked init keeps a copy of its own */
}

/* Whether the container process may share our memory (shared-launch.h): a
 * transient run that needs nothing of ours from its clone to its program
 * but its id maps; its v1 cgroups are made before the clone then, for it
 * to join first thing. Not with process.oomScoreAdj either: the kernel
 * gives it to every process sharing the memory; with a memory limit only
 * where the init can become a program of its own (shared-launch.h). */
static bool share_memory(const struct launch *L, const struct launch_work *w)
{
	const oci_spec *spec = L->spec;
	const oci_hooks *h = spec->hooks;
	const struct cv_ns_plan *plan = &w->plan;
	return cv_shared_launch_allowed() && L->transient && !L->await_start && !L->start_after_while_exec &&
	       w->early && (!memory_limit(spec) || cv_shared_launch_image_init()) &&
	       !(h && (h->prestart.len || h->create_runtime.len)) &&
	       !(w->seccomp && cv_seccomp_has_notify(w->seccomp)) && !spec->process->terminal &&
	       !spec->process->oom_score_adj.set && !plan->user_path && plan->njoin == 0 && !plan->pid_path &&
	       !(plan->new_flags & CLONE_NEWTIME) && !w->no_mount_ns;
}

/* Reads and checks the config and everything derived from it (rootfs,
 * namespaces, seccomp filter, cgroup settings). Nothing exists yet, so a
 * failure has nothing to undo. */
static int launch_validate(const struct cvisor_context *ctx, const char *id, struct launch *L, struct launch_work *w,
			   cv_error_t *err)
{
	const struct cvisor_create_options *opts = L->opts;
	cleanup_free char *config_path = NULL;
	oci_spec *spec;
	int r;

	r = cv_store_validate_id(id, err);
	if (r < 0)
		return r;
	r = cv_exe_guard_check(err);
	if (r < 0)
		return r;
	w->bundle = realpath(opts && opts->bundle ? opts->bundle : ".", NULL);
	if (!w->bundle)
		return cv_error_errno(err, "bundle `%s`", opts && opts->bundle ? opts->bundle : ".");
	if (opts && opts->config_path)
		config_path = strdup(opts->config_path);
	else if (asprintf(&config_path, "%s/config.json", w->bundle) < 0)
		config_path = NULL;
	if (!config_path)
		return cv_error(err, ENOMEM, "create");
	if (L->given_spec) {
		/* built in memory by the caller: validated as a parsed one is */
		L->spec = steal_pointer(&L->given_spec);
		r = oci_spec_validate(L->spec, "config.json", err);
		if (r < 0)
			return r;
	} else {
		r = cv_read_file_at(AT_FDCWD, config_path, OCI_JSON_MAX_SIZE, 0, &w->config_data, &w->config_len, err);
		if (r < 0)
			return r;
		r = oci_spec_parse(w->config_data, w->config_len, "config.json", &L->spec, err);
		if (r < 0)
			return r;
	}
	spec = L->spec;
	if (!spec->process)
		return cv_error(err, EINVAL, "config.json: process: required");
	if (!spec->process->args.len)
		return cv_error(err, EINVAL, "config.json: process.args: must not be empty");
	if (!spec->root || !spec->root->path)
		return cv_error(err, EINVAL, "config.json: root.path: required");
	const char *init = oci_kv_get(&spec->annotations, CV_INIT_ANNOTATION);
	if (init && strcmp(init, "true") != 0 && strcmp(init, "false") != 0)
		return cv_error(err, EINVAL, "annotations[\"%s\"]: expected \"true\" or \"false\", got \"%s\"",
				CV_INIT_ANNOTATION, init);
	w->want_init = init && strcmp(init, "true") == 0;
	const char *console_socket = opts ? opts->console_socket : NULL;
	/* transient: the caller takes the master (cv_run_transient) */
	if (spec->process->terminal && !console_socket && (!L->run_mode || L->detach) && !L->transient)
		return cv_error_plain(err, EINVAL,
				      "cannot allocate tty if cvisor will detach without setting console socket");
	if (!spec->process->terminal && console_socket)
		return cv_error_plain(err, EINVAL,
				      "cannot use console socket if cvisor will not detach or allocate tty");
	if (spec->process->terminal && !console_socket && L->run_mode && !L->detach) {
		/* The caller's terminal is relayed: without one, fail before
		 * anything exists (runc fails the same way, on /dev/tty). */
		int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (tty < 0)
			return cv_error_errno(err, "process.terminal without --console-socket: the caller has "
						   "no terminal: open `/dev/tty`");
		close(tty);
	}
	if ((r = cv_caps_validate(spec->process->capabilities, err)) < 0 ||
	    (r = cv_attrs_validate(spec->process, spec->linux_, err)) < 0 ||
	    (r = cv_mempolicy_validate(spec->linux_ ? spec->linux_->memory_policy : NULL, err)) < 0 ||
	    (r = cv_ns_plan_build(spec->linux_, &w->plan, err)) < 0)
		return r;
	/* Without a mount namespace, the mounts are made in ours (see
	 * cv_rootfs_mount_id): a process in a user namespace of its own may
	 * not mount there. */
	w->no_mount_ns = !((w->plan.new_flags | w->plan.join_flags) & CLONE_NEWNS);
	if (w->no_mount_ns && ((w->plan.new_flags | w->plan.join_flags) & CLONE_NEWUSER))
		return cv_error_plain(err, EINVAL,
				      "linux.namespaces: a user namespace needs a mount namespace "
				      "too (the mounts cannot be made in the runtime's)");

	if (spec->root->path[0] == '/') {
		w->rootfs = realpath(spec->root->path, NULL);
		if (!w->rootfs)
			return cv_error_errno(err, "root.path: rootfs `%s`", spec->root->path);
	} else {
		cleanup_free char *joined = NULL;
		if (asprintf(&joined, "%s/%s", w->bundle, spec->root->path) < 0)
			return cv_error(err, ENOMEM, "create");
		w->rootfs = realpath(joined, NULL);
		if (!w->rootfs)
			return cv_error_errno(err, "root.path: rootfs `%s`", joined);
	}
	if (w->no_mount_ns && strcmp(w->rootfs, "/") == 0)
		return cv_error_plain(err, EINVAL,
				      "root.path `/`: the host's root needs a mount namespace of its "
				      "own (linux.namespaces has no mount)");

	/* without hooks that take the state, the child goes on once its
	 * namespaces exist (see launch_handshake) */
	w->early = !(spec->hooks && (spec->hooks->create_container.len || spec->hooks->start_container.len));
	if (spec->linux_ && spec->linux_->seccomp) {
		r = cv_seccomp_compile(spec->linux_->seccomp, &w->seccomp, err);
		if (r < 0)
			return r;
	}
	w->share = share_memory(L, w);
	w->cgc = (struct cv_cgroup_config){
		.id = id,
		.cgroups_path = spec->linux_ ? spec->linux_->cgroups_path : NULL,
		.resources = spec->linux_ ? spec->linux_->resources : NULL,
		.systemd = ctx && ctx->systemd_cgroup,
		/* --rootless, or by default when not root or in a user namespace
		 * (runc's rule; podman's rootless mode runs us as root of one): a
		 * cgroup the caller may not create is a debug line, and the run
		 * goes on without it */
		.rootless = ctx &&
			    (ctx->rootless > 0 || (ctx->rootless < 0 && (geteuid() != 0 || cv_ns_in_user_namespace()))),
		/* the linux.devices nodes must be usable, not only created */
		.devices = spec->linux_ ? spec->linux_->devices : NULL,
		.devices_len = spec->linux_ ? spec->linux_->devices_len : 0,
		/* the hierarchies to join (cgroups.h) */
		.controllers = oci_kv_get(&spec->annotations, CV_CGROUP_ANNOTATION_CONTROLLERS),
		.none = L->no_cgroup,
		/* the child learns of the v1 directories after the CONTINUE of
		 * the namespace handshake: not when that carries the hooks'
		 * state, nor when it shares our memory (it joins them first) */
		.v1_after_clone = w->early && !w->share,
	};
	return cv_cgroup_config_validate(&w->cgc, err);
}

/* What the container stands on before its process exists: its state
 * directory (none for a transient run) with the config copy, its cgroup
 * (where v1 hierarchies exist only its v2 directory, see send_late_cgroups),
 * the exec fifo, the sync socket, and the sources of idmapped mounts. */
static int launch_record(const struct cvisor_context *ctx, const char *id, struct launch *L, struct launch_work *w,
			 cv_error_t *err)
{
	struct cv_container *c;
	int r;

	c = L->c = calloc(1, sizeof(*c));
	if (!c)
		return cv_error(err, ENOMEM, "create");
	r = cv_context_root(ctx, &c->root, err);
	if (r < 0)
		return r;
	if (!L->transient) {
		r = cv_store_create(c->root, id, &c->entry, err);
		if (r < 0)
			return r;
		w->created = true;
	}
	w->undo = true;

	if (c->entry &&
	    (r = cv_write_file_atomic(c->entry->dirfd, "config.json", w->config_data, w->config_len, 0600, err)) < 0)
		return r;
	r = cv_cgroup_create(&w->cgc, &c->cg, err);
	if (r < 0)
		return r;
	/* 0622 past the umask: the container process reopens it after
	 * switching to process.user (see child_setup in process.c). */
	if (!L->run_mode &&
	    (mkfifoat(c->entry->dirfd, "exec.fifo", 0622) < 0 || fchmodat(c->entry->dirfd, "exec.fifo", 0622, 0) < 0))
		return cv_error_errno(err, "create the exec fifo");
	/* Opened here: a container process mapped to an unprivileged host id
	 * cannot enter the state directory (0700) to find it. */
	if (!L->run_mode && (w->fifo = openat(c->entry->dirfd, "exec.fifo", O_PATH | O_CLOEXEC)) < 0)
		return cv_error_errno(err, "open the exec fifo");
	if (w->no_mount_ns) {
		if ((r = cv_rootfs_mount_id(w->rootfs, &w->rootfs_below, err)) < 0)
			return r;
		w->below_known = true;
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return cv_error_errno(err, "socketpair");
	w->sock_parent = sv[0];
	w->sock_child = sv[1];
	if (w->want_init && L->transient) {
		/* An eventfd, the init's fd and ours: a pipe's write wakes its
		 * reader with a "sync" wakeup, which says the writer sleeps next
		 * and may bring the supervisor onto the init's CPU, where the
		 * init, whose exit comes next, waits for it (0.2 to 0.4 ms of a
		 * `cvisor do true` here). Without an end of file: the supervisor
		 * learns of an init that dies without a word from its pidfd. */
		w->status_r = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (w->status_r < 0 || (w->status_w = fcntl(w->status_r, F_DUPFD_CLOEXEC, 3)) < 0)
			return cv_error_errno(err, "init: status eventfd");
	}
	/* Idmapped mounts need privilege over the source filesystem, which a
	 * container process in its own user namespace lacks: made here. */
	if (((w->plan.new_flags | w->plan.join_flags) & CLONE_NEWUSER) &&
	    (r = cv_rootfs_idmap_prepare(L->spec, &w->idmap_fds, err)) < 0)
		return r;
	/* The same for a root without the host's mounts below some paths. */
	return cv_rootfs_pruned_prepare(L->spec, w->rootfs, &w->pruned, err);
}

/* The cloned child: cv_child_main with what it needs, never returns. */
__attribute__((noreturn)) static void launch_child(const char *id, const struct launch *L, struct launch_work *w,
						   bool cloned_new_ns, bool late_cgroupns, bool late_netns,
						   bool late_cgroups)
{
	const struct cvisor_create_options *opts = L->opts;
	struct cv_container *c = L->c;

	close(w->sock_parent);
	/* The store lock is an open file description lock: holding a copy of
	 * its fd would keep every later command on this container waiting. */
	if (c->entry)
		close(c->entry->lockfd);
	/* A host directory: the child never needs it (exec.fifo comes opened
	 * O_PATH), and holding it is a way out of the rootfs. */
	if (c->entry)
		close(c->entry->dirfd);
	int listen = 0;
	const char *lf = getenv("LISTEN_FDS");
	if (lf)
		listen = atoi(lf);
	struct cv_child_config cc = {
		.spec = L->spec,
		.rootfs = w->rootfs,
		.id = id,
		.plan = &w->plan,
		.cloned_new_ns = cloned_new_ns,
		.late_netns = late_netns,
		.sync_fd = w->sock_child,
		.exec_fifo_fd = w->fifo,
		.seccomp = w->seccomp,
		.no_pivot = opts && opts->no_pivot,
		.no_new_keyring = opts && opts->no_new_keyring,
		.keyring_as_caller = L->keyring_as_caller,
		.preserve_fds = (opts ? opts->preserve_fds : 0) + (listen > 0 ? listen : 0),
		.listen_fds = listen > 0 ? listen : 0,
		.cgroup_join = &w->cgjoin,
		/* a sandbox: no cgroup mount, and createContainer hooks would
		 * run after the join, so only the runtime's own setup is left
		 * out of the cgroups, nothing of the container's */
		.cgroup_join_late = L->transient && w->cgjoin.n > 0 && !late_cgroups,
		.unshare_cgroupns = late_cgroupns,
		.cgroup_late = late_cgroups,
		.mount_fds = w->idmap_fds,
		.pruned = &w->pruned,
		.die_with_parent = L->transient,
		.ns_handshake = w->handshake,
		.no_start_wait = L->transient && !L->await_start && !L->start_after_while_exec,
		.late_args = L->await_start != NULL,
		.stdio = L->stdio,
		.console_mask = console_mask(L->stdio),
		.init = w->want_init,
		.init_status_fd = w->status_w,
		.init_image_fd = w->image_fd,
		.init_leave_fds = w->leave_fds,
		.init_nleave = w->nleave,
		.init_memory = w->memory.join >= 0 ? &w->memory : NULL,
	};
	cv_child_main(&cc);
}

struct child_args {
	const char *id;
	const struct launch *L;
	struct launch_work *w;
	bool clone_all, late_cgroupns, late_netns, v1_late;
};

static int shared_child(void *arg)
{
	const struct child_args *a = arg;
	launch_child(a->id, a->L, a->w, a->clone_all, a->late_cgroupns, a->late_netns, a->v1_late);
}

/* Whether the child must stop once its namespaces exist, for us to write
 * its id maps or time offsets, move it into its cgroup, or give it the
 * state for its hooks; otherwise a round trip saved (~0.13 ms). */
static bool needs_handshake(const struct cv_ns_plan *plan, const struct launch_work *w)
{
	return (plan->new_flags & (CLONE_NEWUSER | CLONE_NEWTIME)) || !w->early || (!w->into_cgroup && w->v2);
}

/* Clones the container process: into the namespaces joined by path (the
 * runtime enters them around the clone), new ones made by the clone itself
 * where it can, and its v2 cgroup directory. */
static int launch_clone(const char *id, struct launch *L, struct launch_work *w, cv_error_t *err)
{
	const struct cv_ns_plan *plan = &w->plan;
	struct ns_save saved = { .n = 0 };
	int r;

	/* CVE-2019-5736: a non-dumpable runtime cannot be reached through
	 * /proc/PID/exe (or its fds/memory) by a container process without
	 * CAP_SYS_PTRACE over the runtime. The child inherits this and keeps it
	 * until execve replaces the image. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return cv_error_errno(err, "prctl PR_SET_DUMPABLE");
	r = ns_join_parent(plan, &saved, err);
	/* The child is born in its v2 directory (CLONE_INTO_CGROUP, hybrid's
	 * cgroup2 hierarchy too) and joins the v1 ones itself before anything
	 * else (cv_cgroup_self_join): no pid is written from outside, so no RCU
	 * grace period of the cgroup lock (~10 ms) and no window in the
	 * caller's cgroup. Its cgroup namespace is then made after the join, so
	 * it is rooted at the container's cgroup. Kernels without
	 * CLONE_INTO_CGROUP fall back to cv_cgroup_enter (launch_handshake). */
	if (r == 0)
		r = cv_cgroup_self_join_open(L->c->cg, &w->cgjoin, err);
	if (r < 0) {
		ns_restore(&saved);
		return r;
	}
	/* Every new namespace comes from the clone, the joined ones entered
	 * above: a new user namespace then owns them all (a pid namespace made
	 * apart from it would refuse the container's /proc mount). Only a
	 * joined user namespace is entered by the child, before it unshares. */
	bool clone_all = !plan->user_path;
	uint64_t flags = clone_all ? (uint64_t)(plan->new_flags & ~CLONE_NEWTIME)
				   : (uint64_t)(plan->new_flags & CLONE_NEWPID);
	struct clone_args ca = {
		.flags = flags | CLONE_PIDFD,
		.pidfd = (uint64_t)(uintptr_t)&w->pidfd,
		.exit_signal = SIGCHLD,
	};
	int ufd = cv_cgroup_clone_fd(L->c->cg);
	w->v2 = w->into_cgroup = ufd >= 0;
	bool v1_late = cv_cgroup_v1_pending(L->c->cg);
	bool late_cgroupns = clone_all && (flags & CLONE_NEWCGROUP) && (w->into_cgroup || w->cgjoin.n > 0 || v1_late);
	if (w->into_cgroup) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)ufd;
	}
	if (late_cgroupns)
		ca.flags &= ~(uint64_t)CLONE_NEWCGROUP;
	bool late_netns = clone_all && (flags & CLONE_NEWNET);
	if (late_netns)
		ca.flags &= ~(uint64_t)CLONE_NEWNET;
	/* a transient init leaves its cgroup once its namespace is empty, so
	 * that the cgroup can go before the init's exit (init.h) */
	if (L->transient && w->status_w >= 0 && !v1_late && L->c->cg &&
	    (r = cv_cgroup_leave_open(L->c->cg, &w->leave_fds, &w->nleave, err)) < 0) {
		ns_restore(&saved);
		return r;
	}
	if (w->nleave > CV_INIT_MAX_LEAVE)
		leave_fds_release(w);
	/* before the clone: a child sharing our memory reads it at once */
	w->handshake = needs_handshake(plan, w);
	if (w->share && clone_all && saved.n == 0 && !v1_late && (ufd < 0 || cv_shared_launch_clone_into_cgroup())) {
		w->shared = calloc(1, sizeof(*w->shared));
		r = w->shared ? cv_shared_launch_prepare(w->shared, L->spec->linux_,
							 (plan->new_flags & CLONE_NEWUSER) != 0, err)
			      : cv_error(err, ENOMEM, "create");
		if (r < 0)
			return r;
		if (r == 0)
			launch_unshare(w);
		/* The init must not be in the memory cgroup with our memory,
		 * which its OOM killer would kill with it: a v1 one it leaves
		 * before the program starts (cv_cgroup_memory_apart); else it
		 * becomes a program of its own (process/init-image.c), or
		 * without that program (a memfd policy that refuses executable
		 * ones) the container process forks. */
		cleanup_error cv_error_t image_err = NULL;
		r = w->shared && memory_limit(L->spec) && L->transient && w->cgjoin.n > 0
			    ? cv_cgroup_memory_apart(L->c->cg, &w->cgjoin, w->leave_fds, &w->nleave, &w->memory, err)
			    : 0;
		if (r < 0)
			return r;
		if (w->shared && memory_limit(L->spec) && r == 0 &&
		    (w->image_fd = cv_shared_launch_image_fd(&image_err)) < 0) {
			cv_debug("the init's own program: %s; the container process forks", image_err->msg);
			launch_unshare(w);
		}
	}
	fflush(NULL);
	pid_t pid;
	int shared_r = 0;
	if (w->shared) {
		struct cv_log_saved logs;
		struct child_args a = { id, L, w, clone_all, late_cgroupns, late_netns, v1_late };
		cv_log_save(&logs);
		pid = cv_shared_launch_clone(w->shared, &ca, shared_child, &a);
		if (pid < 0 && w->into_cgroup) {
			/* forked instead, by the retry below */
			int e = errno;
			launch_unshare(w);
			errno = e;
		}
		if (pid > 0) {
			/* nothing of ours but this until the child's end of file */
			cv_shared_launch_wait(w->shared, pid, w->pidfd, w->sock_parent, w->sock_child);
			w->sock_child = -1;
			shared_r = cv_shared_launch_result(w->shared, pid, &logs, err);
		}
	} else {
		pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	}
	/* Any refusal of CLONE_INTO_CGROUP (old kernel, a rootless caller
	 * without write access, a busy v2 directory): retry without it, and
	 * cv_cgroup_enter reports or (rootless) warns as it always did; an
	 * error unrelated to the cgroup comes back from the retry. */
	if (pid < 0 && w->into_cgroup) {
		w->into_cgroup = false;
		ca.flags &= ~(uint64_t)CLONE_INTO_CGROUP;
		ca.cgroup = 0;
		if (late_cgroupns && w->cgjoin.n == 0 && !v1_late) {
			late_cgroupns = false;
			ca.flags |= CLONE_NEWCGROUP;
		}
		pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	}
	w->handshake = needs_handshake(plan, w); /* into_cgroup may have changed */
	if (pid == 0)
		launch_child(id, L, w, clone_all, late_cgroupns, late_netns, v1_late);
	int clone_errno = errno;
	ns_restore(&saved);
	if (pid < 0)
		return cv_error(err, clone_errno, "clone the container process");
	w->pid = pid;
	if (w->sock_child >= 0)
		close(steal_fd(&w->sock_child));
	if (w->status_w >= 0)
		close(steal_fd(&w->status_w));
	L->init_leaves = w->nleave > 0 || w->memory.leave >= 0;
	leave_fds_release(w);
	cv_closep(&w->image_fd);
	cv_cgroup_self_join_close(&w->cgjoin);
	cv_rootfs_idmap_release(w->idmap_fds, L->spec->mounts_len); /* the child has its copies */
	w->idmap_fds = NULL;
	cv_rootfs_pruned_release(&w->pruned);
	return shared_r;
}

/* The record of the container, as `state` shows it; the child prepares its
 * root meanwhile. */
static int new_state(const struct cvisor_context *ctx, const char *id, struct launch *L, struct launch_work *w,
		     cv_error_t *err)
{
	const struct cvisor_create_options *opts = L->opts;
	oci_state *st = w->state = calloc(1, sizeof(*st));
	if (!st)
		return cv_error(err, ENOMEM, "state");
	st->oci_version = strdup(OCI_VERSION);
	st->id = strdup(id);
	st->status = strdup("creating");
	st->pid = w->pid;
	st->bundle = strdup(w->bundle);
	st->rootfs = strdup(w->rootfs);
	st->created = cv_now_rfc3339();
	st->owner = owner_name();
	st->systemd_cgroup = ctx && ctx->systemd_cgroup;
	st->no_pivot = opts && opts->no_pivot;
	st->no_new_keyring = opts && opts->no_new_keyring;
	if (!st->oci_version || !st->id || !st->status || !st->bundle || !st->rootfs || !st->created || !st->owner)
		return cv_error(err, ENOMEM, "state");
	st->annotations = L->spec->annotations;
	L->spec->annotations = (oci_kv_list){ 0 }; /* moved: the state owns them now */
	/* our child: without the handshake it may have run its program to the
	 * end already (cvisor do true on a busy machine) */
	int r = cv_proc_start_time(w->pid, true, &st->pid_start);
	if (r < 0)
		return cv_error(err, -r, "read the start time of pid %d", (int)w->pid);
	L->c->state = steal_pointer(&w->state);
	return cv_cgroup_save(L->c->cg, &L->c->state->cgroup_paths, err);
}

/* The state for the child's createContainer and startContainer hooks: the
 * two documents one after the other, each NUL-terminated. */
static int hook_states(oci_state *st, char **out, size_t *len, cv_error_t *err)
{
	cleanup_free char *a = NULL, *b = NULL;
	int r;
	if ((r = public_state(st, "creating", &a, err)) < 0 || (r = public_state(st, "created", &b, err)) < 0)
		return r;
	size_t la = strlen(a), lb = strlen(b);
	char *p = malloc(la + 1 + lb + 1);
	if (!p)
		return cv_error(err, ENOMEM, "hooks");
	memcpy(p, a, la + 1);
	memcpy(p + la + 1, b, lb + 1);
	*out = p;
	*len = la + 1 + lb;
	return 0;
}

/* cv_cgroup_config.v1_after_clone: the directories, then their `tasks`
 * files to the child, one message each and one without a file last (see
 * join_late_cgroups in process.c). */
static int send_late_cgroups(struct launch_work *w, struct cv_cgroup *cg, cv_error_t *err)
{
	struct cv_cgroup_self_join j;
	int r = cv_cgroup_create_v1(cg, &w->cgc, err);
	if (r < 0 || (r = cv_cgroup_self_join_open(cg, &j, err)) < 0)
		return r;
	for (size_t i = 0; i < j.n && r == 0; i++)
		r = cv_sync_send(w->sock_parent, CV_SYNC_CGROUP, j.rootless, j.path[i], strlen(j.path[i]), j.fd[i],
				 err);
	cv_cgroup_self_join_close(&j);
	return r < 0 ? r : cv_sync_send(w->sock_parent, CV_SYNC_CGROUP, 0, NULL, 0, -1, err);
}

/* The caller's while_setup, then the record: new_state moves the config's
 * annotations into it. */
static int make_record(const struct cvisor_context *ctx, const char *id, struct launch *L, struct launch_work *w,
		       cv_error_t *err)
{
	if (L->while_setup)
		L->while_setup(L->spec, L->while_setup_arg);
	return new_state(ctx, id, L, w, err);
}

/* The record of a child past READY: run's says "running" at once. */
static int make_late_record(const struct cvisor_context *ctx, const char *id, struct launch *L, struct launch_work *w,
			    cv_error_t *err)
{
	int r = make_record(ctx, id, L, w, err);
	return r < 0 || !L->run_mode ? r : set_status(L->c->state, "running", err);
}

/* Everything the child needs from us between its clone and READY, in the
 * order it asks: its cgroup (when the clone could not place it), id maps
 * and time offsets, the state for its hooks, the prestart and
 * createRuntime hooks, its console and its seccomp listener. */
static int launch_handshake(const struct cvisor_context *ctx, const char *id, struct launch *L, struct launch_work *w,
			    cv_error_t *err)
{
	const oci_spec *spec = L->spec;
	const oci_hooks *hooks = spec->hooks;
	const char *console_socket = L->opts ? L->opts->console_socket : NULL;
	struct cv_container *c = L->c;
	struct cv_sync_msg m = { .fd = -1 };
	int r;

	/* its handshake was cv_shared_launch_wait's: it is ready, its program
	 * started (or it failed, which start_launched reports) */
	if (w->shared)
		return make_late_record(ctx, id, L, w, err);
	if (!w->into_cgroup && w->v2 && (r = cv_cgroup_enter(c->cg, w->pid, err)) < 0)
		return r;
	if (w->handshake) {
		r = cv_sync_expect(w->sock_parent, CV_SYNC_NS_READY, &m, err);
		cv_sync_msg_release(&m);
		if (r < 0)
			return r;
	}
	if ((w->plan.new_flags & CLONE_NEWUSER) && (r = cv_ns_write_id_maps(w->pid, spec->linux_, err)) < 0)
		return r;
	if ((w->plan.new_flags & CLONE_NEWTIME) && (r = cv_ns_write_time_offsets(w->pid, spec->linux_, err)) < 0)
		return r;

	/* Without hooks that take the state, the child goes on at once and
	 * the record is built while it prepares its root, or once it is ready
	 * (below; it waited ~0.1 ms for the passwd lookup, the clock and /proc
	 * reads of new_state). */
	if (w->handshake && w->early && (r = cv_sync_send(w->sock_parent, CV_SYNC_CONTINUE, 0, NULL, 0, -1, err)) < 0)
		return r;
	/* the v1 cgroups while the child prepares its root */
	if (cv_cgroup_v1_pending(c->cg) && (r = send_late_cgroups(w, c->cg, err)) < 0)
		return r;
	/* A transient container's record (and its caller's while_setup) is
	 * nobody's before the child is ready, unless hooks or a seccomp agent
	 * take the state: then made once it is. Made now, the child and the
	 * network namespace's helper would share two CPUs with us while it
	 * prepares its root (~0.3 ms later to its execve, 300 runs). */
	bool runtime_hooks = hooks && (hooks->prestart.len || hooks->create_runtime.len);
	bool notify = w->seccomp && cv_seccomp_has_notify(w->seccomp);
	bool record_late = L->transient && w->early && !c->entry && !runtime_hooks && !notify;
	if (!record_late && (r = make_record(ctx, id, L, w, err)) < 0)
		return r;
	oci_state *st = c->state;
	if (!w->early) {
		cleanup_free char *payload = NULL;
		size_t len = 0;
		if ((r = hook_states(st, &payload, &len, err)) < 0 ||
		    (r = cv_sync_send(w->sock_parent, CV_SYNC_CONTINUE, 0, payload, len, -1, err)) < 0)
			return r;
	}
	/* run writes the record once, as "running", now while the child
	 * prepares its root: we hold the entry's lock until the program runs,
	 * so nobody reads it early, and the file it creates (~1 ms on this
	 * ext4 under load) was between the child's READY and its execve */
	if (!record_late && L->run_mode &&
	    ((r = set_status(st, "running", err)) < 0 ||
	     (c->entry && (r = cv_store_write_state(c->entry, st, err)) < 0)))
		return r;
	if (runtime_hooks) {
		cleanup_free char *js = NULL;
		r = cv_sync_expect(w->sock_parent, CV_SYNC_HOOKS, &m, err);
		cv_sync_msg_release(&m);
		if (r < 0)
			return r;
		if ((r = public_state(st, "creating", &js, err)) < 0 ||
		    (r = cv_hooks_run(&hooks->prestart, "prestart", js, err)) < 0 ||
		    (r = cv_hooks_run(&hooks->create_runtime, "createRuntime", js, err)) < 0 ||
		    (r = cv_sync_send(w->sock_parent, CV_SYNC_CONTINUE, 0, NULL, 0, -1, err)) < 0)
			return r;
	}
	if (spec->process->terminal) {
		r = cv_sync_expect(w->sock_parent, CV_SYNC_CONSOLE, &m, err);
		if (r < 0)
			return r;
		w->master = steal_fd(&m.fd);
		cv_sync_msg_release(&m);
		if (console_socket) {
			r = cv_console_send(console_socket, w->master, err);
			if (r < 0)
				return r;
			close(steal_fd(&w->master));
		}
	}
	if (notify) {
		cleanup_free char *js = NULL;
		r = cv_sync_expect(w->sock_parent, CV_SYNC_SECCOMP, &m, err);
		cv_sync_msg_release(&m);
		if (r < 0 || (r = public_state(st, "creating", &js, err)) < 0 ||
		    (r = cv_seccomp_take_listener(w->pidfd, m.errnum, spec->linux_->seccomp, st->pid, js, err)) < 0 ||
		    (r = cv_sync_send(w->sock_parent, CV_SYNC_CONTINUE, 0, NULL, 0, -1, err)) < 0)
			return r;
	}
	r = cv_sync_expect(w->sock_parent, CV_SYNC_READY, &m, err);
	cv_sync_msg_release(&m);
	if (r < 0)
		return r;
	/* while the child goes on to its execve */
	if (record_late && (r = make_late_record(ctx, id, L, w, err)) < 0)
		return r;
	if (w->no_mount_ns)
		return record_rootfs_clone(c, w->rootfs, w->rootfs_below, err);
	return 0;
}

/* The container is ready (its process blocked before execve): the record
 * says "created" (run wrote "running" already), and the caller gets the
 * pid file and pidfd it asked for. */
static int launch_publish(struct launch *L, struct launch_work *w, cv_error_t *err)
{
	const struct cvisor_create_options *opts = L->opts;
	struct cv_container *c = L->c;
	int r;

	if (!L->run_mode &&
	    ((r = set_status(c->state, "created", err)) < 0 || (r = cv_store_write_state(c->entry, c->state, err)) < 0))
		return r;
	if (opts && opts->pid_file && (r = cv_write_pid_file(opts->pid_file, w->pid, err)) < 0)
		return r;
	if (opts && opts->pidfd_socket) {
		r = cv_fd_send_to_socket(opts->pidfd_socket, w->pidfd, "pidfd", err);
		if (r < 0)
			return cv_error_prefix(err, "pidfd socket");
	}
	return 0;
}

/* After a failure: the child (its own error, when it sent one, explains
 * ours best), the cgroup and the state directory go. */
static void launch_undo(struct launch *L, struct launch_work *w, cv_error_t *err)
{
	struct cv_container *c = L->c;
	if (w->pid > 0) {
		/* without the namespace handshake the child may have failed
		 * before we read its start time or moved it */
		cv_sync_prefer_child_error(w->sock_parent, err);
		kill_pidfd_wait(w->pidfd, w->pid, true);
	}
	cv_rootfs_pruned_release(&w->pruned);
	if (w->below_known) {
		/* whatever the child stacked on the rootfs before it failed */
		cleanup_error cv_error_t e = NULL;
		uint64_t top;
		if (cv_rootfs_mount_id(w->rootfs, &top, &e) < 0 ||
		    (top != w->rootfs_below && cv_rootfs_detach_clone(w->rootfs, top, &e) < 0))
			cv_warn("create cleanup: %s", e->msg);
	}
	if (c && c->cg) {
		cleanup_error cv_error_t e = NULL;
		if (cv_cgroup_destroy(c->cg, &e) < 0)
			cv_warn("create cleanup: %s", e->msg);
	}
	if (w->created && c && c->entry) {
		cleanup_error cv_error_t e = NULL;
		if (cv_store_remove(c->entry, &e) < 0)
			cv_warn("create cleanup: %s", e->msg);
		c->entry = NULL;
	}
}

/* create's work, and run's up to the start: validate, record, clone,
 * handshake. On success the child is blocked before execve and L holds it;
 * on failure nothing is left. */
static int launch(const struct cvisor_context *ctx, const char *id, struct launch *L, cv_error_t *err)
{
	struct launch_work w = { .fifo = -1,
				 .sock_parent = -1,
				 .sock_child = -1,
				 .status_r = -1,
				 .status_w = -1,
				 .image_fd = -1,
				 .memory = { .leave = -1, .join = -1 },
				 .pruned = { .tree = -1 },
				 .pidfd = -1,
				 .master = -1,
				 .pid = -1 };
	int r;

	r = launch_validate(ctx, id, L, &w, err);
	if (r == 0)
		r = launch_record(ctx, id, L, &w, err);
	if (r == 0)
		r = launch_clone(id, L, &w, err);
	if (r == 0)
		r = launch_handshake(ctx, id, L, &w, err);
	if (r == 0)
		r = launch_publish(L, &w, err);
	if (r == 0) {
		L->pid = w.pid;
		L->pidfd = steal_fd(&w.pidfd);
		L->sync_fd = steal_fd(&w.sock_parent);
		L->console_master = steal_fd(&w.master);
		L->init_status = steal_fd(&w.status_r);
		L->shared = steal_pointer(&w.shared);
	} else if (w.undo) {
		launch_undo(L, &w, err);
		cv_error_prefix(err, "create");
	}
	oci_state_free(w.state);
	launch_work_release(&w, L->spec ? L->spec->mounts_len : 0);
	return r;
}

static void launch_release(struct launch *L)
{
	oci_spec_free(L->given_spec);
	if (L->pidfd >= 0)
		close(L->pidfd);
	if (L->sync_fd >= 0)
		close(L->sync_fd);
	if (L->console_master >= 0)
		close(L->console_master);
	if (L->init_status >= 0)
		close(L->init_status);
	/* its stack stays: the init runs on it until this process exits */
	free(L->shared);
	cv_container_free(L->c);
	oci_spec_free(L->spec);
}

int cv_create(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts,
	      cv_error_t *err)
{
	struct launch L = { .opts = opts, .pidfd = -1, .sync_fd = -1, .console_master = -1, .init_status = -1 };
	int r = launch(ctx, id, &L, err);
	launch_release(&L);
	return r;
}

static int load_spec_copy(struct cv_container *c, oci_spec **out, cv_error_t *err)
{
	if (!c->entry)
		return cv_error(err, ENOENT, "container \"%s\": no state directory (a sandbox of cvisor do)",
				c->state->id);
	cleanup_free char *data = NULL;
	size_t len;
	if (cv_read_file_at(c->entry->dirfd, "config.json", OCI_JSON_MAX_SIZE, CV_READ_REGULAR | CV_READ_NOFOLLOW,
			    &data, &len, err) < 0)
		return cv_error_prefix(err, "container \"%s\": its config copy", c->state->id);
	return oci_spec_parse(data, len, "config.json", out, err);
}

int cv_container_spec(struct cv_container *c, oci_spec **out, cv_error_t *err)
{
	return load_spec_copy(c, out, err);
}

/* created -> running, after the child passed its wait; then poststart. */
static int mark_running(struct cv_container *c, const oci_spec *spec, cv_error_t *err)
{
	int r = set_status(c->state, "running", err);
	if (r < 0)
		return r;
	r = cv_store_write_state(c->entry, c->state, err);
	if (r < 0)
		return r;
	if (spec && spec->hooks && spec->hooks->poststart.len) {
		cleanup_free char *js = NULL;
		if (public_state(c->state, "running", &js, err) < 0)
			return -1;
		cv_hooks_run_warn(&spec->hooks->poststart, "poststart", js);
	}
	return 0;
}

int cvisor_start(const struct cvisor_context *ctx, const char *id, cvisor_error **err)
{
	cleanup_container struct cv_container *c = NULL;
	cleanup_close int pidfd = -1, fifo = -1;
	const char *status;
	int r;

	r = cv_container_load(ctx, id, &c, err);
	if (r < 0)
		return r;
	r = cv_container_status(c, &status, err);
	if (r < 0)
		return r;
	if (strcmp(status, "created") != 0) {
		if (strcmp(status, "stopped") == 0)
			return cv_error_plain(err, EINVAL, "cannot start a container that has stopped");
		if (strcmp(status, "running") == 0)
			return cv_error_plain(err, EINVAL, "cannot start an already running container");
		return cv_error_plain(err, EINVAL, "cannot start a container in the %s state", status);
	}
	r = cv_pidfd_open_verified(c->state->pid, c->state->pid_start, &pidfd, err);
	if (r == -ESRCH)
		return cv_error_plain(err, EINVAL, "cannot start a container that has stopped");
	if (r < 0)
		return r;
	fifo = openat(c->entry->dirfd, "exec.fifo", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fifo < 0)
		return cv_error_errno(err, "start: open the exec fifo (container not created?)");
	/* The child is blocked opening the fifo for writing; our open released
	 * it. Wait for its byte, or for its death. */
	for (;;) {
		struct pollfd p[2] = { { fifo, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
		r = poll(p, 2, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return cv_error_errno(err, "start: poll");
		if (p[0].revents & POLLIN) {
			char b;
			ssize_t n = read(fifo, &b, 1);
			if (n == 1)
				break;
			if (n < 0 && errno == EAGAIN)
				continue;
		}
		if (p[1].revents & POLLIN)
			return cv_error_plain(err, ESRCH, "start: the container process exited before it started");
		if (p[0].revents & POLLHUP)
			return cv_error(err, EPIPE, "start: the container process closed the exec fifo");
	}
	if (unlinkat(c->entry->dirfd, "exec.fifo", 0) < 0)
		cv_warn("start: remove exec fifo: %s", strerror(errno));
	cleanup_spec oci_spec *spec = NULL;
	cleanup_error cv_error_t e = NULL;
	if (c->state && (load_spec_copy(c, &spec, &e) < 0))
		cv_warn("start: %s (poststart hooks skipped)", e->msg);
	return mark_running(c, spec, err);
}

/* run's start: lets the launched child go on, waits for its execve and runs
 * the poststart hooks. */
static int start_launched(struct launch *L, void (*while_exec)(void *), void *arg, cv_error_t *err)
{
	struct cv_sync_msg m = { .fd = -1 };
	int r;
	cleanup_free char *args = NULL;
	size_t len = 0;
	cleanup_close int in = -1;
	/* a prepared run: its program, when there is one */
	if (L->await_start && (r = L->await_start(L->await_arg, &args, &len, &in, err)) < 0)
		return r;
	/* A transient child goes on by itself after READY, but for one that
	 * waits for START (a prepared run, or start_after_while_exec): there
	 * WHILE_EXEC comes first, since what it reads of the container goes
	 * with a program that ends at once. */
	bool sends_start = !L->transient || L->await_start || L->start_after_while_exec;
	bool while_exec_first = L->transient && sends_start;
	if (while_exec_first && while_exec)
		while_exec(arg);
	if (sends_start && (r = cv_sync_send(L->sync_fd, CV_SYNC_START, 0, args, len, in, err)) < 0)
		return r;
	if (!while_exec_first && while_exec)
		while_exec(arg);
	if (L->shared) {
		/* its end of file came already */
		if ((r = cv_shared_launch_program(L->shared, err)) < 0)
			return r;
	} else {
		/* A successful execve closes the child's end: EOF. Anything
		 * else is its error. */
		if (cv_sync_recv_logged(L->sync_fd, &m, err) == 0)
			return cv_sync_msg_error(&m, "run", err);
		cv_error_release(err);
	}
	if (L->spec->hooks && L->spec->hooks->poststart.len) {
		cleanup_free char *js = NULL;
		if (public_state(L->c->state, "running", &js, err) == 0)
			cv_hooks_run_warn(&L->spec->hooks->poststart, "poststart", js);
		cv_error_release(err);
	}
	return 0;
}

int cv_run(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts, bool detach,
	   int *exit_status, cv_error_t *err)
{
	struct launch L = { .opts = opts,
			    .run_mode = true,
			    .detach = detach,
			    .pidfd = -1,
			    .sync_fd = -1,
			    .console_master = -1,
			    .init_status = -1 };
	int r;

	r = launch(ctx, id, &L, err);
	if (r < 0)
		goto out;
	/* launch wrote the record as "running" already */
	r = start_launched(&L, NULL, NULL, err);
	if (r < 0)
		goto destroy;
	cv_helper_announce(L.pid, L.pidfd);
	if (detach) {
		r = 0;
		goto out;
	}
	/* Let other commands (state, exec, kill) at the container meanwhile. */
	cv_store_close(L.c->entry);
	L.c->entry = NULL;
	if (L.console_master >= 0) {
		r = cv_console_relay(L.console_master, L.pidfd, err);
		if (r < 0)
			goto out;
	}
	r = cv_wait_forwarding(L.pid, L.pidfd, exit_status, err);
	if (r < 0)
		goto out;
	/* --keep: left stopped, with its cgroup and state, for `delete`. */
	if (opts && opts->keep)
		goto out;
	{
		cleanup_container struct cv_container *c = NULL;
		r = cv_container_load(ctx, id, &c, err);
		if (r == -ENOENT) {
			/* Somebody deleted it already. */
			cv_error_release(err);
			r = 0;
			goto out;
		}
		if (r < 0)
			goto out;
		/* the config this process launched: no need to re-read the copy */
		r = cv_container_destroy(c, L.spec, err);
	}
	goto out;
destroy : {
	cleanup_error cv_error_t e = NULL;
	kill_pidfd_wait(L.pidfd, L.pid, true);
	if (L.c && L.c->entry && cv_container_destroy(L.c, L.spec, &e) < 0)
		cv_warn("run cleanup: %s", e->msg);
}
out:
	launch_release(&L);
	return r;
}

struct transient_cb {
	void (*fn)(struct cv_container *c, const oci_spec *spec, void *arg);
	void *arg;
	struct launch *L;
};

static void transient_while_exec(void *p)
{
	struct transient_cb *cb = p;
	cb->fn(cb->L->c, cb->L->spec, cb->arg);
}

int cv_run_transient(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts,
		     oci_spec *given, void (*while_exec)(struct cv_container *c, const oci_spec *spec, void *arg),
		     void *arg, struct cv_transient *t, cv_error_t *err)
{
	struct launch L = { .opts = opts,
			    .run_mode = true,
			    .detach = true,
			    .transient = true,
			    .pidfd = -1,
			    .sync_fd = -1,
			    .console_master = -1,
			    .init_status = -1,
			    .given_spec = given,
			    .stdio = t->stdio,
			    .no_cgroup = t->no_cgroup,
			    .await_start = t->await_start,
			    .start_after_while_exec = t->start_after_while_exec,
			    .keyring_as_caller = t->keyring_as_caller,
			    .await_arg = t->await_arg,
			    .while_setup = t->while_setup,
			    .while_setup_arg = t->while_setup_arg };
	t->c = NULL;
	t->spec = NULL;
	t->pidfd = t->console_master = t->init_status = -1;
	int r = launch(ctx, id, &L, err);
	/* the container process has its copies: ours go before anything else
	 * is forked (WHILE_EXEC's processes must not hold the program's pipes) */
	for (int fd = 0; fd < 3; fd++)
		if (t->stdio[fd] >= 0) {
			close(t->stdio[fd]);
			t->stdio[fd] = -1;
		}
	if (r < 0)
		goto out;
	struct transient_cb cb = { while_exec, arg, &L };
	r = start_launched(&L, while_exec ? transient_while_exec : NULL, &cb, err);
	if (r < 0) {
		cleanup_error cv_error_t e = NULL;
		kill_pidfd_wait(L.pidfd, L.pid, true);
		if (L.shared)
			cv_shared_launch_release(L.shared);
		if (cv_container_destroy(L.c, L.spec, &e) < 0)
			cv_warn("run cleanup: %s", e->msg);
		goto out;
	}
	t->c = steal_pointer(&L.c);
	t->spec = steal_pointer(&L.spec);
	t->pidfd = steal_fd(&L.pidfd);
	t->console_master = steal_fd(&L.console_master);
	t->init_status = steal_fd(&L.init_status);
	t->init_leaves = L.init_leaves;
	r = 0;
out:
	launch_release(&L);
	return r;
}

int cv_container_kill_wait(struct cv_container *c, cv_error_t *err)
{
	cleanup_close int pidfd = -1;
	struct cv_cgroup *cg = NULL;
	int r;

	if (c->state->cgroup_paths.len && cv_container_cgroup(c, &cg, err) == 0) {
		cleanup_error cv_error_t e = NULL;
		if (cv_cgroup_kill(cg, SIGKILL, &e) < 0)
			cv_warn("kill the cgroup: %s", e->msg);
		bool frozen = false;
		if (cv_cgroup_frozen(cg, &frozen, &e) == 0 && frozen)
			(void)cv_cgroup_freeze(cg, false, &e);
	}
	cv_error_release(err);
	r = cv_pidfd_open_verified(c->state->pid, c->state->pid_start, &pidfd, err);
	if (r == -ESRCH)
		return 0;
	if (r < 0)
		return r;
	(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	struct pollfd p = { pidfd, POLLIN, 0 };
	do
		r = poll(&p, 1, 10000);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return cv_error(err, ETIMEDOUT, "container process %d did not exit after SIGKILL", c->state->pid);
	return 0;
}

int cv_container_destroy(struct cv_container *c, const oci_spec *known, cv_error_t *err)
{
	cleanup_spec oci_spec *loaded = NULL;
	cleanup_error cv_error_t e = NULL;
	const oci_spec *spec = known;
	struct cv_cgroup *cg = NULL;
	int r;

	if (!spec) {
		if (load_spec_copy(c, &loaded, &e) < 0)
			cv_warn("delete: %s (poststop hooks skipped)", e->msg);
		spec = loaded;
	}
	if (c->state->cgroup_paths.len) {
		r = cv_container_cgroup(c, &cg, err);
		if (r < 0)
			return r;
		r = cv_cgroup_destroy(cg, err);
		if (r < 0)
			return r;
	}
	if (c->entry && (r = detach_rootfs_clone(c, err)) < 0)
		return r;
	if (spec && spec->hooks && spec->hooks->poststop.len) {
		cleanup_free char *js = NULL;
		if (public_state(c->state, "stopped", &js, &e) == 0)
			cv_hooks_run_warn(&spec->hooks->poststop, "poststop", js);
	}
	r = c->entry ? cv_store_remove(c->entry, err) : 0;
	c->entry = NULL;
	return r;
}
