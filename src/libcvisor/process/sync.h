/* The parent/child protocol of create and exec (and of the helper's report
 * to the library, lifecycle/helper.c): typed messages over a
 * SOCK_SEQPACKET socketpair, each optionally carrying one fd. A failing
 * child sends CV_SYNC_ERROR with its errno and message; the receiving side
 * turns it back into a cv_error_t, so every step's failure reaches the
 * caller with its context. */
#ifndef CVISOR_SYNC_H
#define CVISOR_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum cv_sync_type {
	CV_SYNC_ERROR = 1,    /* child -> parent: errnum + message */
	CV_SYNC_NS_READY,     /* child -> parent: namespaces exist; write maps, cgroup */
	CV_SYNC_CONTINUE,     /* parent -> child: go on (payload: hook state JSON) */
	CV_SYNC_HOOKS,        /* child -> parent: mounts done, run prestart/createRuntime */
	CV_SYNC_CONSOLE,      /* child -> parent: pty master fd */
	CV_SYNC_READY,        /* child -> parent: blocked before execve; helper -> library:
			      * first message, errnum = the report protocol's version */
	CV_SYNC_START,        /* parent -> child: exec now (run's fast path) */
	CV_SYNC_PID,          /* helper -> library: errnum = pid, fd = a pidfd of the process run */
	CV_SYNC_SECCOMP,      /* child -> parent: errnum = the seccomp listener fd number */
	CV_SYNC_LOG,          /* helper -> library: errnum = level, payload = the line */
	CV_SYNC_EXIT,         /* helper -> library, last: errnum = its exit status */
	CV_SYNC_KEEPER_READY, /* sandbox keeper -> library: the root is mounted (sandbox/keeper.h) */
	CV_SYNC_CGROUP,       /* parent -> child: fd = a v1 `tasks` file to join (errnum: rootless,
			       * payload: its directory), or none: the last one was sent */
};

/* Payloads are bounded: the state JSON hooks read is the largest one. */
#define CV_SYNC_MAX_PAYLOAD (256 * 1024)

struct cv_sync_msg {
	uint32_t type;
	int32_t errnum;
	uint32_t len;  /* payload bytes, payload is NUL-terminated in memory */
	char *payload; /* malloc'd or NULL */
	int fd;        /* received fd or -1 */
};

int cv_sync_send(int sock, uint32_t type, int errnum, const void *payload, size_t len, int fd, cv_error_t *err);
/* Sends an error object as CV_SYNC_ERROR (best effort). */
void cv_sync_send_error(int sock, cv_error_t e);
/* Receives one message. EOF is an error: "process exited unexpectedly". */
int cv_sync_recv(int sock, struct cv_sync_msg *m, cv_error_t *err);
/* The same, but LOG messages (the runtime's lines from a container process,
 * cv_sync_log_sink) go to this process's log instead of being returned. */
int cv_sync_recv_logged(int sock, struct cv_sync_msg *m, cv_error_t *err);
/* A log sink (cv_log_set_sink; DATA points to the socket's fd) for the
 * runtime's code running in a container process: its lines reach the
 * runtime's stderr and --log through the parent, never the container's
 * stdio, which that process holds as its own. Never blocks. */
void cv_sync_log_sink(int level, const char *msg, void *data);
/* Turns a message the receiver did not want into *err: the child's error
 * for CV_SYNC_ERROR, EPROTO naming WHO otherwise. Releases m. */
int cv_sync_msg_error(struct cv_sync_msg *m, const char *who, cv_error_t *err);
/* When our own step failed while the child was failing too, the child's
 * error explains it and ours is only a symptom ("no such process"): if an
 * error message is already waiting on sock, it replaces *err. Never blocks. */
void cv_sync_prefer_child_error(int sock, cv_error_t *err);
/* Receives one message of the given type (LOG messages logged on the
 * way); CV_SYNC_ERROR becomes *err. */
int cv_sync_expect(int sock, uint32_t type, struct cv_sync_msg *m, cv_error_t *err);
void cv_sync_msg_release(struct cv_sync_msg *m);

/* A header-only message through write(2), and the wait for one through
 * read(2): the child's side of the seccomp listener hand-off, after its
 * filter is loaded. A profile may notify sendmsg/recvmsg (nobody could
 * answer before the agent has the fd); `write` is refused by the seccomp
 * module for that reason, and the read blocks only once the agent has it. */
int cv_sync_write_plain(int sock, uint32_t type, int errnum, cv_error_t *err);
int cv_sync_read_plain(int sock, uint32_t type, cv_error_t *err);

#endif
