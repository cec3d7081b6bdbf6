#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "log.h"
#include "unix-socket.h"
#include "process/console.h"
#include "fs/safe-path.h"

int cv_console_new_pty(int rootfd, uint32_t rows, uint32_t cols, int *master, int *slave, cv_error_t *err)
{
	int unlock = 0;
	/* create: the container's own devpts, reached inside its rootfs before
	 * pivot_root (its /dev/ptmx is the link to pts/ptmx); exec: the
	 * container's /dev/ptmx, since exec already runs in its root. */
	cleanup_close int m = rootfd >= 0 ? cv_open_in_root(rootfd, "/dev/ptmx", O_RDWR | O_NOCTTY, 0, err)
					  : open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0) {
		if (rootfd >= 0)
			return cv_error_prefix(err, "console");
		return cv_error_errno(err, "console: open `/dev/ptmx`");
	}
	if (ioctl(m, TIOCSPTLCK, &unlock) < 0)
		return cv_error_errno(err, "console: unlock pty");
	/* TIOCGPTPEER opens the slave through the master's devpts, not by a
	 * path the container could have replaced. */
	cleanup_close int s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return cv_error_errno(err, "console: open pty slave");
	if (rows || cols) {
		struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
		if (ioctl(s, TIOCSWINSZ, &ws) < 0)
			return cv_error_errno(err, "console: set size %ux%u", rows, cols);
	} else {
		/* run and exec relay the caller's terminal, whose size the relay
		 * copies only once the program runs: the program's first look
		 * must already see it, not 0x0. Not a tty: nothing to copy. */
		cv_console_copy_size(0, s);
	}
	*master = steal_fd(&m);
	*slave = steal_fd(&s);
	return 0;
}

int cv_console_make_stdio(int slave, int mask, uid_t owner, cv_error_t *err)
{
	/* The user must be able to reopen its terminal (`tty`, a shell's
	 * /dev/tty); the group stays devpts' (gid=5, "tty"). An id this user
	 * namespace does not map cannot be given: the pty stays as it is, as
	 * runc leaves it. */
	struct stat st;
	if (fstat(slave, &st) < 0)
		return cv_error_errno(err, "console: stat the pty");
	if (st.st_uid != owner && fchown(slave, owner, (gid_t)-1) < 0) {
		if (errno != EINVAL && errno != EPERM)
			return cv_error_errno(err, "console: chown the pty to uid %u", (unsigned)owner);
		cv_debug("console: pty left to uid %u: chown to %u: %s", (unsigned)st.st_uid, (unsigned)owner,
			 strerror(errno));
	}
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		return cv_error_errno(err, "console: make the pty the controlling terminal");
	for (int fd = 0; fd < 3; fd++)
		if ((mask & (1 << fd)) && dup2(slave, fd) < 0)
			return cv_error_errno(err, "console: dup2 to %d", fd);
	return 0;
}

int cv_console_setup(uint32_t rows, uint32_t cols, uid_t owner, int *master, cv_error_t *err)
{
	cleanup_close int m = -1, s = -1;
	int r = cv_console_new_pty(-1, rows, cols, &m, &s, err);
	if (r < 0)
		return r;
	r = cv_console_make_stdio(s, CV_CONSOLE_ALL_STDIO, owner, err);
	if (r < 0)
		return r;
	*master = steal_fd(&m);
	return 0;
}

int cv_console_send(const char *socket_path, int master, cv_error_t *err)
{
	int r = cv_fd_send_to_socket(socket_path, master, "/dev/ptmx", err);
	if (r < 0)
		return cv_error_prefix(err, "console socket");
	return 0;
}

static int copy_once(int from, int to)
{
	char buf[16384];
	ssize_t n = read(from, buf, sizeof(buf));
	if (n <= 0)
		return n < 0 && errno == EINTR ? 1 : -1;
	return cv_write_all(to, buf, (size_t)n) < 0 ? -1 : 1;
}

int cv_console_raw(int fd, struct termios *saved, cv_error_t *err)
{
	if (tcgetattr(fd, saved) < 0)
		return cv_error_errno(err, "console: read the terminal's settings");
	struct termios raw = *saved;
	cfmakeraw(&raw);
	raw.c_oflag |= OPOST; /* keep output post-processing, like runc */
	if (tcsetattr(fd, TCSANOW, &raw) < 0)
		return cv_error_errno(err, "console: raw mode");
	return 0;
}

void cv_console_restore(int fd, const struct termios *saved)
{
	/* the caller's terminal as it was: nothing better to do on failure */
	(void)tcsetattr(fd, TCSANOW, saved);
}

void cv_console_copy_size(int from, int to)
{
	struct winsize ws;
	if (ioctl(from, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(to, TIOCSWINSZ, &ws);
}

int cv_console_relay(int master, int pidfd, cv_error_t *err)
{
	struct termios saved;
	bool is_tty = isatty(0);
	sigset_t mask;
	cleanup_close int sfd = -1;

	if (is_tty) {
		if (cv_console_raw(0, &saved, err) < 0)
			return -1;
		cv_console_copy_size(0, master);
		sigemptyset(&mask);
		sigaddset(&mask, SIGWINCH);
		pthread_sigmask(SIG_BLOCK, &mask, NULL);
		sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	}
	bool in_open = true, exited = false;
	for (;;) {
		struct pollfd p[4] = { { master, POLLIN, 0 },
				       { in_open ? 0 : -1, POLLIN, 0 },
				       { exited ? -1 : pidfd, POLLIN, 0 },
				       { sfd, POLLIN, 0 } };
		int r = poll(p, 4, exited ? 100 : -1);
		if (r < 0 && errno != EINTR)
			break;
		if (r == 0)
			break; /* exited and nothing left to drain */
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
			if (copy_once(master, 1) < 0)
				break;
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR))
			if (copy_once(0, master) < 0)
				in_open = false;
		if (p[2].revents & POLLIN)
			exited = true;
		if (sfd >= 0 && (p[3].revents & POLLIN)) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof(si)) > 0)
				cv_console_copy_size(0, master);
		}
	}
	if (is_tty)
		cv_console_restore(0, &saved);
	return 0;
}
