/* exec: a new process in a running container. The runtime points its
 * pid_for_children at the container's pid namespace (setns on a verified
 * pidfd of the init), clones the process straight into it, puts it in the
 * cgroup; the child (cv_exec_child_main) joins the other namespaces
 * through the same pidfd and finishes the process as create's does. No
 * second fork is needed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process/caps.h"
#include "cleanup.h"
#include "process/console.h"
#include "lifecycle/create.h"
#include "cvisor.h"
#include "io.h"
#include "unix-socket.h"
#include "lifecycle/exe-guard.h"
#include "lifecycle/helper.h"
#include "process/namespaces.h"
#include "process/process-attrs.h"
#include "process/process.h"
#include "log.h"
#include "fs/safe-path.h"
#include "seccomp/seccomp-filter.h"
#include "lifecycle/status.h"
#include "process/sync.h"

/* Names added by --cap go to bounding, effective, permitted and ambient,
 * never inheritable (CVE-2022-29162). */
static int strv_append(oci_strv *dst, const oci_strv *src, char *const *extra, cv_error_t *err)
{
	size_t n = 0;
	while (extra && extra[n])
		n++;
	char **v = calloc(src->len + n + 1, sizeof(char *));
	if (!v)
		return cv_error(err, ENOMEM, "exec caps");
	for (size_t i = 0; i < src->len; i++)
		v[i] = src->v[i];
	for (size_t i = 0; i < n; i++)
		v[src->len + i] = extra[i];
	dst->v = v;
	dst->len = src->len + n;
	dst->set = true;
	return 0;
}

static int parse_user(const char *s, oci_user *u, cv_error_t *err)
{
	char *end;
	errno = 0;
	unsigned long uid = strtoul(s, &end, 10);
	if (errno || end == s || (*end && *end != ':') || uid > UINT32_MAX)
		return cv_error(err, EINVAL, "--user \"%s\": expected uid[:gid] (numbers)", s);
	u->uid = (uint32_t)uid;
	if (*end == ':') {
		const char *g = end + 1;
		unsigned long gid = strtoul(g, &end, 10);
		if (errno || end == g || *end || gid > UINT32_MAX)
			return cv_error(err, EINVAL, "--user \"%s\": expected uid[:gid] (numbers)", s);
		u->gid = (uint32_t)gid;
	}
	return 0;
}

static int merge_env(const oci_strv *base, char *const *add, oci_strv *out, cv_error_t *err)
{
	size_t n = 0;
	while (add && add[n])
		n++;
	char **v = calloc(base->len + n + 1, sizeof(char *));
	size_t k = 0;
	if (!v)
		return cv_error(err, ENOMEM, "exec env");
	for (size_t i = 0; i < base->len; i++)
		v[k++] = base->v[i];
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(add[i], '=');
		size_t klen = eq ? (size_t)(eq - add[i]) : strlen(add[i]);
		size_t j;
		for (j = 0; j < k; j++)
			if (strncmp(v[j], add[i], klen) == 0 && v[j][klen] == '=')
				break;
		v[j] = add[i];
		if (j == k)
			k++;
	}
	out->v = v;
	out->len = k;
	out->set = true;
	return 0;
}

/* What exec builds; exec_work_release frees it. */
struct exec_work {
	struct cv_container *c;
	oci_spec *spec;
	oci_process *file_proc; /* --process FILE */
	oci_process proc;       /* the process to run: borrows from spec, file_proc and opts */
	oci_capabilities caps;  /* the config's plus --cap (arrays ours, names borrowed) */
	char **env;             /* the config's plus -e (array ours) */
	uint32_t *gids;         /* --additional-gids */
	struct cv_seccomp *seccomp;
	struct cv_ns_plan plan;
	int init_pidfd; /* the container's init, verified */
	int root;       /* without a mount namespace: the container's root, else -1 */
	pid_t pid;
	int pidfd;
	int sp, sc; /* the sync socket: our end, the child's */
	int master; /* the pty master, unless sent to the console socket */
	/* the container's cgroup: v1 joined by the child (cv_cgroup_self_join),
	 * v2 by the clone when it could (into_cgroup) */
	struct cv_cgroup_self_join cgjoin;
	bool v2, into_cgroup;
};

static void exec_work_release(struct exec_work *w)
{
	cv_cgroup_self_join_close(&w->cgjoin);
	cv_container_free(w->c);
	oci_spec_free(w->spec);
	if (w->file_proc)
		oci_process_free(w->file_proc);
	free(w->caps.bounding.v);
	free(w->caps.effective.v);
	free(w->caps.permitted.v);
	free(w->caps.ambient.v);
	free(w->env);
	free(w->gids);
	cv_seccomp_free(w->seccomp);
	cv_closep(&w->init_pidfd);
	cv_closep(&w->root);
	cv_closep(&w->pidfd);
	cv_closep(&w->sp);
	cv_closep(&w->sc);
	cv_closep(&w->master);
}

/* The process of the command line: the config's, changed by the flags. */
static int process_from_flags(const struct cvisor_exec_options *opts, struct exec_work *w, cv_error_t *err)
{
	oci_process *proc = &w->proc;
	int r;

	if (!w->spec->process)
		return cv_error(err, EINVAL, "config.json: process: required");
	*proc = *w->spec->process;
	proc->terminal = opts->tty;
	proc->has_console_size = false;
	if (!opts->args || !opts->args[0])
		return cv_error(err, EINVAL, "exec: a command is required");
	size_t n = 0;
	while (opts->args[n])
		n++;
	proc->args.v = (char **)opts->args;
	proc->args.len = n;
	if (opts->env) {
		if ((r = merge_env(&w->spec->process->env, opts->env, &proc->env, err)) < 0)
			return r;
		w->env = proc->env.v;
	}
	if (opts->cwd)
		proc->cwd = (char *)opts->cwd;
	if (opts->user) {
		proc->user.gid = 0;
		proc->user.additional_gids = NULL;
		proc->user.additional_gids_len = 0;
		if ((r = parse_user(opts->user, &proc->user, err)) < 0)
			return r;
	}
	if (opts->additional_gids_len) {
		w->gids = calloc(opts->additional_gids_len, sizeof(uint32_t));
		if (!w->gids)
			return cv_error(err, ENOMEM, "exec");
		for (size_t i = 0; i < opts->additional_gids_len; i++)
			w->gids[i] = opts->additional_gids[i];
		proc->user.additional_gids = w->gids;
		proc->user.additional_gids_len = opts->additional_gids_len;
	}
	if (opts->no_new_privs)
		proc->no_new_privileges = true;
	if (opts->apparmor)
		proc->apparmor_profile = (char *)opts->apparmor;
	if (opts->process_label)
		proc->selinux_label = (char *)opts->process_label;
	return 0;
}

/* --cap NAME: added to every set but inheritable. */
static int add_caps(char *const *names, struct exec_work *w, cv_error_t *err)
{
	static const oci_capabilities none;
	const oci_capabilities *base = w->proc.capabilities ? w->proc.capabilities : &none;
	int r;

	for (char *const *cp = names; *cp; cp++)
		if (cv_cap_from_name(*cp) < 0)
			return cv_error(err, EINVAL, "--cap: unknown capability \"%s\"", *cp);
	w->caps = *base;
	w->caps.bounding.v = w->caps.effective.v = w->caps.permitted.v = w->caps.ambient.v = NULL;
	if ((r = strv_append(&w->caps.bounding, &base->bounding, names, err)) < 0 ||
	    (r = strv_append(&w->caps.effective, &base->effective, names, err)) < 0 ||
	    (r = strv_append(&w->caps.permitted, &base->permitted, names, err)) < 0 ||
	    (r = strv_append(&w->caps.ambient, &base->ambient, names, err)) < 0)
		return r;
	w->proc.capabilities = &w->caps;
	return 0;
}

/* The container (running or created), the process to run in it, its
 * seccomp filter and the namespaces to join. */
static int exec_validate(const struct cvisor_context *ctx, const char *id, const struct cvisor_exec_options *opts,
			 struct exec_work *w, cv_error_t *err)
{
	const char *status;
	int r;

	r = cv_exe_guard_check(err);
	if (r < 0)
		return r;
	r = cv_container_load(ctx, id, &w->c, err);
	if (r < 0)
		return r;
	r = cv_container_status(w->c, &status, err);
	if (r < 0)
		return r;
	if (strcmp(status, "running") != 0 && strcmp(status, "created") != 0)
		return cv_error_plain(err, EINVAL, "cannot exec in a %s container", status);
	r = cv_container_spec(w->c, &w->spec, err);
	if (r < 0)
		return r;
	if (opts->process_path) {
		cleanup_free char *data = NULL;
		size_t len;
		r = cv_read_file_at(AT_FDCWD, opts->process_path, OCI_JSON_MAX_SIZE, 0, &data, &len, err);
		if (r < 0)
			return r;
		r = oci_process_parse(data, len, "process.json", &w->file_proc, err);
		if (r < 0)
			return r;
		w->proc = *w->file_proc;
	} else if ((r = process_from_flags(opts, w, err)) < 0)
		return r;
	if (opts->caps && opts->caps[0] && (r = add_caps(opts->caps, w, err)) < 0)
		return r;
	if ((r = cv_caps_validate(w->proc.capabilities, err)) < 0 ||
	    (r = cv_attrs_validate(&w->proc, w->spec->linux_, err)) < 0)
		return r;
	if (w->proc.terminal && !opts->console_socket && opts->detach)
		return cv_error_plain(err, EINVAL,
				      "cannot allocate tty if cvisor will detach without setting console socket");
	if (!w->proc.terminal && opts->console_socket)
		return cv_error_plain(err, EINVAL, "cannot use console socket if cvisor will not allocate tty");
	if (w->spec->linux_ && w->spec->linux_->seccomp) {
		r = cv_seccomp_compile(w->spec->linux_->seccomp, &w->seccomp, err);
		if (r < 0)
			return cv_error_prefix(err, "linux.seccomp");
	}
	return cv_ns_plan_build(w->spec->linux_, &w->plan, err);
}

/* Clones the process straight into the container's pid namespace, with
 * execCPUAffinity.initial; the runtime's own namespace and affinity are
 * restored right after. */
static int exec_clone(const struct cvisor_exec_options *opts, struct exec_work *w, cv_error_t *err)
{
	const oci_process *proc = &w->proc;
	int all_ns = w->plan.new_flags | w->plan.join_flags;
	cleanup_close int own_pidns = -1;
	int r;

	r = cv_pidfd_open_verified(w->c->state->pid, w->c->state->pid_start, &w->init_pidfd, err);
	if (r == -ESRCH)
		return cv_error_plain(err, ESRCH, "cannot exec in a stopped container");
	if (r < 0)
		return r;
	if (!(all_ns & CLONE_NEWNS)) {
		/* no mount namespace to join: the container's root is its chroot,
		 * taken while the pidfd shows it is still the same process */
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/root", (int)w->c->state->pid);
		w->root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (w->root < 0)
			return cv_error_errno(err, "open the container's root `%s`", path);
		if (syscall(SYS_pidfd_send_signal, w->init_pidfd, 0, NULL, 0) < 0)
			return cv_error_plain(err, ESRCH, "cannot exec in a stopped container");
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return cv_error_errno(err, "socketpair");
	w->sp = sv[0];
	w->sc = sv[1];
	/* CVE-2019-5736: see create.c; the clone below lands in the container's
	 * pid namespace, where its processes can see it until execve. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return cv_error_errno(err, "prctl PR_SET_DUMPABLE");
	/* In its cgroup from inside, as create's process: a pid written from
	 * outside takes the global threadgroup lock, whose write side waits out
	 * an RCU grace period (~10 ms, when the machine has work for RCU). */
	struct cv_cgroup *cg = NULL;
	if (w->c->state->cgroup_paths.len &&
	    ((r = cv_container_cgroup(w->c, &cg, err)) < 0 || (r = cv_cgroup_self_join_open(cg, &w->cgjoin, err)) < 0))
		return r;
	int ufd = cg ? cv_cgroup_clone_fd(cg) : -1;
	w->v2 = w->into_cgroup = ufd >= 0;
	if (all_ns & CLONE_NEWPID) {
		own_pidns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
		if (own_pidns < 0)
			return cv_error_errno(err, "open `/proc/self/ns/pid`");
		if (setns(w->init_pidfd, CLONE_NEWPID) < 0)
			return cv_error_errno(err, "join the container's pid namespace");
	}
	struct clone_args ca = { .flags = CLONE_PIDFD,
				 .pidfd = (uint64_t)(uintptr_t)&w->pidfd,
				 .exit_signal = SIGCHLD };
	if (w->into_cgroup) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)ufd;
	}
	/* execCPUAffinity.initial: the runtime's own affinity, inherited by the
	 * process until it joins the container's cgroup; ours is restored
	 * right after the clone. */
	cleanup_cpuset cpu_set_t *own_cpus = NULL;
	size_t own_cpus_size = 0;
	pid_t pid = -1;
	int clone_errno = 0;
	if (proc->exec_cpu_affinity && proc->exec_cpu_affinity->initial && *proc->exec_cpu_affinity->initial) {
		own_cpus_size = CPU_ALLOC_SIZE(CPU_SETSIZE);
		own_cpus = CPU_ALLOC(CPU_SETSIZE);
		if (!own_cpus)
			r = cv_error(err, ENOMEM, "process.execCPUAffinity.initial");
		else if (sched_getaffinity(0, own_cpus_size, own_cpus) < 0)
			r = cv_error_errno(err, "process.execCPUAffinity.initial: sched_getaffinity");
		else
			r = cv_cpu_affinity_apply(proc->exec_cpu_affinity->initial, "process.execCPUAffinity.initial",
						  err);
	}
	if (r == 0) {
		/* The store lock must not be inherited (see create.c). */
		int lockfd = w->c->entry->lockfd;
		fflush(NULL);
		pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
		/* refused (an old kernel, a rootless caller): the runtime moves
		 * the child, as before */
		if (pid < 0 && w->into_cgroup) {
			w->into_cgroup = false;
			ca.flags &= ~(uint64_t)CLONE_INTO_CGROUP;
			ca.cgroup = 0;
			pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
		}
		if (pid == 0) {
			close(lockfd);
			close(w->sp);
			struct cv_exec_child_config x = {
				.p = proc,
				.linux_ = w->spec->linux_,
				.init_pidfd = w->init_pidfd,
				.ns_flags = all_ns & ~CLONE_NEWPID,
				.root_fd = w->root,
				.userns = (all_ns & CLONE_NEWUSER) != 0,
				.sync_fd = w->sc,
				.preserve_fds = opts->preserve_fds,
				.seccomp = w->seccomp,
				.cgroup_join = &w->cgjoin,
			};
			cv_exec_child_main(&x);
		}
		clone_errno = errno;
		if (own_cpus && sched_setaffinity(0, own_cpus_size, own_cpus) < 0)
			cv_warn("restore the runtime's cpu affinity: %s", strerror(errno));
	}
	if (own_pidns >= 0 && setns(own_pidns, CLONE_NEWPID) < 0)
		cv_warn("restore the runtime's pid namespace: %s", strerror(errno));
	if (r < 0)
		return r;
	if (pid < 0)
		return cv_error(err, clone_errno, "exec: clone");
	w->pid = pid;
	close(steal_fd(&w->sc));
	cv_cgroup_self_join_close(&w->cgjoin); /* the child has its copies */
	return 0;
}

/* Puts the process in the container's cgroup, lets it go on, and serves
 * what it asks (its console, its seccomp listener) until its execve closes
 * the socket. */
static int exec_handshake(const struct cvisor_exec_options *opts, struct exec_work *w, cv_error_t *err)
{
	struct cv_cgroup *cg = NULL;
	struct cv_sync_msg m = { .fd = -1 };
	int r;

	if (!w->into_cgroup && w->v2 &&
	    ((r = cv_container_cgroup(w->c, &cg, err)) < 0 || (r = cv_cgroup_enter(cg, w->pid, err)) < 0))
		return r;
	r = cv_sync_send(w->sp, CV_SYNC_CONTINUE, 0, NULL, 0, -1, err);
	if (r < 0)
		return r;
	for (;;) {
		if (cv_sync_recv_logged(w->sp, &m, err) < 0) {
			/* EOF: execve closed the socket, the process runs. */
			cv_error_release(err);
			return 0;
		}
		if (m.type == CV_SYNC_CONSOLE) {
			w->master = steal_fd(&m.fd);
			cv_sync_msg_release(&m);
			if (opts->console_socket) {
				r = cv_console_send(opts->console_socket, w->master, err);
				if (r < 0)
					return r;
				close(steal_fd(&w->master));
			}
			continue;
		}
		if (m.type == CV_SYNC_SECCOMP) {
			cleanup_free char *js = NULL;
			size_t jlen;
			int child_fd = m.errnum;
			cv_sync_msg_release(&m);
			if ((r = oci_state_emit_public(w->c->state, false, &js, &jlen, err)) < 0 ||
			    (r = cv_seccomp_take_listener(w->pidfd, child_fd, w->spec->linux_->seccomp,
							  w->c->state->pid, js, err)) < 0 ||
			    (r = cv_sync_send(w->sp, CV_SYNC_CONTINUE, 0, NULL, 0, -1, err)) < 0)
				return r;
			continue;
		}
		return cv_sync_msg_error(&m, "exec", err);
	}
}

int cv_exec(const struct cvisor_context *ctx, const char *id, const struct cvisor_exec_options *opts, int *exit_status,
	    cv_error_t *err)
{
	struct exec_work w = { .init_pidfd = -1, .root = -1, .pid = -1, .pidfd = -1, .sp = -1, .sc = -1, .master = -1 };
	int r;

	r = exec_validate(ctx, id, opts, &w, err);
	if (r == 0)
		r = exec_clone(opts, &w, err);
	if (r == 0)
		r = exec_handshake(opts, &w, err);
	if (r == 0 && opts->pid_file)
		r = cv_write_pid_file(opts->pid_file, w.pid, err);
	if (r == 0 && opts->pidfd_socket)
		r = cv_fd_send_to_socket(opts->pidfd_socket, w.pidfd, "pidfd", err);
	if (r < 0) {
		if (w.pid > 0) {
			(void)syscall(SYS_pidfd_send_signal, w.pidfd, SIGKILL, NULL, 0);
			while (waitpid(w.pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		goto out;
	}
	/* The container record stays readable for others while we wait. */
	cv_container_free(steal_pointer(&w.c));
	cv_helper_announce(w.pid, w.pidfd);
	if (opts->detach)
		goto out;
	if (w.master >= 0 && (r = cv_console_relay(w.master, w.pidfd, err)) < 0)
		goto out;
	r = cv_wait_forwarding(w.pid, w.pidfd, exit_status, err);
out:
	exec_work_release(&w);
	return r;
}
