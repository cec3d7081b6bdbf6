/* Hands a seccomp listener fd to an agent (linux.seccomp.listenerPath), in
 * the runtime-spec "containerProcessState" format runc uses: one message on a
 * unix stream socket holding the JSON document
 *   {"ociVersion", "fds": ["seccompFd"], "pid", "metadata", "state": {...}}
 * with the fd attached as SCM_RIGHTS. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "cleanup.h"
#include "seccomp/seccomp-filter.h"

static void yajl_gen_freep(yajl_gen *g)
{
	if (*g)
		yajl_gen_free(*g);
}
static void yajl_tree_freep(yajl_val *v)
{
	if (*v)
		yajl_tree_free(*v);
}

/* Reads the container pid from the state document we were given. */
static int state_pid(const char *state_json, long long *pid, cv_error_t *err)
{
	static const char *path[] = { "pid", NULL };
	__attribute__((cleanup(yajl_tree_freep))) yajl_val root = NULL;
	char errbuf[128];
	yajl_val v;

	root = yajl_tree_parse(state_json, errbuf, sizeof(errbuf));
	if (root == NULL || !YAJL_IS_OBJECT(root))
		return cv_error(err, EINVAL, "seccomp agent: container state is not a JSON object");
	v = yajl_tree_get(root, path, yajl_t_number);
	if (v == NULL || !YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) <= 0)
		return cv_error(err, EINVAL, "seccomp agent: container state has no pid");
	*pid = YAJL_GET_INTEGER(v);
	return 0;
}

static int build_message(const char *state_json, const char *metadata, char **out, size_t *out_len,
			 cv_error_t *err)
{
	__attribute__((cleanup(yajl_gen_freep))) yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *head;
	size_t head_len, state_len = strlen(state_json);
	long long pid = 0;
	char *msg;
	int ret;

	ret = state_pid(state_json, &pid, err);
	if (ret < 0)
		return ret;
	if (g == NULL)
		return cv_error(err, ENOMEM, "seccomp agent message");
#define S(str) yajl_gen_string(g, (const unsigned char *)(str), strlen(str))
	yajl_gen_map_open(g);
	S("ociVersion");
	S(OCI_VERSION);
	S("fds");
	yajl_gen_array_open(g);
	S("seccompFd");
	yajl_gen_array_close(g);
	S("pid");
	yajl_gen_integer(g, pid);
	S("metadata");
	S(metadata ? metadata : "");
	/* "state" is appended verbatim below: it is already JSON. */
	if (S("state") != yajl_gen_status_ok)
		return cv_error(err, ENOMEM, "seccomp agent message");
#undef S
	if (yajl_gen_get_buf(g, &head, &head_len) != yajl_gen_status_ok)
		return cv_error(err, ENOMEM, "seccomp agent message");
	msg = malloc(head_len + 1 + state_len + 2);
	if (msg == NULL)
		return cv_error(err, ENOMEM, "seccomp agent message");
	memcpy(msg, head, head_len);
	msg[head_len] = ':';
	memcpy(msg + head_len + 1, state_json, state_len);
	memcpy(msg + head_len + 1 + state_len, "}", 2);
	*out = msg;
	*out_len = head_len + 1 + state_len + 1;
	return 0;
}

int cv_seccomp_send_listener(const char *listener_path, int notify_fd, const char *state_json,
			     const char *metadata, cv_error_t *err)
{
	cleanup_close int sock = -1;
	cleanup_free char *msg = NULL;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	struct iovec iov;
	size_t len = 0, off = 0;
	int ret;

	if (listener_path == NULL || listener_path[0] == '\0')
		return cv_error(err, EINVAL, "linux.seccomp.listenerPath: empty");
	if (strlen(listener_path) >= sizeof(addr.sun_path))
		return cv_error(err, ENAMETOOLONG, "linux.seccomp.listenerPath `%s`", listener_path);
	if (notify_fd < 0)
		return cv_error(err, EBADF, "seccomp agent `%s`: no listener fd", listener_path);
	ret = build_message(state_json, metadata, &msg, &len, err);
	if (ret < 0)
		return ret;

	strcpy(addr.sun_path, listener_path);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return cv_error_errno(err, "seccomp agent: socket");
	if (connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return cv_error_errno(err, "connect to seccomp agent `%s`", listener_path);

	memset(&control, 0, sizeof(control));
	while (off < len) {
		ssize_t n;

		iov.iov_base = msg + off;
		iov.iov_len = len - off;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (off == 0) { /* the fd travels with the first byte */
			mh.msg_control = control.buf;
			mh.msg_controllen = sizeof(control.buf);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &notify_fd, sizeof(int));
		} else {
			mh.msg_control = NULL;
			mh.msg_controllen = 0;
		}
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cv_error_errno(err, "send seccomp listener to agent `%s`", listener_path);
		off += n;
	}
	return 0;
}
