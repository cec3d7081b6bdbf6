/* Hands a seccomp listener fd to an agent (linux.seccomp.listenerPath), in
 * the runtime-spec "containerProcessState" format runc uses: one message on a
 * unix stream socket holding the JSON document
 *   {"ociVersion", "fds": ["seccompFd"], "pid", "metadata", "state": {...}}
 * with the fd attached as SCM_RIGHTS. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cleanup.h"
#include "oci/state.h"
#include "seccomp/seccomp-filter.h"
#include "unix-socket.h"

int cv_seccomp_send_listener(const char *listener_path, int notify_fd, int pid, const char *state_json,
			     const char *metadata, cv_error_t *err)
{
	cleanup_close int sock = -1;
	cleanup_free char *msg = NULL;
	size_t len = 0;
	int r;

	if (listener_path == NULL || listener_path[0] == '\0')
		return cv_error(err, EINVAL, "linux.seccomp.listenerPath: empty");
	if (notify_fd < 0)
		return cv_error(err, EBADF, "seccomp agent `%s`: no listener fd", listener_path);
	if (pid <= 0)
		return cv_error(err, EINVAL, "seccomp agent `%s`: the container has no pid", listener_path);
	if ((r = oci_seccomp_agent_message(pid, metadata, state_json, &msg, &len, err)) < 0)
		return r;
	sock = cv_unix_connect(listener_path, err);
	if (sock < 0)
		return cv_error_prefix(err, "seccomp agent");
	/* the fd travels with the first byte */
	struct iovec iov = { msg, len };
	if ((r = cv_send_fd(sock, &iov, 1, notify_fd)) < 0)
		return cv_error(err, -r, "send seccomp listener to agent `%s`", listener_path);
	return 0;
}

/* The listener fd of a container process's notify filter: taken from it
 * with pidfd_getfd (it only wrote the number, see load_seccomp in finish.c) and
 * handed to the agent at listenerPath; our copy is closed here. */
int cv_seccomp_take_listener(int pidfd, int child_fd, const oci_seccomp *profile, int pid, const char *state_json,
			     cv_error_t *err)
{
	if (child_fd < 0)
		return cv_error(err, EPROTO, "seccomp listener: bad fd number %d", child_fd);
	cleanup_close int fd = (int)syscall(SYS_pidfd_getfd, pidfd, child_fd, 0);
	if (fd < 0)
		return cv_error_errno(err, "seccomp listener: take fd %d of the container process", child_fd);
	if (!profile->listener_path || !*profile->listener_path)
		return cv_error(err, EINVAL, "linux.seccomp.listenerPath: required with SCMP_ACT_NOTIFY");
	return cv_seccomp_send_listener(profile->listener_path, fd, pid, state_json, profile->listener_metadata, err);
}
