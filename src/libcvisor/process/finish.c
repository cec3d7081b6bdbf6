/* The last steps of every container process, create's and exec's alike
 * (see cv_process_finish in process.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "find-program.h"
#include "fs/safe-path.h"
#include "io.h"
#include "log.h"
#include "process/mempolicy.h"
#include "process/caps.h"
#include "process/init.h"
#include "process/passwd.h"
#include "process/process-attrs.h"
#include "process/process.h"
#include "process/sync.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* execvp's lookup of FILE in the PATH of ENV (or the default PATH): the
 * result is malloc'd. */
static int find_executable(const char *file, char *const *env, char **out, cv_error_t *err)
{
	const char *path = CV_DEFAULT_PATH;
	struct stat st;

	if (!file || !*file)
		return cv_error(err, EINVAL, "process.args: empty command");
	if (strchr(file, '/')) {
		if (stat(file, &st) < 0)
			return cv_error_errno(err, "exec `%s`", file);
		if (!S_ISREG(st.st_mode))
			return cv_error(err, EACCES, "exec `%s`: not a regular file", file);
		*out = strdup(file);
		return *out ? 0 : cv_error(err, ENOMEM, "exec");
	}
	for (char *const *e = env; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	int last_errno = ENOENT;
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		cleanup_free char *cand = NULL;
		if (end == p) {
			/* An empty entry means the current directory, as in execvp. */
			if (asprintf(&cand, "%s", file) < 0)
				return cv_error(err, ENOMEM, "exec");
		} else if (asprintf(&cand, "%.*s/%s", (int)(end - p), p, file) < 0)
			return cv_error(err, ENOMEM, "exec");
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(cand, X_OK) == 0) {
				*out = steal_pointer(&cand);
				return 0;
			}
			last_errno = errno;
		}
		if (!*end)
			break;
		p = end;
	}
	if (last_errno == ENOENT)
		return cv_error(err, ENOENT, "exec: \"%s\": executable file not found in $PATH", file);
	return cv_error(err, last_errno, "exec: \"%s\"", file);
}

/* The final credentials: the bounding set, groups (none unless
 * additionalGids), gid, uid (keeping the capabilities over the switch),
 * then the capability sets. */
static int set_user_caps(const oci_process *p, bool in_userns, cv_error_t *err)
{
	const oci_user *u = &p->user;
	int r;

	r = cv_caps_drop_bounding(p->capabilities, err);
	if (r < 0)
		return r;
	if (u->additional_gids_len) {
		gid_t *g = calloc(u->additional_gids_len, sizeof(gid_t));
		if (!g)
			return cv_error(err, ENOMEM, "setgroups");
		for (size_t i = 0; i < u->additional_gids_len; i++)
			g[i] = u->additional_gids[i];
		r = setgroups(u->additional_gids_len, g);
		free(g);
		if (r < 0)
			return cv_error_errno(err, "process.user.additionalGids: setgroups");
	} else if (setgroups(0, NULL) < 0 && !(in_userns && errno == EPERM)) {
		/* in a user namespace whose maps an unprivileged caller wrote,
		 * setgroups is denied: the caller's own groups stay, nothing
		 * more; a privileged writer allows it, and the runtime's groups
		 * (root's group 0) must go */
		return cv_error_errno(err, "setgroups");
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return cv_error_errno(err, "prctl PR_SET_KEEPCAPS");
	if (setresgid(u->gid, u->gid, u->gid) < 0)
		return cv_error_errno(err, "process.user.gid: setresgid %u", u->gid);
	if (setresuid(u->uid, u->uid, u->uid) < 0)
		return cv_error_errno(err, "process.user.uid: setresuid %u", u->uid);
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		return cv_error_errno(err, "prctl PR_SET_KEEPCAPS");
	r = cv_caps_set(p->capabilities, err);
	if (r < 0)
		return cv_error_prefix(err, "process.capabilities");
	return 0;
}

/* Loads the filter; with SCMP_ACT_NOTIFY, tells the runtime the listener's
 * number (write only: the runtime takes it with pidfd_getfd and hands it
 * to the agent), waits until that is done, and closes it: the container
 * never keeps its own listener. */
static int load_seccomp(const struct cv_seccomp *filter, int sync_fd, cv_error_t *err)
{
	/* a profile may deny or notify sendmsg: nothing of ours is sent after
	 * the filter (a notified send would wait for an agent that has no
	 * listener yet) */
	cv_log_set_sink(NULL, NULL, 0);
	int notify = -1;
	int r = cv_seccomp_load(filter, &notify, err);
	if (r < 0)
		return cv_error_prefix(err, "seccomp");
	if (notify < 0)
		return 0;
	r = cv_sync_write_plain(sync_fd, CV_SYNC_SECCOMP, notify, err);
	if (r == 0)
		r = cv_sync_read_plain(sync_fd, CV_SYNC_CONTINUE, err);
	close(notify);
	if (r < 0)
		return cv_error_prefix(err, "seccomp listener");
	return 0;
}

/* Only stdio and the KEEP fds after it survive execve. */
static int keep_only_fds(int keep, cv_error_t *err)
{
	int first = 3 + keep;
	if (syscall(SYS_close_range, first, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		return cv_error_errno(err, "close_range");
	for (int fd = 3; fd < first; fd++) {
		int fl = fcntl(fd, F_GETFD);
		if (fl >= 0)
			(void)fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
	}
	return 0;
}

/* The home directory of UID in the container's /etc/passwd (we are in its
 * root), malloc'd; "/" when it has no entry or no readable database, as
 * runc and crun do. The file is the image's: opened without blocking (a
 * FIFO there would hold the start), a regular file only, read whole up to
 * a bound. */
static char *container_home(uid_t uid)
{
	cleanup_close int fd = open("/etc/passwd", O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	cleanup_free char *data = NULL;
	struct stat st;
	size_t len;
	cleanup_error cv_error_t e = NULL;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    cv_read_fd(fd, "/etc/passwd", 16u << 20, &data, &len, &e) == 0) {
		for (char *line = data, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			const char *name, *home;
			if (cv_passwd_line_match(line, uid, &name, &home) && *home)
				return strdup(home);
		}
	}
	return strdup("/");
}

/* process.env, then EXTRA; HOME from the container's /etc/passwd when
 * neither has one (programs that read it crash without). HOME_BUF keeps
 * that string. */
static int build_env(const oci_process *p, char *const *extra, char ***out, char **home_buf, cv_error_t *err)
{
	size_t n = p->env.len, next = 0, k = 0;
	bool has_home = false;
	while (extra && extra[next])
		next++;
	char **env = calloc(n + next + 2, sizeof(char *));
	if (!env)
		return cv_error(err, ENOMEM, "env");
	for (size_t i = 0; i < n; i++)
		env[k++] = p->env.v[i];
	for (size_t i = 0; i < next; i++)
		env[k++] = extra[i];
	for (size_t i = 0; i < k; i++)
		has_home = has_home || strncmp(env[i], "HOME=", 5) == 0;
	if (!has_home) {
		cleanup_free char *home = container_home(p->user.uid);
		if (!home || asprintf(home_buf, "HOME=%s", home) < 0) {
			free(env);
			return cv_error(err, ENOMEM, "env");
		}
		env[k++] = *home_buf;
	}
	env[k] = NULL;
	*out = env;
	return 0;
}

/* RLIMIT_NOFILE, once: as late as possible (the runtime's fds stay open
 * until execve) but before any seccomp filter (a profile may deny
 * setrlimit). */
static int nofile_apply(const oci_process *p, bool *done, cv_error_t *err)
{
	if (*done)
		return 0;
	*done = true;
	return cv_rlimits_apply(p, true, err);
}

void cv_process_finish(const struct cv_process_finish *f)
{
	cleanup_error cv_error_t err = NULL;
	const oci_process *p = f->p;
	char *exe = NULL, **envp = NULL, *home = NULL;
	bool seccomp_loaded = false, nofile_done = false;

	if (build_env(p, f->extra_env, &envp, &home, &err) < 0)
		goto fail;
	if (cv_rlimits_apply(p, false, &err) < 0 || cv_oom_score_adj_apply(p, &err) < 0 ||
	    cv_scheduler_apply(p, &err) < 0 || cv_io_priority_apply(p, &err) < 0 ||
	    cv_personality_apply(f->linux_, &err) < 0 || cv_mempolicy_apply(f->memory_policy, &err) < 0 ||
	    cv_lsm_apply(p, &err) < 0)
		goto fail;
	umask(p->user.umask.set ? p->user.umask.v : 022);
	if (keep_only_fds(f->keep_fds, &err) < 0)
		goto fail;
	/* exec's execCPUAffinity.final: its cgroup (joining a v1 cpuset resets
	 * the affinity) was joined before. Nothing later changes the affinity,
	 * and here no seccomp profile can deny sched_setaffinity yet. */
	if (f->exec_cpu_affinity && p->exec_cpu_affinity &&
	    cv_cpu_affinity_apply(p->exec_cpu_affinity->final, "process.execCPUAffinity.final", &err) < 0)
		goto fail;

	/* After the filter, nothing may need a syscall that a profile may
	 * deny: the steps below use only calls every profile in use allows
	 * (the credential switch, open and chdir, stat, the sync socket), and
	 * nothing but execve follows the filter when it comes last. */
	if (f->seccomp && !p->no_new_privileges) {
		/* Without no_new_privs, loading a filter needs CAP_SYS_ADMIN:
		 * load it now, while we still hold it (runc does the same). */
		if (nofile_apply(p, &nofile_done, &err) < 0 || load_seccomp(f->seccomp, f->sync_fd, &err) < 0)
			goto fail;
		seccomp_loaded = true;
	}
	if (set_user_caps(p, f->in_userns, &err) < 0)
		goto fail;
	if (cv_cwd_apply(p->cwd, "process.cwd", &err) < 0)
		goto fail;
	if (!f->late_args && find_executable(p->args.v[0], envp, &exe, &err) < 0)
		goto fail;
	/* A listener must reach the agent while the runtime still listens on
	 * the sync socket (create's returns at READY, before start): so with
	 * SCMP_ACT_NOTIFY and noNewPrivileges the filter is loaded before
	 * before_exec (runc's order too). */
	if (f->seccomp && !seccomp_loaded && cv_seccomp_has_notify(f->seccomp)) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
			cv_error_errno(&err, "prctl PR_SET_NO_NEW_PRIVS");
			goto fail;
		}
		if (nofile_apply(p, &nofile_done, &err) < 0 || load_seccomp(f->seccomp, f->sync_fd, &err) < 0)
			goto fail;
		seccomp_loaded = true;
	}
	if (f->before_exec && f->before_exec(f->arg, &err) < 0)
		goto fail;
	char *const *args = p->args.v;
	if (f->late_args) {
		args = *f->late_args;
		if (!args || !args[0]) {
			cv_error(&err, EINVAL, "process.args: none came with start");
			goto fail;
		}
		if (find_executable(args[0], envp, &exe, &err) < 0)
			goto fail;
	}
	/* not again after the NOTIFY filter above: it may deny prctl */
	if (p->no_new_privileges && !seccomp_loaded && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		cv_error_errno(&err, "prctl PR_SET_NO_NEW_PRIVS");
		goto fail;
	}
	/* the last fd the runtime opens is behind it (the exec fifo) */
	if (nofile_apply(p, &nofile_done, &err) < 0)
		goto fail;
	if (f->seccomp && !seccomp_loaded && load_seccomp(f->seccomp, f->sync_fd, &err) < 0)
		goto fail;
	if (f->init) { /* returns only when the program could not start */
		struct cv_init_start is = { .exe = exe,
					    .argv = args,
					    .envp = envp,
					    .status_fd = f->init_status_fd,
					    .foreground = p->terminal,
					    .image_fd = f->init_image_fd,
					    .leave_fds = f->init_leave_fds,
					    .nleave = f->init_nleave,
					    .memory_leave_fd = f->init_memory ? f->init_memory->leave : -1,
					    .memory_join_fd = f->init_memory ? f->init_memory->join : -1 };
		cv_init_exec(&is, &err);
	} else if (execve(exe, args, envp) < 0)
		cv_error_errno(&err, "exec `%s`", exe);
fail:
	cv_sync_send_error(f->sync_fd, err);
	_exit(127);
}
