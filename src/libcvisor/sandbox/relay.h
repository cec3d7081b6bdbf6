/* Copies between the caller's stdio and a sandboxed program (cvisor do),
 * each on a thread of its own with blocking writes: a consumer that stalls
 * (`cvisor do ... | (sleep 15; cat)`) stalls that thread, and through its
 * pipe the program, never the supervisor's loop that enforces the timeout.
 * Used for a capped stream (max_output_bytes), for a regular file as the
 * caller's stdin, stdout or stderr (the program gets a pipe: it cannot
 * read, seek or truncate the caller's file through /proc/self/fd), and for
 * the pty's output when the program has one. */
#ifndef CVISOR_RELAY_H
#define CVISOR_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"

struct cv_relay {
	int src, dst;
	bool own_src, own_dst; /* closed when the copy ends */
	/* at most left bytes reach dst, the rest is read and dropped */
	bool capped;
	uint64_t left;
	/* dst failed (a reader gone: EPIPE, SIGPIPE blocked in the thread):
	 * true: go on reading src and drop it all (a pty, whose program must
	 * not block on output nobody takes); false: stop, closing src (a pipe
	 * from the program: its writes then fail as they would have on the
	 * caller's pipe) */
	bool drain_when_broken;
	bool truncated; /* out, after cv_relay_join: bytes were dropped at the cap */
	char *buf;
	pthread_t thread;
	bool started;
};

/* A relay not started (src and dst -1). */
#define CV_RELAY_INIT                                                                                                  \
	{                                                                                                              \
		.src = -1, .dst = -1                                                                                   \
	}

/* Starts the copy; it ends at src's end of file (or EIO, a pty whose
 * slave is gone). On failure nothing was started and no fd is closed. */
int cv_relay_start(struct cv_relay *r, cv_error_t *err);
/* Waits for the end of the copy (a relay never started: closes the fds it
 * owns, what src still holds is dropped). */
void cv_relay_join(struct cv_relay *r);
/* The same, but a relay never started is copied here, in the caller's
 * thread, to src's end of file: for a source whose writers are all gone
 * (a program's pipe once its sandbox has ended), which the caller chose to
 * leave to the end rather than start a thread for (most programs write
 * nothing to stderr, many nothing at all). */
void cv_relay_finish(struct cv_relay *r);

#endif
