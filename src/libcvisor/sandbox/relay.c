/* Copies between the caller's stdio and a sandboxed program (see relay.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* The copy to src's end, BUF of SIZE bytes; closes the fds owned. */
static void copy_to_end(struct cv_relay *r, char *buf, size_t size)
{
	bool broken = false;
	for (;;) {
		ssize_t n = read(r->src, buf, size);
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
	if (r->own_src)
		close(r->src);
	if (r->own_dst)
		close(r->dst);
}

/* EPIPE instead of SIGPIPE, which would kill the whole supervisor: blocked
 * in this thread, the mask before into *SAVED; false when it could not be. */
static bool block_sigpipe(sigset_t *saved)
{
	sigset_t pipe;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	return pthread_sigmask(SIG_BLOCK, &pipe, saved) == 0;
}

static void *copy(void *arg)
{
	struct cv_relay *r = arg;
	sigset_t saved;
	(void)block_sigpipe(&saved);
	copy_to_end(r, r->buf, CHUNK);
	free(r->buf);
	r->buf = NULL;
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

void cv_relay_finish(struct cv_relay *r)
{
	if (r->started || r->src < 0) {
		cv_relay_join(r);
		return;
	}
	/* as in the thread, then the caller's mask as it was */
	sigset_t saved;
	bool masked = block_sigpipe(&saved);
	char small[4096];
	char *big = malloc(CHUNK);
	copy_to_end(r, big ? big : small, big ? CHUNK : sizeof(small));
	free(big);
	if (masked) {
		/* a SIGPIPE raised here is dropped, not delivered once unblocked */
		sigset_t pipe;
		sigemptyset(&pipe);
		sigaddset(&pipe, SIGPIPE);
		struct timespec zero = { 0, 0 };
		while (!sigismember(&saved, SIGPIPE) && sigtimedwait(&pipe, NULL, &zero) > 0)
			;
		(void)pthread_sigmask(SIG_SETMASK, &saved, NULL);
	}
	r->src = r->dst = -1;
}
