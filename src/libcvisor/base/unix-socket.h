/* Unix sockets: connecting by path, and passing an fd (SCM_RIGHTS) with a
 * message, for the sync protocol, --console-socket, --pidfd-socket and the
 * seccomp agent. */
#ifndef CVISOR_UNIX_SOCKET_H
#define CVISOR_UNIX_SOCKET_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "error.h"

/* A connected SOCK_STREAM | SOCK_CLOEXEC socket to PATH. Errors:
 * "connect to `PATH`: ...". */
int cv_unix_connect(const char *path, cv_error_t *err);

/* Connects to PATH and sends NAME with FD attached, as runc hands a
 * console master (--console-socket) or a pidfd (--pidfd-socket). */
int cv_fd_send_to_socket(const char *path, int fd, const char *name, cv_error_t *err);

/* Sends the IOVCNT buffers (at most 8) of IOV on SOCK with FD, when >= 0,
 * attached to the first byte. A short send on a stream socket continues
 * without the fd (a SOCK_SEQPACKET message goes whole). MSG_NOSIGNAL;
 * EINTR is retried. Returns 0 or -errno. */
int cv_send_fd(int sock, const struct iovec *iov, size_t iovcnt, int fd);
/* The same with the NFDS fds of FDS (at most 8; none when 0). */
int cv_send_fds(int sock, const struct iovec *iov, size_t iovcnt, const int *fds, size_t nfds);

/* Receives one message into IOV and at most one fd (MSG_CMSG_CLOEXEC) in
 * *FD, -1 when none came; any further fds are closed. Returns the byte
 * count (0 at EOF) or -errno: -EMSGSIZE when the message or its fds did
 * not fit (nothing is kept then). */
ssize_t cv_recv_fd(int sock, struct iovec *iov, size_t iovcnt, int *fd);

#endif
