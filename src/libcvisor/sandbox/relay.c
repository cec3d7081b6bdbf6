/* Copies between the caller's stdio and a sandboxed program (see relay.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/relay.h"

#define CHUNK 65536

/* Writes it all; false when dst failed. A dst left O_NONBLOCK by its other
 * users is waited for. */
static bool write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = { fd, POLLOUT, 0 };
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				return false;
			continue;
		}
		if (w <= 0)
			return false;
		buf += w;
		len -= (size_t)w;
	}
	return true;
}

static void *copy(void *arg)
{
	struct cv_relay *r = arg;
	/* EPIPE instead: the signal would kill the whole supervisor */
	sigset_t pipe;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	(void)pthread_sigmask(SIG_BLOCK, &pipe, NULL);
	char *buf = r->buf;
	bool broken = false;
	for (;;) {
		ssize_t n = read(r->src, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* a pty master the supervisor made non-blocking */
			struct pollfd p = { r->src, POLLIN, 0 };
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				break;
			continue;
		}
		if (n <= 0)
			break; /* end of file, or EIO: a pty whose slave is gone */
		size_t keep = (size_t)n;
		if (r->capped) {
			if (keep > r->left) {
				keep = (size_t)r->left;
				r->truncated = true;
			}
			r->left -= keep;
		}
		if (!broken && keep > 0 && !write_all(r->dst, buf, keep)) {
			broken = true;
			if (!r->drain_when_broken)
				break;
		}
	}
	free(buf);
	r->buf = NULL;
	if (r->own_src)
		close(r->src);
	if (r->own_dst)
		close(r->dst);
	return NULL;
}

int cv_relay_start(struct cv_relay *r, cv_error_t *err)
{
	r->buf = malloc(CHUNK);
	if (!r->buf)
		return cv_error(err, ENOMEM, "relay");
	int e = pthread_create(&r->thread, NULL, copy, r);
	if (e != 0) {
		free(r->buf);
		r->buf = NULL;
		return cv_error(err, e, "relay: start a thread");
	}
	r->started = true;
	return 0;
}

void cv_relay_join(struct cv_relay *r)
{
	if (r->started) {
		(void)pthread_join(r->thread, NULL);
		r->started = false;
	} else {
		if (r->own_src && r->src >= 0)
			close(r->src);
		if (r->own_dst && r->dst >= 0)
			close(r->dst);
	}
	r->src = r->dst = -1;
}
