/* Unit tests for src/libcvisor/process/init-loop.h: the init's end. When its
 * program ends, an init that is PID 1 of its pid namespace kills and reaps
 * every other process of it before it writes the program's status, since
 * a supervisor stops waiting there (sandbox/supervisor.c); an init that is
 * not PID 1 kills nothing. The namespaces are a user and a pid namespace
 * of the test's own; where the kernel refuses them, skipped. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdnoreturn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process/init-loop.h"
#include "tap.h"

/* The test's pipes: the program's child holds HOLD's write end; PIDS
 * brings its pid; STATUS stands for the init's status eventfd; SEEN gets a
 * byte from the program's child should it see the status come; RELEASE,
 * closed by the test, lets a PID 1 that only waits end. [0] read, [1]
 * write. */
struct pipes {
	int hold[2], pids[2], status[2], seen[2], release[2];
};

/* The program: a child that holds HOLD and waits for the status to come
 * (it never reads it), which it then tells SEEN; its pid written to PIDS.
 * Then the program exits 7, leaving it to the init. */
static noreturn void program(const struct pipes *p)
{
	pid_t bg = fork();
	if (bg == 0) {
		close(p->status[1]);
		close(p->pids[1]);
		struct pollfd pf = { p->status[0], POLLIN, 0 };
		while (poll(&pf, 1, -1) < 0 && errno == EINTR)
			;
		(void)!write(p->seen[1], "x", 1);
		pause();
		_exit(0);
	}
	(void)!write(p->pids[1], &bg, sizeof(bg));
	_exit(bg > 0 ? 7 : 1);
}

/* The init under test: forks the program, keeps the status pipe only, and
 * runs the loop. */
static noreturn void init(const struct pipes *p)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	pid_t prog = fork();
	if (prog == 0)
		program(p);
	close(p->hold[1]);
	close(p->pids[1]);
	close(p->status[0]);
	close(p->seen[1]);
	close(p->release[0]);
	/* memory to free on its exit, which then takes a while: an init
	 * that wrote the status before ending the others is seen doing so */
	if (mmap(NULL, 128u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0) ==
	    MAP_FAILED)
		_exit(3);
	uint64_t mask = ~(uint64_t)0;
	cv_init_loop(prog, p->status[1], NULL, 0, &mask);
}

/* In a user and pid namespace of their own: the init as PID 1 (AS_PID1), or
 * as PID 2 beside a PID 1 that waits for it, then for RELEASE's end. Each
 * dies with its parent, the test at the top: nothing outlives a failed
 * test. Exits 1 when the namespaces cannot be made. */
static noreturn void in_namespace(bool as_pid1, const struct pipes *p)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
		_exit(1);
	pid_t one = fork();
	if (one < 0)
		_exit(2);
	if (one == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
			_exit(2);
		if (as_pid1)
			init(p);
		pid_t two = fork();
		if (two == 0)
			init(p);
		close(p->hold[1]);
		close(p->pids[1]);
		close(p->status[0]);
		close(p->status[1]);
		close(p->seen[1]);
		waitpid(two, NULL, 0);
		char b;
		while (read(p->release[0], &b, 1) > 0 || errno == EINTR)
			;
		/* our exit ends the namespace, and what the program left */
		_exit(0);
	}
	close(p->hold[1]);
	close(p->pids[1]);
	close(p->status[0]);
	close(p->status[1]);
	close(p->seen[1]);
	close(p->release[0]);
	int ws;
	while (waitpid(one, &ws, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

struct run {
	bool refused;
	int status;  /* what the init wrote */
	bool writer; /* HOLD still had a writer when the status came */
	bool seen;   /* the program's child saw the status come */
	pid_t bg;    /* the program's child, as its namespace knows it */
	pid_t top;   /* the process that made the namespaces */
	struct pipes p;
};

static struct run start(bool as_pid1)
{
	struct run r = { .status = -1, .bg = -1 };
	struct pipes *p = &r.p;
	if (pipe2(p->hold, O_CLOEXEC) < 0 || pipe2(p->pids, O_CLOEXEC) < 0 || pipe2(p->status, O_CLOEXEC) < 0 ||
	    pipe2(p->seen, O_CLOEXEC) < 0 || pipe2(p->release, O_CLOEXEC) < 0) {
		perror("pipe2");
		exit(1);
	}
	r.top = fork();
	if (r.top < 0) {
		perror("fork");
		exit(1);
	}
	if (r.top == 0) {
		close(p->hold[0]);
		close(p->pids[0]);
		close(p->seen[0]);
		close(p->release[1]);
		in_namespace(as_pid1, p);
	}
	close(p->hold[1]);
	close(p->pids[1]);
	close(p->status[1]);
	close(p->seen[1]);
	close(p->release[0]);
	uint64_t got = 0;
	if (read(p->status[0], &got, sizeof(got)) != sizeof(got) || !cv_init_status_of_word(got, &r.status))
		r.status = -1;
	/* at once: an init that wrote before the others were gone exits
	 * (and the kernel kills them) only after tearing down its namespaces */
	struct pollfd pf = { p->hold[0], POLLIN, 0 };
	r.writer = poll(&pf, 1, 0) == 0;
	if (read(p->pids[0], &r.bg, sizeof(r.bg)) != sizeof(r.bg))
		r.bg = -1;
	/* a byte, or the end of file once the child is gone */
	struct pollfd sf = { p->seen[0], POLLIN, 0 };
	char b;
	r.seen = poll(&sf, 1, 5000) == 1 && read(p->seen[0], &b, 1) == 1;
	if (r.status == -1) {
		int ws = 0;
		waitpid(r.top, &ws, 0);
		r.refused = WIFEXITED(ws) && WEXITSTATUS(ws) == 1;
		r.top = -1;
	}
	return r;
}

/* RELEASE closed, the namespace's processes end; HOLD's end tells when. */
static bool finish(struct run *r)
{
	close(r->p.release[1]);
	struct pollfd pf = { r->p.hold[0], POLLIN, 0 };
	bool hup = poll(&pf, 1, 5000) == 1 && (pf.revents & POLLHUP);
	if (r->top > 0)
		waitpid(r->top, NULL, 0);
	close(r->p.hold[0]);
	close(r->p.pids[0]);
	close(r->p.status[0]);
	close(r->p.seen[0]);
	return hup;
}

/* The way out of the cgroup (init.h: leave_fds) is taken before the
 * status: each fd gets "0" first. The first is a full pipe, so an init that
 * keeps that order blocks there, with no status yet, until it is read. No
 * namespace: the init, not PID 1 here, kills nothing. */
static void leave_first(void)
{
	int l1[2], l2[2], st[2];
	if (pipe2(l1, O_CLOEXEC) < 0 || pipe2(l2, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0) {
		perror("pipe2");
		exit(1);
	}
	/* full; blocking again for the init, which shares the open file */
	char fill[4096];
	memset(fill, 'x', sizeof(fill));
	fcntl(l1[1], F_SETFL, O_NONBLOCK);
	while (write(l1[1], fill, sizeof(fill)) > 0)
		;
	fcntl(l1[1], F_SETFL, 0);
	pid_t init = fork();
	if (init == 0) {
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		pid_t prog = fork();
		if (prog == 0)
			_exit(0);
		int leave[] = { l1[1], l2[1] };
		uint64_t mask = ~(uint64_t)0;
		cv_init_loop(prog, st[1], leave, 2, &mask);
	}
	close(l1[1]);
	close(l2[1]);
	close(st[1]);
	struct pollfd pf = { st[0], POLLIN, 0 };
	ok(poll(&pf, 1, 300) == 0, "leave: no status while the way out of the cgroup is not taken");
	/* drain the full pipe: then "0" comes, then the status */
	char buf[8192], last = 0;
	ssize_t n;
	while ((n = read(l1[0], buf, sizeof(buf))) > 0) {
		last = buf[n - 1];
		if (last == '0')
			break;
	}
	uint64_t got = 0;
	ok(read(st[0], &got, sizeof(got)) == sizeof(got) && got == cv_init_status_word(0), "leave: then the status");
	ok(last == '0', "leave: \"0\" written to the first fd");
	ok(read(l2[0], buf, sizeof(buf)) == 1 && buf[0] == '0', "leave: and to the second, before the status");
	waitpid(init, NULL, 0);
	close(l1[0]);
	close(l2[0]);
	close(st[0]);
}

int main(void)
{
	alarm(30); /* a loop that never writes fails the test, not CI */
	struct run r = start(true);
	if (r.refused) {
		finish(&r);
		tap_diag("no user and pid namespace here: only the way out of the cgroup is tested");
		leave_first();
		return tap_done();
	}
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 7, "PID 1: the program's status (exit 7) is written");
	ok(r.bg > 1, "PID 1: the program left a child behind");
	ok(!r.writer, "PID 1: when the status comes, the program's child is gone (no writer of its pipe left)");
	ok(!r.seen, "PID 1: the program's child never saw the status come");
	ok(finish(&r), "PID 1: nothing is left");

	r = start(false);
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 7, "PID 2: the status is written");
	ok(r.bg > 2, "PID 2: the program left a child behind");
	ok(r.writer, "PID 2: an init that is not PID 1 kills nothing (the program's child lives on)");
	ok(r.seen, "PID 2: the program's child saw the status come");
	ok(finish(&r), "PID 2: the child ends with its namespace's PID 1");

	leave_first();
	return tap_done();
}
