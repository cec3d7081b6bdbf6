/* Terminals: the pty allocated inside the container, handing its master to
 * the --console-socket receiver, and relaying it to the caller's terminal. */
#ifndef CVISOR_CONSOLE_H
#define CVISOR_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <termios.h>

#include "error.h"

/* A new pty: its master from ROOTFD's /dev/ptmx resolved inside that root
 * (or, with ROOTFD -1, from the current root's /dev/ptmx), its slave
 * through TIOCGPTPEER, sized ROWSxCOLS when not 0x0. */
int cv_console_new_pty(int rootfd, uint32_t rows, uint32_t cols, int *master, int *slave, cv_error_t *err);
/* Makes SLAVE the controlling terminal (after setsid) and each of fds 0, 1
 * and 2 whose bit is set in MASK (bit 0: fd 0; CV_CONSOLE_ALL_STDIO: all
 * three), owned by OWNER (process.user.uid) with the group devpts gave it,
 * as runc does. */
#define CV_CONSOLE_ALL_STDIO 7
int cv_console_make_stdio(int slave, int mask, uid_t owner, cv_error_t *err);
/* exec: both of the above in the container's root; *master is returned. */
int cv_console_setup(uint32_t rows, uint32_t cols, uid_t owner, int *master, cv_error_t *err);
/* Sends master over the unix socket at path (SCM_RIGHTS), as runc does. */
int cv_console_send(const char *socket_path, int master, cv_error_t *err);
/* The caller's terminal FD in raw mode (as script(1) and runc do, keeping
 * output post-processing); *saved is what cv_console_restore() puts back. */
int cv_console_raw(int fd, struct termios *saved, cv_error_t *err);
void cv_console_restore(int fd, const struct termios *saved);
/* Gives the pty TO the window size of the terminal FROM (no-op when FROM
 * has none). */
void cv_console_copy_size(int from, int to);
/* Relays the caller's stdio and the master until the process behind pidfd
 * exits and the master is drained; raw mode and SIGWINCH when stdin is a tty. */
int cv_console_relay(int master, int pidfd, cv_error_t *err);

#endif
