/* Terminals: the pty allocated inside the container, handing its master to
 * the --console-socket receiver, and relaying it to the caller's terminal. */
#ifndef CVISOR_CONSOLE_H
#define CVISOR_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* A new pty: its master from ROOTFD's /dev/ptmx resolved inside that root
 * (or, with ROOTFD -1, from the current root's /dev/ptmx), its slave
 * through TIOCGPTPEER, sized ROWSxCOLS when not 0x0. */
int cv_console_new_pty(int rootfd, uint32_t rows, uint32_t cols, int *master, int *slave, cv_error_t *err);
/* Makes SLAVE the controlling terminal (after setsid) and stdio, owned by
 * OWNER (process.user.uid) with the group devpts gave it, as runc does. */
int cv_console_make_stdio(int slave, uid_t owner, cv_error_t *err);
/* exec: both of the above in the container's root; *master is returned. */
int cv_console_setup(uint32_t rows, uint32_t cols, uid_t owner, int *master, cv_error_t *err);
/* Sends master over the unix socket at path (SCM_RIGHTS), as runc does. */
int cv_console_send(const char *socket_path, int master, cv_error_t *err);
/* Relays the caller's stdio and the master until the process behind pidfd
 * exits and the master is drained; raw mode and SIGWINCH when stdin is a tty. */
int cv_console_relay(int master, int pidfd, cv_error_t *err);

#endif
