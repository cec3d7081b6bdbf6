#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "unix-socket.h"
#include "lifecycle/hooks.h"
#include "log.h"

extern char **environ;

static int run_hook(const oci_hook *h, const char *kind, size_t idx, const char *state_json, cv_error_t *err)
{
	int sv[2];
	/* Without `env`, the runtime's own environment, as runc's hooks (Go's
	 * exec.Cmd with a nil Env): a hook running /bin/sh needs PATH. An
	 * explicit `"env": []` is an empty one. */
	char *const *envp = h->env.set || h->env.len ? h->env.v : environ;
	char *default_argv[] = { h->path, NULL };
	pid_t pid;

	/* stdin is a socket rather than a pipe so writing to a hook that does
	 * not read it gives EPIPE (MSG_NOSIGNAL) instead of SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return cv_error_errno(err, "%s hook #%zu (`%s`): socketpair", kind, idx, h->path);
	cleanup_close int mine = sv[0];
	cleanup_close int theirs = sv[1];

	pid = fork();
	if (pid < 0)
		return cv_error_errno(err, "%s hook #%zu (`%s`): fork", kind, idx, h->path);
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(theirs, 0) < 0)
			_exit(127);
		/* The hook's stdout is ours only when the runtime's stdout is not
		 * the container's; keep it on stderr so it never mixes with
		 * output a caller parses (state JSON, pid files). */
		if (dup2(2, 1) < 0)
			_exit(127);
		execve(h->path, h->args.len ? h->args.v : default_argv, envp);
		dprintf(2, "%s hook `%s`: exec: %s\n", kind, h->path, strerror(errno));
		_exit(127);
	}
	cleanup_close int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	close(steal_fd(&theirs));

	struct iovec iov = { (void *)state_json, state_json ? strlen(state_json) : 0 };
	/* a hook that closed its stdin early: not an error by itself */
	(void)cv_send_fd(mine, &iov, 1, -1);
	(void)shutdown(mine, SHUT_WR);

	if (h->timeout.set && pidfd >= 0) {
		struct pollfd p = { pidfd, POLLIN, 0 };
		int r;
		do
			r = poll(&p, 1, (int)(h->timeout.v * 1000));
		while (r < 0 && errno == EINTR);
		if (r == 0) {
			(void)kill(pid, SIGKILL);
			(void)waitpid(pid, NULL, 0);
			return cv_error(err, ETIMEDOUT, "%s hook #%zu (`%s`) timed out after %lld s", kind, idx,
					h->path, (long long)h->timeout.v);
		}
	}
	int status;
	pid_t w;
	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return cv_error_errno(err, "%s hook #%zu (`%s`): wait", kind, idx, h->path);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		return cv_error(err, 0, "%s hook #%zu (`%s`): killed by signal %d", kind, idx, h->path,
				WTERMSIG(status));
	return cv_error(err, 0, "%s hook #%zu (`%s`): exited with status %d", kind, idx, h->path, WEXITSTATUS(status));
}

int cv_hooks_run(const oci_hook_list *hooks, const char *kind, const char *state_json, cv_error_t *err)
{
	if (!hooks)
		return 0;
	for (size_t i = 0; i < hooks->len; i++) {
		int r = run_hook(&hooks->v[i], kind, i, state_json, err);
		if (r < 0)
			return r;
	}
	return 0;
}

void cv_hooks_run_warn(const oci_hook_list *hooks, const char *kind, const char *state_json)
{
	if (!hooks)
		return;
	for (size_t i = 0; i < hooks->len; i++) {
		cleanup_error cv_error_t e = NULL;
		if (run_hook(&hooks->v[i], kind, i, state_json, &e) < 0)
			cv_warn("%s", e->msg);
	}
}
