/* cvisor-slirp: an OCI createRuntime (or prestart) hook giving the
 * container's network namespace user-mode networking through slirp4netns.
 *
 *   cvisor-slirp [--allow-host-loopback] [--slirp4netns PATH]   < state.json
 *
 * The state JSON on stdin names the container's init ("pid"). The hook starts
 * slirp4netns for that process's network namespace (joining its user
 * namespace when it has one) with --configure, so tap0 gets 10.0.2.100/24
 * with 10.0.2.2 as gateway, and returns only once slirp4netns reports the
 * interface up (--ready-fd); a failure is reported with slirp4netns's own
 * message and a non-zero exit, which makes the runtime fail the create.
 *
 * Lifetime: a small monitor process (detached from the hook, in its own
 * session) is slirp4netns's parent and holds the write end of its --exit-fd
 * pipe. It waits for the container's init to exit (pidfd), then closes that
 * pipe, which ends slirp4netns, and reaps it. So slirp4netns never outlives
 * the container, whoever runs it (cvisor do, cvisor run, an engine).
 *
 * Without --allow-host-loopback, slirp4netns gets --disable-host-loopback (the
 * host's 127.0.0.1 is not reachable through 10.0.2.2) and, when the host's
 * resolv.conf names a loopback resolver, --disable-dns (its built-in DNS
 * would forward to that loopback address). Nothing is ever forwarded from
 * the host into the namespace: what the program listens on stays unreachable. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "oci/json.h"

#define STATE_MAX (1u << 20)
#define EXIT_FD 3
#define READY_FD 4

static const char *prog = "cvisor-slirp";

static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* The "pid" of the state JSON. */
static int state_pid(const char *data, size_t len, pid_t *pid)
{
	cleanup_error cv_error_t err = NULL;
	cleanup_jt jt_doc *doc = NULL;
	if (jt_parse(data, len, "state", &doc, &err) < 0)
		return die("%s", err->msg);
	const jt_node *n = jt_get(jt_root(doc), "pid");
	if (!n || n->type != JT_NUMBER)
		return die("state: pid: missing or not a number");
	char buf[32];
	if (n->len == 0 || n->len >= sizeof(buf))
		return die("state: pid: out of range");
	memcpy(buf, n->s, n->len);
	buf[n->len] = '\0';
	char *end = NULL;
	errno = 0;
	long v = strtol(buf, &end, 10);
	if (errno || *end || v <= 0 || v > 4194304)
		return die("state: pid: expected a process id, got %s", buf);
	*pid = (pid_t)v;
	return 0;
}

/* True when /etc/resolv.conf names a resolver on the host's loopback, which
 * slirp4netns's DNS forwarder would make reachable. */
static bool resolver_on_loopback(void)
{
	cleanup_fclose FILE *f = fopen("/etc/resolv.conf", "re");
	if (!f)
		return false;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		char addr[256];
		if (sscanf(line, " nameserver %255s", addr) == 1 &&
		    (strncmp(addr, "127.", 4) == 0 || strcmp(addr, "::1") == 0))
			return true;
	}
	return false;
}

/* slirp4netns's --enable-sandbox becomes root of the container's user
 * namespace (setuid/setgid 0): possible when we are root, or when that
 * namespace maps id 0 in both maps. */
static bool can_sandbox(pid_t pid)
{
	if (geteuid() == 0)
		return true;
	static const char *const files[] = { "uid_map", "gid_map" };
	for (int i = 0; i < 2; i++) {
		char path[64], line[128];
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, files[i]);
		cleanup_fclose FILE *f = fopen(path, "re");
		bool zero = false;
		while (f && !zero && fgets(line, sizeof(line), f)) {
			unsigned long inside, outside, count;
			if (sscanf(line, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 && count > 0)
				zero = true;
		}
		if (!zero)
			return false;
	}
	return true;
}

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Moves FD to TARGET without O_CLOEXEC (for slirp4netns to inherit). */
static int place_fd(int fd, int target)
{
	if (fd == target)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, target) < 0 ? -1 : 0;
}

/* In the monitor: runs slirp4netns and waits for the container's end. */
static void monitor(pid_t target, int target_pidfd, int exit_r, int exit_w, int ready_w, int log_fd, char **slirp_argv)
{
	/* its own session: a ^C or SIGHUP aimed at the caller's terminal is
	 * for the program, and the container's exit ends us anyway */
	(void)setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid_t s = fork();
	if (s < 0) {
		dprintf(log_fd, "fork: %s\n", strerror(errno));
		_exit(1);
	}
	if (s == 0) {
		/* fds 3 and 4 may be taken by the pipes themselves: move them
		 * above first */
		int e = fcntl(exit_r, F_DUPFD_CLOEXEC, 10), r = fcntl(ready_w, F_DUPFD_CLOEXEC, 10);
		if (e < 0 || r < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 ||
		    dup2(log_fd, 2) < 0 || place_fd(e, EXIT_FD) < 0 || place_fd(r, READY_FD) < 0) {
			dprintf(log_fd, "set up slirp4netns's fds: %s\n", strerror(errno));
			_exit(127);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execv(slirp_argv[0], slirp_argv);
		dprintf(2, "exec `%s`: %s\n", slirp_argv[0], strerror(errno));
		_exit(127);
	}
	close(exit_r);
	close(ready_w);
	close(log_fd);
	if (devnull >= 0) {
		(void)dup2(devnull, 0);
		(void)dup2(devnull, 1);
		(void)dup2(devnull, 2);
		close(devnull);
	}
	int spidfd = pidfd_open_(s);
	for (;;) {
		struct pollfd pf[2] = { { target_pidfd, POLLIN, 0 }, { spidfd, POLLIN, 0 } };
		int n = poll(pf, spidfd >= 0 ? 2 : 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pf[0].revents || (spidfd >= 0 && pf[1].revents))
			break;
	}
	/* the container is gone (or slirp4netns is): end slirp4netns */
	close(exit_w);
	int st;
	struct pollfd pf = { spidfd, POLLIN, 0 };
	if (spidfd >= 0 && poll(&pf, 1, 5000) == 0)
		(void)kill(s, SIGKILL); /* did not honour its exit fd */
	while (waitpid(s, &st, 0) < 0 && errno == EINTR)
		;
	(void)target;
	_exit(0);
}

int main(int argc, char **argv)
{
	bool allow_loopback = false;
	const char *slirp = "/usr/bin/slirp4netns";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--allow-host-loopback")) {
			allow_loopback = true;
		} else if (!strcmp(argv[i], "--slirp4netns") && i + 1 < argc) {
			slirp = argv[++i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: %s [--allow-host-loopback] [--slirp4netns PATH] < STATE.json\n"
			       "OCI createRuntime hook: user-mode networking for the container's network\n"
			       "namespace through slirp4netns, for as long as the container runs.\n",
			       prog);
			return 0;
		} else {
			return die("unknown argument `%s` (see --help)", argv[i]);
		}
	}
	if (slirp[0] != '/')
		return die("--slirp4netns: `%s`: an absolute path is needed", slirp);
	if (access(slirp, X_OK) < 0)
		return die("slirp4netns `%s`: %s (install the slirp4netns package)", slirp, strerror(errno));

	cleanup_free char *state = NULL;
	size_t len = 0;
	cleanup_error cv_error_t err = NULL;
	if (cv_read_fd(0, "the state JSON on stdin", STATE_MAX, &state, &len, &err) < 0)
		return die("%s", err->msg);
	pid_t pid = 0;
	if (state_pid(state, len, &pid) != 0)
		return 1;
	cleanup_close int target_pidfd = pidfd_open_(pid);
	if (target_pidfd < 0)
		return die("container process %d: %s", (int)pid, strerror(errno));

	char pidbuf[16];
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
	char exit_arg[32], ready_arg[32];
	snprintf(exit_arg, sizeof(exit_arg), "--exit-fd=%d", EXIT_FD);
	snprintf(ready_arg, sizeof(ready_arg), "--ready-fd=%d", READY_FD);
	char *sargv[16];
	size_t n = 0;
	sargv[n++] = (char *)slirp;
	sargv[n++] = (char *)"--configure";
	sargv[n++] = (char *)"--mtu=65520";
	sargv[n++] = exit_arg;
	sargv[n++] = ready_arg;
	/* slirp4netns parses the program's packets: a seccomp filter always,
	 * and when it can, its own mount namespace with only /etc and /run and
	 * no capabilities */
	if (can_sandbox(pid))
		sargv[n++] = (char *)"--enable-sandbox";
	sargv[n++] = (char *)"--enable-seccomp";
	if (!allow_loopback) {
		sargv[n++] = (char *)"--disable-host-loopback";
		if (resolver_on_loopback())
			sargv[n++] = (char *)"--disable-dns";
	}
	sargv[n++] = pidbuf;
	sargv[n++] = (char *)"tap0";
	sargv[n] = NULL;

	int exitp[2], readyp[2];
	if (pipe2(exitp, O_CLOEXEC) < 0 || pipe2(readyp, O_CLOEXEC) < 0)
		return die("pipe: %s", strerror(errno));
	/* slirp4netns's messages, for the error report; a file, not a pipe,
	 * so that it never gets SIGPIPE once this hook has exited */
	cleanup_close int log_fd = memfd_create("cvisor-slirp-log", MFD_CLOEXEC);
	if (log_fd < 0)
		return die("memfd_create: %s", strerror(errno));

	pid_t m = fork();
	if (m < 0)
		return die("fork: %s", strerror(errno));
	if (m == 0) {
		close(readyp[0]);
		monitor(pid, target_pidfd, exitp[0], exitp[1], readyp[1], log_fd, sargv);
	}
	close(exitp[0]);
	close(exitp[1]);
	close(readyp[1]);
	char b = 0;
	ssize_t r;
	do
		r = read(readyp[0], &b, 1);
	while (r < 0 && errno == EINTR);
	close(readyp[0]);
	if (r == 1 && b == '1')
		return 0;

	/* slirp4netns ended before it was ready: say why */
	char msg[2048];
	ssize_t ml = pread(log_fd, msg, sizeof(msg) - 1, 0);
	msg[ml > 0 ? ml : 0] = '\0';
	while (ml > 0 && (msg[ml - 1] == '\n' || msg[ml - 1] == ' '))
		msg[--ml] = '\0';
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ';';
	return die("slirp4netns for pid %d failed before the network was up%s%s", (int)pid, ml > 0 ? ": " : "",
		   ml > 0 ? msg : "");
}
