#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/close_range.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "process/console.h"
#include "lifecycle/hooks.h"
#include "fs/mounts.h"
#include "process/process-attrs.h"
#include "process/process.h"
#include "fs/safe-path.h"
#include "process/sync.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
/* Blocks until `start` opens the FIFO for reading, then tells it we passed. */
static int wait_exec_fifo(int pathfd, cv_error_t *err)
{
	char sub[64];
	int fd, procfd = cv_procfs_root(err);
	if (procfd < 0)
		return procfd;
	snprintf(sub, sizeof(sub), "self/fd/%d", pathfd);
	do
		fd = openat(procfd, sub, O_WRONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return cv_error_errno(err, "open exec fifo");
	close(pathfd);
	if (write(fd, "0", 1) != 1) {
		int e = errno;
		close(fd);
		return cv_error(err, e, "write exec fifo");
	}
	close(fd);
	return 0;
}

/* process.cwd is created when missing, as runc does, before the rootfs
 * may become read-only. Each component is opened without following
 * symlinks; at a symlink we stop creating and leave it to chdir (which
 * runs inside the new root) to resolve. */
static int make_cwd(const struct cv_rootfs_config *rc, const char *cwd, cv_error_t *err)
{
	if (!cwd || cwd[0] != '/')
		return 0;
	cleanup_free char *dup = strdup(cwd);
	if (!dup)
		return cv_error(err, ENOMEM, "process.cwd");
	cleanup_close int dfd = cv_rootfs_open(rc, err);
	if (dfd < 0)
		return -1;
	char *save = NULL;
	for (char *comp = strtok_r(dup, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
			return 0;
		int next = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT) {
			if (mkdirat(dfd, comp, 0755) < 0 && errno != EEXIST)
				return cv_error_errno(err, "process.cwd: create `%s`", cwd);
			next = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0)
			return 0;
		close(dfd);
		dfd = next;
	}
	return 0;
}

/* Takes the ids of the new user namespace's owner: root of it, its caps
 * being ours already. When 0 is not mapped (a root caller's sandbox maps
 * only the program's ids) the first mapped ids instead: the filesystems
 * made inside need an owner that exists there, and our host ids (root's)
 * do not. The capabilities stay: they follow root of the namespace, which
 * we neither were nor become. */
static int become_userns_owner(const oci_linux *lx, cv_error_t *err)
{
	gid_t g = 0;
	uid_t u = 0;
	if (setresgid(0, 0, 0) < 0) {
		if (errno != EINVAL)
			return cv_error_errno(err, "setresgid 0 in the user namespace");
		g = lx && lx->gid_mappings.len ? lx->gid_mappings.v[0].container_id : 0;
		if (g && setresgid(g, g, g) < 0 && errno != EINVAL)
			return cv_error_errno(err, "setresgid %u in the user namespace", (unsigned)g);
	}
	if (setresuid(0, 0, 0) < 0) {
		if (errno != EINVAL)
			return cv_error_errno(err, "setresuid 0 in the user namespace");
		u = lx && lx->uid_mappings.len ? lx->uid_mappings.v[0].container_id : 0;
		if (u && setresuid(u, u, u) < 0 && errno != EINVAL)
			return cv_error_errno(err, "setresuid %u in the user namespace", (unsigned)u);
	}
	return 0;
}

/* KEYCTL_JOIN_SESSION_KEYRING: a keyring of its own, not the host's.
 * Kernels without keyrings (ENOSYS) have nothing to leak. */
static int join_session_keyring(const struct cv_child_config *c, cv_error_t *err)
{
	if (c->no_new_keyring)
		return 0;
	cleanup_free char *name = NULL;
	if (asprintf(&name, "_ses.%s", c->id) < 0)
		return cv_error(err, ENOMEM, "keyring");
	if (syscall(SYS_keyctl, 1, name) < 0 && errno != ENOSYS)
		return cv_error_errno(err, "join a new session keyring");
	return 0;
}

/* cv_rootfs_config.net_ready */
static int net_ready(void *arg, cv_error_t *err)
{
	return cv_netns_maker_join(arg, err);
}

/* The v1 cgroups made after the clone (cv_child_config.cgroup_late): their
 * `tasks` files one message each, then one without a file. */
static int receive_late_cgroups(int sync_fd, cv_error_t *err)
{
	for (;;) {
		struct cv_sync_msg m = { .fd = -1 };
		if (cv_sync_expect(sync_fd, CV_SYNC_CGROUP, &m, err) < 0)
			return -1;
		int r = m.fd < 0 ? 1 : cv_cgroup_self_join_one(m.fd, m.payload ? m.payload : "", m.errnum != 0, err);
		cv_sync_msg_release(&m);
		if (r != 0)
			return r < 0 ? r : 0;
	}
}

/* cv_rootfs_config.cgroup_ready: the v1 cgroups joined late, opened before
 * the clone (cgroup_join_late) or sent after it (cgroup_late); the cgroup
 * namespace only after, so that it is rooted at them. */
struct late_cgroups {
	const struct cv_child_config *c;
	bool joined;
};

static int join_late_cgroups(void *arg, cv_error_t *err)
{
	struct late_cgroups *l = arg;
	if (l->joined)
		return 0;
	l->joined = true;
	if (l->c->cgroup_join_late && cv_cgroup_self_join(l->c->cgroup_join, err) < 0)
		return -1;
	if (l->c->cgroup_late && receive_late_cgroups(l->c->sync_fd, err) < 0)
		return -1;
	if (l->c->unshare_cgroupns && unshare(CLONE_NEWCGROUP) < 0)
		return cv_error_errno(err, "unshare cgroup namespace");
	return 0;
}

/* create's own part: namespaces, hostname, the root filesystem, the
 * console, the createContainer hooks and sysctl. What the startContainer
 * hooks get is left in *start_state. */
static int child_setup(const struct cv_child_config *c, const char **start_state, cv_error_t *err)
{
	const oci_spec *spec = c->spec;
	const oci_process *p = spec->process;
	const struct cv_ns_plan *plan = c->plan;
	int all_ns = plan->new_flags | plan->join_flags;
	struct cv_sync_msg m = { .fd = -1 };
	int r;

	bool join_late = c->cgroup_late || c->cgroup_join_late;
	if (c->cgroup_join && !c->cgroup_join_late) {
		r = cv_cgroup_self_join(c->cgroup_join, err);
		if (r < 0)
			return r;
	}
	struct late_cgroups late = { .c = c, .joined = !join_late };
	if (c->unshare_cgroupns && !join_late && unshare(CLONE_NEWCGROUP) < 0)
		return cv_error_errno(err, "unshare cgroup namespace");
	if (!c->cloned_new_ns) {
		r = cv_ns_join(plan, err);
		if (r < 0)
			return r;
		int rest = plan->new_flags & ~(CLONE_NEWPID | CLONE_NEWTIME);
		if (plan->user_path)
			rest &= ~CLONE_NEWUSER;
		if (rest && unshare(rest) < 0)
			return cv_error_errno(err, "unshare namespaces");
	} else if (plan->user_path) {
		r = cv_ns_join(plan, err);
		if (r < 0)
			return r;
	}
	/* The helper that makes the network namespace is started while the
	 * runtime writes our id maps; but before a time namespace, which a
	 * child of ours would enter (its offsets can be set only while nothing
	 * is in it). */
	bool own_pidns = (plan->new_flags & CLONE_NEWPID) != 0;
	bool net_first = c->late_netns && (!c->ns_handshake || (plan->new_flags & CLONE_NEWTIME));
	__attribute__((cleanup(cv_netns_maker_reap))) struct cv_netns_maker net = CV_NETNS_MAKER_INIT;
	if (net_first && (r = cv_netns_maker_start(&net, own_pidns, err)) < 0)
		return r;
	if ((plan->new_flags & CLONE_NEWTIME) && unshare(CLONE_NEWTIME) < 0)
		return cv_error_errno(err, "unshare time namespace");

	/* An unprivileged parent can write our id maps only while we are
	 * dumpable (/proc/PID files of a non-dumpable process belong to root).
	 * Nothing of the container runs yet; non-dumpable again right after. */
	bool userns_maps = (plan->new_flags & CLONE_NEWUSER) != 0;
	if (userns_maps && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		return cv_error_errno(err, "prctl PR_SET_DUMPABLE 1 for the id maps");
	if (c->ns_handshake) {
		r = cv_sync_send(c->sync_fd, CV_SYNC_NS_READY, 0, NULL, 0, -1, err);
		if (r < 0)
			return r;
		if (c->late_netns && !net_first && (r = cv_netns_maker_start(&net, own_pidns, err)) < 0)
			return r;
		r = cv_sync_expect(c->sync_fd, CV_SYNC_CONTINUE, &m, err);
		if (r < 0)
			return r;
	}
	/* prestart/createRuntime hooks (slirp4netns of cvisor do's "outbound")
	 * open our namespace files in /proc as the caller: dumpable until they ran */
	bool runtime_hooks = spec->hooks && (spec->hooks->prestart.len || spec->hooks->create_runtime.len);
	if (userns_maps && !runtime_hooks && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return cv_error_errno(err, "prctl PR_SET_DUMPABLE 0");
	/* Payload: the state JSON for createContainer, then for startContainer. */
	/* Kept until execve: the process image goes away then. */
	char *hook_state = steal_pointer(&m.payload);
	size_t hook_state_len = m.len;
	cv_sync_msg_release(&m);
	const char *state_creating = hook_state ? hook_state : "";
	const char *state_created = hook_state && strlen(hook_state) < hook_state_len
					    ? hook_state + strlen(hook_state) + 1
					    : state_creating;

	/* the key is charged to our uid when it is made: still the caller's */
	if (c->keyring_as_caller && (r = join_session_keyring(c, err)) < 0)
		return r;
	if (plan->new_flags & CLONE_NEWUSER && (r = become_userns_owner(spec->linux_, err)) < 0)
		return r;
	if (plan->new_flags & CLONE_NEWTIME) {
		/* setns of a time namespace wants no task sharing our memory:
		 * the network helper's is entered now, done */
		r = cv_netns_maker_join(&net, err);
		if (r < 0)
			return r;
		cleanup_close int tfd = open("/proc/self/ns/time_for_children", O_RDONLY | O_CLOEXEC);
		if (tfd < 0 || setns(tfd, CLONE_NEWTIME) < 0)
			return cv_error_errno(err, "enter the time namespace");
	}
	if (setsid() < 0)
		return cv_error_errno(err, "setsid");
	if (!c->keyring_as_caller && (r = join_session_keyring(c, err)) < 0)
		return r;
	if (spec->hostname && *spec->hostname) {
		if (!(all_ns & CLONE_NEWUTS))
			return cv_error(err, EINVAL, "hostname: setting it needs a private UTS namespace");
		if (sethostname(spec->hostname, strlen(spec->hostname)) < 0)
			return cv_error_errno(err, "sethostname `%s`", spec->hostname);
	}
	if (spec->domainname && *spec->domainname) {
		if (!(all_ns & CLONE_NEWUTS))
			return cv_error(err, EINVAL, "domainname: setting it needs a private UTS namespace");
		if (setdomainname(spec->domainname, strlen(spec->domainname)) < 0)
			return cv_error_errno(err, "setdomainname `%s`", spec->domainname);
	}
	if ((plan->new_flags & CLONE_NEWNET) && !c->late_netns) {
		r = cv_ns_loopback_up(err);
		if (r < 0)
			return r;
	}

	struct cv_rootfs_config rc = {
		.spec = spec,
		.rootfs = c->rootfs,
		.no_pivot = c->no_pivot,
		.console_fd = -1,
		.new_userns = (all_ns & CLONE_NEWUSER) != 0,
		.new_netns = (all_ns & CLONE_NEWNET) != 0,
		.new_cgroupns = (plan->new_flags & CLONE_NEWCGROUP) != 0,
		.mount_fds = c->mount_fds,
		.no_mount_ns = !(all_ns & CLONE_NEWNS),
		.pruned = c->pruned,
		.net_ready = c->late_netns ? net_ready : NULL,
		.net_ready_arg = &net,
		.cgroup_ready = join_late ? join_late_cgroups : NULL,
		.cgroup_ready_arg = &late,
	};
	cleanup_close int console_master = -1, console_slave = -1;
	r = cv_rootfs_prepare(&rc, err);
	if (r < 0)
		return r;
	/* no cgroup filesystem asked for them: now, before the hooks */
	r = join_late_cgroups(&late, err);
	if (r < 0)
		return r;
	/* The pty comes from the container's own devpts (mounted just now),
	 * so it is the container's terminal, not one of the host's. */
	if (p->terminal) {
		cleanup_close int rootfd = cv_rootfs_open(&rc, err);
		if (rootfd < 0)
			return -1;
		r = cv_console_new_pty(rootfd, p->has_console_size ? p->console_height : 0,
				       p->has_console_size ? p->console_width : 0, &console_master, &console_slave,
				       err);
		if (r < 0)
			return r;
		r = cv_rootfs_bind_console(&rc, console_slave, err);
		if (r < 0)
			return cv_error_prefix(err, "console");
	}
	/* before the hooks, which may look at it, and sysctl */
	r = cv_netns_maker_join(&net, err);
	if (r < 0)
		return r;
	if (spec->hooks && (spec->hooks->prestart.len || spec->hooks->create_runtime.len)) {
		r = cv_sync_send(c->sync_fd, CV_SYNC_HOOKS, 0, NULL, 0, -1, err);
		if (r < 0)
			return r;
		r = cv_sync_expect(c->sync_fd, CV_SYNC_CONTINUE, &m, err);
		cv_sync_msg_release(&m);
		if (r < 0)
			return r;
		if (userns_maps && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
			return cv_error_errno(err, "prctl PR_SET_DUMPABLE 0");
	}
	if (spec->hooks) {
		r = cv_hooks_run(&spec->hooks->create_container, "createContainer", state_creating, err);
		if (r < 0)
			return r;
	}
	r = make_cwd(&rc, p->cwd, err);
	if (r < 0)
		return r;
	r = cv_rootfs_finalize(&rc, err);
	if (r < 0)
		return r;

	if (p->terminal) {
		r = cv_console_make_stdio(console_slave, c->console_mask, p->user.uid, err);
		if (r < 0)
			return r;
		r = cv_sync_send(c->sync_fd, CV_SYNC_CONSOLE, 0, NULL, 0, console_master, err);
		if (r < 0)
			return r;
	}

	r = cv_sysctl_apply(spec->linux_, all_ns, err);
	if (r < 0)
		return r;
	/* The exec FIFO comes opened O_PATH from the runtime and is reopened
	 * for writing through our own fd in a procfs instance (opened here,
	 * while it still can be): after the switch to process.user, or as an
	 * unprivileged host id in a user namespace, the state directory (0700,
	 * root) is out of reach by path; the FIFO itself is 0622 for the same
	 * reason (runc does the same). */
	if (c->exec_fifo_fd >= 0 && cv_procfs_root(err) < 0)
		return cv_error_prefix(err, "exec fifo");
	cv_netns_maker_reap(&net);
	*start_state = state_created;
	return 0;
}

struct create_wait {
	const struct cv_child_config *c;
	const char *start_state;
	char **late_args; /* late_args: START's, pointing into its payload */
	char *late_payload;
};

/* START of a prepared run: "ARG\0" for each argument, and the stdin. */
static int take_late_start(struct create_wait *w, struct cv_sync_msg *m, cv_error_t *err)
{
	if (!m->payload || !m->len || m->payload[m->len - 1] != '\0')
		return cv_error(err, EINVAL, "start: no program arguments");
	size_t n = 0;
	for (size_t i = 0; i < m->len; i++)
		n += m->payload[i] == '\0';
	char **args = calloc(n + 1, sizeof(*args));
	if (!args)
		return cv_error(err, ENOMEM, "start");
	for (size_t i = 0, off = 0; i < n; i++) {
		args[i] = m->payload + off;
		off += strlen(args[i]) + 1;
	}
	if (m->fd >= 0) {
		if (dup2(m->fd, 0) < 0) {
			free(args);
			return cv_error_errno(err, "start: stdin");
		}
		close(m->fd);
		m->fd = -1;
	}
	w->late_args = args;
	w->late_payload = steal_pointer(&m->payload);
	return 0;
}

/* create's last step before the finish's last ones: READY, then the wait
 * for `start` (the exec fifo; run's START message; nothing for cvisor do),
 * the startContainer hooks and, for cvisor do, the tie to the runtime. */
static int create_wait(void *arg, cv_error_t *err)
{
	struct create_wait *w = arg;
	const struct cv_child_config *c = w->c;
	int r;

	if (cv_sync_send(c->sync_fd, CV_SYNC_READY, 0, NULL, 0, -1, err) < 0)
		_exit(1);
	if (c->exec_fifo_fd >= 0) {
		r = wait_exec_fifo(c->exec_fifo_fd, err);
	} else if (c->no_start_wait) {
		r = 0;
	} else {
		struct cv_sync_msg m = { .fd = -1 };
		r = cv_sync_expect(c->sync_fd, CV_SYNC_START, &m, err);
		if (r >= 0 && c->late_args)
			r = take_late_start(w, &m, err);
		cv_sync_msg_release(&m);
	}
	if (r < 0)
		return r;
	if (c->spec->hooks && c->spec->hooks->start_container.len) {
		r = cv_hooks_run(&c->spec->hooks->start_container, "startContainer", w->start_state, err);
		if (r < 0)
			return r;
	}
	/* Last, as a change of credentials clears it; a runtime that died
	 * before shows as the hang-up of its end of the sync socket. */
	if (c->die_with_parent) {
		struct pollfd pf = { c->sync_fd, POLLIN, 0 };
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
			return cv_error_errno(err, "prctl PR_SET_PDEATHSIG");
		if (poll(&pf, 1, 0) != 0)
			_exit(1);
	}
	return 0;
}

/* The caller's fds without O_CLOEXEC (a test harness's pipes, a shell's
 * redirections) would stay open in the container process while it waits
 * for start, so whoever waits for their EOF would hang. Everything the
 * runtime opens is O_CLOEXEC: close the others above stdio and the
 * preserved fds, as runc's init has nothing else. */
static int close_inherited_fds(int first, bool waits, cv_error_t *err)
{
	/* A process that goes on to its execve at once needs no list: marked
	 * close-on-exec, they are gone at the execve (an init, which never
	 * execs, closes every fd once its program runs). The list takes a
	 * procfs of our own, whose dissolve at the end costs an RCU grace
	 * period. */
	if (!waits) {
		if (syscall(SYS_close_range, (unsigned)first, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
			return 0;
		if (errno != EINVAL && errno != ENOSYS)
			return cv_error_errno(err, "close inherited fds: close_range");
	}
	cleanup_close int dfd = cv_procfs_open("self/fd", O_RDONLY | O_DIRECTORY, err);
	if (dfd < 0)
		return cv_error_prefix(err, "close inherited fds");
	DIR *d = fdopendir(dfd);
	if (!d)
		return cv_error_errno(err, "close inherited fds: read `/proc/self/fd`");
	int dirfd_no = steal_fd(&dfd);
	int *fds = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	/* Collected first: closing while reading the directory may skip entries. */
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd < first || fd == dirfd_no)
			continue;
		int fl = fcntl((int)fd, F_GETFD);
		if (fl < 0 || (fl & FD_CLOEXEC))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			int *g = realloc(fds, cap * sizeof(int));
			if (!g) {
				free(fds);
				closedir(d);
				return cv_error(err, ENOMEM, "close inherited fds");
			}
			fds = g;
		}
		fds[n++] = (int)fd;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	return 0;
}

void cv_child_main(const struct cv_child_config *c)
{
	cleanup_error cv_error_t err = NULL;
	struct create_wait w = { .c = c, .start_state = "" };
	cleanup_free char *listen_fds = NULL;

	/* stderr is about to be the container's: our lines go to the parent */
	cv_log_set_sink(cv_sync_log_sink, (void *)&c->sync_fd,
			cv_log_enabled(CV_LOG_DEBUG) ? CV_LOG_DEBUG : CV_LOG_INFO);

	for (int fd = 0; c->stdio && fd < 3; fd++)
		if (c->stdio[fd] >= 0 && dup2(c->stdio[fd], fd) < 0) {
			cv_error_errno(&err, "stdio: dup2 fd %d to %d", c->stdio[fd], fd);
			goto fail;
		}
	/* only create's process waits: for `start`, maybe for long */
	if (close_inherited_fds(3 + c->preserve_fds, c->exec_fifo_fd >= 0, &err) < 0 ||
	    child_setup(c, &w.start_state, &err) < 0)
		goto fail;
	/* Socket activation passes through like runc: the container is pid 1
	 * of its namespace. */
	char *extra[3] = { NULL, NULL, NULL };
	if (c->listen_fds > 0) {
		if (asprintf(&listen_fds, "LISTEN_FDS=%d", c->listen_fds) < 0) {
			cv_error(&err, ENOMEM, "env");
			goto fail;
		}
		extra[0] = listen_fds;
		extra[1] = (char *)"LISTEN_PID=1";
	}
	struct cv_process_finish f = {
		.p = c->spec->process,
		.linux_ = c->spec->linux_,
		.memory_policy = c->spec->linux_ ? c->spec->linux_->memory_policy : NULL,
		.seccomp = c->seccomp,
		.sync_fd = c->sync_fd,
		.keep_fds = c->preserve_fds,
		.in_userns = ((c->plan->new_flags | c->plan->join_flags) & CLONE_NEWUSER) != 0,
		.extra_env = extra,
		.before_exec = create_wait,
		.arg = &w,
		.late_args = c->late_args ? &w.late_args : NULL,
		.init = c->init,
		.init_status_fd = c->init_status_fd,
		.init_image_fd = c->init_image_fd,
		.init_leave_fds = c->init_leave_fds,
		.init_nleave = c->init_nleave,
		.init_memory = c->init_memory,
	};
	cv_process_finish(&f);
fail:
	cv_sync_send_error(c->sync_fd, err);
	_exit(127);
}

void cv_exec_child_main(const struct cv_exec_child_config *x)
{
	cleanup_error cv_error_t err = NULL;
	const oci_process *p = x->p;
	struct cv_sync_msg m = { .fd = -1 };

	cv_log_set_sink(cv_sync_log_sink, (void *)&x->sync_fd,
			cv_log_enabled(CV_LOG_DEBUG) ? CV_LOG_DEBUG : CV_LOG_INFO);

	/* Nothing runs before we are in the container's cgroup (joining a v1
	 * cpuset resets the cpu affinity, among others): born in its v2
	 * directory, we join the v1 ones ourselves, and the runtime moves us
	 * where it could not place us before CONTINUE. */
	if (x->cgroup_join && cv_cgroup_self_join(x->cgroup_join, &err) < 0)
		goto fail;
	int r = cv_sync_expect(x->sync_fd, CV_SYNC_CONTINUE, &m, &err);
	cv_sync_msg_release(&m);
	if (r < 0)
		goto fail;
	if (x->ns_flags && setns(x->init_pidfd, x->ns_flags) < 0) {
		cv_error_errno(&err, "join the container's namespaces");
		goto fail;
	}
	if (x->root_fd >= 0 && (fchdir(x->root_fd) < 0 || chroot(".") < 0 || chdir("/") < 0)) {
		cv_error_errno(&err, "chroot to the container's root");
		goto fail;
	}
	if (setsid() < 0) {
		cv_error_errno(&err, "setsid");
		goto fail;
	}
	if (p->terminal) {
		cleanup_close int master = -1;
		if (cv_console_setup(p->has_console_size ? p->console_height : 0,
				     p->has_console_size ? p->console_width : 0, p->user.uid, &master, &err) < 0 ||
		    cv_sync_send(x->sync_fd, CV_SYNC_CONSOLE, 0, NULL, 0, master, &err) < 0)
			goto fail;
	}
	struct cv_process_finish f = {
		.p = p,
		.linux_ = x->linux_,
		.seccomp = x->seccomp,
		.sync_fd = x->sync_fd,
		.keep_fds = x->preserve_fds,
		.in_userns = x->userns,
		.exec_cpu_affinity = true,
		.init_status_fd = -1,
		.init_image_fd = -1,
	};
	cv_process_finish(&f);
fail:
	cv_sync_send_error(x->sync_fd, err);
	_exit(127);
}

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/* Waits for our child, forwarding the signals a terminal or supervisor
 * sends to the runtime, as runc does. */
int cv_wait_forwarding(pid_t pid, int pidfd, int *exit_status, cv_error_t *err)
{
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGTSTP };
	sigset_t mask, old;
	sigemptyset(&mask);
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaddset(&mask, fwd[i]);
	pthread_sigmask(SIG_BLOCK, &mask, &old);
	cleanup_close int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	for (;;) {
		struct pollfd p[2] = { { pidfd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		int r = poll(p, sfd >= 0 ? 2 : 1, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (p[0].revents & POLLIN)
			break;
		if (sfd >= 0 && (p[1].revents & POLLIN)) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				(void)syscall(SYS_pidfd_send_signal, pidfd, (int)si.ssi_signo, NULL, 0);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	int status;
	pid_t w;
	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return cv_error_errno(err, "wait for the container process");
	*exit_status = exit_status_of(status);
	return 0;
}
