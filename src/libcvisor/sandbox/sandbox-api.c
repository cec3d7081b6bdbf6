/* The library's side of a sandbox (cvisor.h, "sandboxes"): the policy the
 * setters build, the keeper (keeper.h) started at the first use, and each
 * run's pipes: stdio, the kill pipe, the result pipe. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "files/archive.h"
#include "files/cache.h"
#include "cvisor.h"
#include "io.h"
#include "lifecycle/abi.h"
#include "lifecycle/helper.h"
#include "log.h"
#include "process/sync.h"
#include "sandbox/keeper.h"
#include "sandbox/policy.h"
#include "sandbox/sandbox.h"
#include "unix-socket.h"

#define DEFAULT_MAX_OUTPUT (64ull << 20)
#define FREE_WAIT_MS 10000

struct CvisorSandbox {
	pthread_mutex_t lock; /* everything below */
	struct cvisor_context ctx;
	char *state_root, *helper_path; /* ctx's strings */
	cv_policy *policy;
	cv_error_t pending; /* a setter's refusal, for the next run */
	bool debug;
	int pidfd, sock;         /* the keeper; -1 before the first use */
	cv_error_t dead;         /* why the keeper cannot be used */
	struct run *runs;        /* captured runs in flight, for cancel */
	CvisorSession *sessions; /* not yet freed (sessions_lock) */
};

/* The links between sandboxes and their sessions: either may be freed
 * first. Taken before a session's own lock, never after. */
static pthread_mutex_t sessions_lock = PTHREAD_MUTEX_INITIALIZER;

struct CvisorOutput {
	int exit_code;
	uint8_t *out, *err;
	size_t out_len, err_len;
	char *report;
};

/* A run in flight: what the library holds of it. */
struct run {
	int out, err; /* read ends (-1: none) */
	int in;       /* write end of stdin, or a pty master; -1: none */
	int kill;     /* write end of the kill pipe */
	int result;   /* read end of the result pipe */
	/* the result pipe's bytes so far */
	char *res;
	size_t res_len;
	bool res_eof;
	struct run *next, *prev; /* sb->runs, while in flight */
};

#define RUN_INIT                                                                                                       \
	{                                                                                                              \
		.out = -1, .err = -1, .in = -1, .kill = -1, .result = -1                                               \
	}

/* What a run is asked to be. */
struct run_spec {
	const char *const *argv;
	const char *const *env; /* NAME=value for this run only, or NULL */
	const char *cwd;        /* NULL: the workspace */
	uint64_t timeout_ms;    /* 0: the policy's */
	uint64_t max_output;    /* 0: the sandbox's */
	bool pty;
	bool uncapped; /* the agent's: output never cut */
	bool tracked;  /* linked into sb->runs, for cancel */
};

struct CvisorSession {
	pthread_mutex_t lock;
	/* its sandbox, until either is freed (sessions_lock) */
	CvisorSandbox *sb;
	CvisorSession *next, *prev;
	struct run r;
	bool pty, debug;
	/* output read by wait() or try_wait(), not yet by the caller */
	uint8_t *out, *err;
	size_t out_len, err_len;
	bool done;
	int exit_code;
};

/* ---- errors ---- */

static __thread char *last_error;
static __thread int last_errno;

const char *cvisor_last_error(void)
{
	return last_error ? last_error : "";
}

int cvisor_last_errno(void)
{
	return last_errno;
}

static void set_last(int errnum, const char *msg)
{
	last_errno = errnum;
	free(last_error);
	last_error = msg ? strdup(msg) : NULL;
}

/* Records E as this thread's last error; returns its negative errno
 * (EINVAL for an error without one: a value the policy refuses). */
static int fail(cv_error_t *e)
{
	int r = *e && (*e)->errnum > 0 ? -(*e)->errnum : -EINVAL;
	set_last(-r, *e && (*e)->msg ? (*e)->msg : "unknown error");
	cv_error_release(e);
	return r;
}

__attribute__((format(printf, 2, 3))) static int failf(int errnum, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	set_last(errnum, msg ? msg : "out of memory");
	free(msg);
	return -errnum;
}

static void sb_log(bool debug, int level, const char *msg)
{
	if (debug)
		dprintf(2, "cvisor sandbox: %s\n", msg);
	else
		cv_log(level, "%s", msg);
}

/* ---- the sandbox and its policy ---- */

CvisorSandbox *cvisor_sandbox_new(void)
{
	CvisorSandbox *sb = calloc(1, sizeof(*sb));
	cleanup_error cv_error_t e = NULL;
	if (!sb)
		return NULL;
	sb->pidfd = sb->sock = -1;
	sb->ctx = (struct cvisor_context){ .struct_size = sizeof(sb->ctx), .rootless = -1 };
	pthread_mutex_init(&sb->lock, NULL);
	if (cv_policy_new(&sb->policy, &e) < 0 || cv_policy_set(sb->policy, "network", "outbound", &e) < 0 ||
	    cv_policy_set(sb->policy, "deny_listen", "true", &e) < 0) {
		fail(&e);
		cv_policy_free(sb->policy);
		free(sb);
		return NULL;
	}
	return sb;
}

int cvisor_sandbox_set_context(CvisorSandbox *sb, const struct cvisor_context *ctx)
{
	cleanup_error cv_error_t e = NULL;
	struct cvisor_context c;
	if (!sb)
		return failf(EINVAL, "sandbox: a NULL sandbox");
	if (cv_abi_context(ctx, &c, &e) < 0)
		return fail(&e);
	char *root = c.state_root ? strdup(c.state_root) : NULL, *helper = c.helper_path ? strdup(c.helper_path) : NULL;
	if ((c.state_root && !root) || (c.helper_path && !helper)) {
		free(root);
		free(helper);
		return failf(ENOMEM, "sandbox: out of memory");
	}
	pthread_mutex_lock(&sb->lock);
	int r = 0;
	if (sb->sock >= 0) {
		free(root);
		free(helper);
		r = failf(EBUSY, "sandbox: set_context: its keeper runs already (set the context first)");
	} else {
		free(sb->state_root);
		free(sb->helper_path);
		sb->ctx = c;
		sb->ctx.state_root = sb->state_root = root;
		sb->ctx.helper_path = sb->helper_path = helper;
	}
	pthread_mutex_unlock(&sb->lock);
	return r;
}

void cvisor_sandbox_set_log_level(CvisorSandbox *sb, int level)
{
	if (!sb)
		return;
	pthread_mutex_lock(&sb->lock);
	sb->debug = level >= 1;
	pthread_mutex_unlock(&sb->lock);
}

/* One policy key under the lock; a refusal waits for the next run. */
static int set_key(CvisorSandbox *sb, const char *key, const char *value, bool report_now)
{
	cleanup_error cv_error_t e = NULL;
	if (!sb || !key || !value)
		return failf(EINVAL, "sandbox: a NULL argument");
	bool list;
	if (!cv_policy_has_key(key, &list))
		return failf(EINVAL, "sandbox: `%s`: not a policy key (see cvisor-do(1))", key);
	if (strcmp(key, "rootfs") == 0 || strcmp(key, "user") == 0)
		return failf(EINVAL, "sandbox: %s: a library sandbox runs on the host's root as the caller", key);
	pthread_mutex_lock(&sb->lock);
	int r = cv_policy_set(sb->policy, key, value, &e);
	if (r < 0 && !report_now && !sb->pending)
		cv_error_move(&sb->pending, &e);
	pthread_mutex_unlock(&sb->lock);
	return r < 0 && report_now ? fail(&e) : r;
}

int cvisor_sandbox_set_option(CvisorSandbox *sb, const char *key, const char *value)
{
	return set_key(sb, key, value, true);
}

int cvisor_sandbox_set_policy_json(CvisorSandbox *sb, const char *json)
{
	cleanup_error cv_error_t e = NULL;
	cleanup_policy cv_policy *p = NULL;
	if (!sb || !json)
		return failf(EINVAL, "sandbox: a NULL argument");
	if (cv_policy_parse(json, strlen(json), "policy", &p, &e) < 0)
		return fail(&e);
	if (p->rootfs || p->user_set)
		return failf(EINVAL, "sandbox: policy: %s: a library sandbox runs on the host's root as the caller",
			     p->rootfs ? "rootfs" : "user");
	pthread_mutex_lock(&sb->lock);
	cv_policy *old = sb->policy;
	sb->policy = steal_pointer(&p);
	p = old;
	pthread_mutex_unlock(&sb->lock);
	return 0;
}

void cvisor_sandbox_set_allow_network(CvisorSandbox *sb, int allow)
{
	(void)set_key(sb, "network", allow ? "outbound" : "none", false);
}

void cvisor_sandbox_set_allow_listen(CvisorSandbox *sb, int allow)
{
	(void)set_key(sb, "deny_listen", allow ? "false" : "true", false);
}

void cvisor_sandbox_set_env(CvisorSandbox *sb, const char *key, const char *value)
{
	if (!sb || !key || !value)
		return;
	if (!*key || strchr(key, '=')) {
		pthread_mutex_lock(&sb->lock);
		if (!sb->pending)
			cv_error(&sb->pending, EINVAL, "sandbox: set_env: `%s`: not a variable name", key);
		pthread_mutex_unlock(&sb->lock);
		return;
	}
	cleanup_free char *kv = NULL;
	if (asprintf(&kv, "%s=%s", key, value) < 0)
		return;
	/* a later value replaces the earlier one */
	size_t klen = strlen(key);
	pthread_mutex_lock(&sb->lock);
	oci_strv *env = &sb->policy->env;
	for (size_t i = 0; i < env->len;) {
		if (strncmp(env->v[i], key, klen) == 0 && env->v[i][klen] == '=') {
			free(env->v[i]);
			memmove(&env->v[i], &env->v[i + 1], (env->len - i) * sizeof(char *));
			env->len--;
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&sb->lock);
	(void)set_key(sb, "env", kv, false);
}

void cvisor_sandbox_set_limits(CvisorSandbox *sb, uint64_t memory_max_bytes, uint64_t pids_max, uint32_t cpu_percent)
{
	if (!sb)
		return;
	char v[32];
	pthread_mutex_lock(&sb->lock);
	sb->policy->memory.set = sb->policy->processes.set = sb->policy->cpus_milli.set = false;
	pthread_mutex_unlock(&sb->lock);
	if (memory_max_bytes) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)memory_max_bytes);
		(void)set_key(sb, "memory", v, false);
	}
	if (pids_max) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)pids_max);
		(void)set_key(sb, "processes", v, false);
	}
	if (cpu_percent) {
		snprintf(v, sizeof(v), "%u.%02u", cpu_percent / 100, cpu_percent % 100);
		(void)set_key(sb, "cpus", v, false);
	}
}

/* ---- the keeper ---- */

/* The keeper's messages waiting on its socket: log lines, its error. With
 * WAIT, blocks until it is ready (or has failed). */
static int keeper_messages(CvisorSandbox *sb, bool wait, cv_error_t *err)
{
	for (;;) {
		struct pollfd p = { sb->sock, POLLIN, 0 };
		int n = poll(&p, 1, wait ? -1 : 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? cv_error_errno(err, "sandbox keeper: poll") : 0;
		struct cv_sync_msg m = { .fd = -1 };
		cleanup_error cv_error_t e = NULL;
		if (cv_sync_recv(sb->sock, &m, &e) < 0) {
			if (!sb->dead)
				cv_error(&sb->dead, EPIPE, "sandbox: its keeper has ended");
			return cv_error_plain(err, sb->dead->errnum, "%s", sb->dead->msg);
		}
		int r = 0;
		switch (m.type) {
		case CV_SYNC_READY:
			r = cv_helper_protocol_check(&sb->ctx, m.errnum, err);
			break;
		case CV_SYNC_LOG:
			sb_log(sb->debug, m.errnum, m.payload ? m.payload : "");
			break;
		case CV_SYNC_ERROR:
			cv_error_release(&sb->dead);
			cv_error_plain(&sb->dead, m.errnum > 0 ? m.errnum : EIO, "%s",
				       m.payload ? m.payload : "the sandbox keeper failed");
			break;
		case CV_SYNC_EXIT:
			if (!sb->dead)
				cv_error(&sb->dead, EIO, "sandbox: its keeper exited with status %d", m.errnum);
			break;
		case CV_SYNC_KEEPER_READY:
			wait = false;
			break;
		}
		cv_sync_msg_release(&m);
		if (r < 0)
			return r;
		if (sb->dead) {
			/* its process stays ours to reap through the pidfd */
			return cv_error_plain(err, sb->dead->errnum, "%s", sb->dead->msg);
		}
	}
}

/* Under sb->lock. */
static int keeper_up(CvisorSandbox *sb, cv_error_t *err)
{
	if (sb->dead)
		return cv_error_plain(err, sb->dead->errnum, "%s", sb->dead->msg);
	if (sb->sock >= 0)
		return keeper_messages(sb, false, err);
	if (cv_helper_start(&sb->ctx, "sandbox-keeper", sb->debug, &sb->pidfd, &sb->sock, err) < 0)
		return -1;
	return keeper_messages(sb, true, err);
}

static void keeper_down(CvisorSandbox *sb)
{
	if (sb->sock < 0)
		return;
	cv_closep(&sb->sock);
	/* it ends once its runs have: their kill pipes are closed by now */
	struct pollfd p = { sb->pidfd, POLLIN, 0 };
	int n;
	do
		n = poll(&p, 1, FREE_WAIT_MS);
	while (n < 0 && errno == EINTR);
	if (n == 0) {
		cv_warn("sandbox: its keeper did not end in %d s: killed", FREE_WAIT_MS / 1000);
		(void)syscall(SYS_pidfd_send_signal, sb->pidfd, SIGKILL, NULL, 0);
	}
	cv_closep(&sb->pidfd);
}

static void session_kill_locked(CvisorSession *s);

void cvisor_sandbox_free(CvisorSandbox *sb)
{
	if (!sb)
		return;
	/* what still runs ends; the sessions stay the caller's to free */
	pthread_mutex_lock(&sessions_lock);
	for (CvisorSession *s = sb->sessions, *next; s; s = next) {
		next = s->next;
		pthread_mutex_lock(&s->lock);
		session_kill_locked(s);
		pthread_mutex_unlock(&s->lock);
		s->sb = NULL;
		s->next = s->prev = NULL;
	}
	sb->sessions = NULL;
	pthread_mutex_unlock(&sessions_lock);
	keeper_down(sb);
	cv_policy_free(sb->policy);
	free(sb->state_root);
	free(sb->helper_path);
	cv_error_release(&sb->pending);
	cv_error_release(&sb->dead);
	pthread_mutex_destroy(&sb->lock);
	free(sb);
}

/* ---- runs ---- */

static void run_release(struct run *r)
{
	cv_closep(&r->out);
	cv_closep(&r->err);
	cv_closep(&r->in);
	cv_closep(&r->kill);
	cv_closep(&r->result);
	free(r->res);
	r->res = NULL;
}

static int make_pipe(int p[2], cv_error_t *err)
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return cv_error_errno(err, "sandbox run: pipe");
	return 0;
}

/* The policy as this run sends it: the sandbox's, with the library's
 * defaults where it says nothing and the run's own settings over it (taken
 * out again after: they are not the sandbox's). Under sb->lock. */
static int run_policy(CvisorSandbox *sb, const struct run_spec *rs, char **json, size_t *len, cv_error_t *err)
{
	cv_policy *p = sb->policy;
	bool home = false;
	for (size_t i = 0; i < p->env.len; i++)
		home |= strncmp(p->env.v[i], "HOME=", 5) == 0;
	oci_opt_u64 cap = p->max_output_bytes;
	if (rs->uncapped || rs->max_output || !cap.set) {
		/* the agent's output is a file or an archive, never cut short */
		p->max_output_bytes.set = true;
		p->max_output_bytes.v = rs->uncapped ? INT64_MAX : rs->max_output ? rs->max_output : DEFAULT_MAX_OUTPUT;
		if (p->max_output_bytes.v > INT64_MAX)
			p->max_output_bytes.v = INT64_MAX;
	}
	size_t env_len = p->env.len;
	int r = 0;
	if (!home)
		r = cv_policy_set(p, "env", "HOME=" CV_SANDBOX_PERSISTENT_WORKSPACE, err);
	/* later entries win (cvisor-do(1)): the run's over the sandbox's */
	for (const char *const *e = rs->env; r == 0 && e && *e; e++) {
		if (!strchr(*e, '=') || **e == '=')
			r = cv_error_plain(err, EINVAL, "sandbox run: env `%s`: not NAME=value", *e);
		else
			r = cv_policy_set(p, "env", *e, err);
	}
	if (r == 0)
		r = cv_policy_emit(p, false, json, len, err);
	while (p->env.len > env_len) {
		free(p->env.v[--p->env.len]);
		p->env.v[p->env.len] = NULL;
	}
	p->max_output_bytes = cap;
	return r;
}

/* Under sb->lock. */
static void run_link(CvisorSandbox *sb, struct run *r)
{
	r->prev = NULL;
	r->next = sb->runs;
	if (sb->runs)
		sb->runs->prev = r;
	sb->runs = r;
}

static void run_unlink(CvisorSandbox *sb, struct run *r)
{
	pthread_mutex_lock(&sb->lock);
	if (r->prev)
		r->prev->next = r->next;
	else if (sb->runs == r)
		sb->runs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	r->next = r->prev = NULL;
	pthread_mutex_unlock(&sb->lock);
}

/* Sends one run to the keeper. FDS: the program's stdin, stdout, stderr
 * (the caller keeps and closes them). Fills r->kill and r->result. */
static int run_send(CvisorSandbox *sb, const struct run_spec *rs, const int fds[3], struct run *flight, cv_error_t *err)
{
	const char *const *argv = rs->argv;
	const char *cwd = rs->cwd;
	int kill_p[2] = { -1, -1 }, res_p[2] = { -1, -1 };
	cleanup_free char *json = NULL, *buf = NULL;
	size_t jlen = 0, len, nargs = 0;
	int r = -1;

	pthread_mutex_lock(&sb->lock);
	if (sb->pending) {
		r = cv_error_plain(err, sb->pending->errnum, "%s", sb->pending->msg);
		cv_error_release(&sb->pending);
		goto out;
	}
	if (keeper_up(sb, err) < 0 || run_policy(sb, rs, &json, &jlen, err) < 0)
		goto out;
	len = sizeof(struct cv_keeper_req) + jlen + 1 + strlen(cwd ? cwd : "") + 1;
	for (; argv[nargs]; nargs++)
		len += strlen(argv[nargs]) + 1;
	if (len > CV_KEEPER_REQ_MAX) {
		r = cv_error(err, E2BIG, "sandbox run: the command and policy are too large");
		goto out;
	}
	if (!(buf = malloc(len))) {
		r = cv_error(err, ENOMEM, "sandbox run");
		goto out;
	}
	struct cv_keeper_req h = { .type = CV_KEEPER_REQ_RUN,
				   .flags = (rs->pty ? CV_KEEPER_FLAG_PTY : 0) |
					    (rs->uncapped ? CV_KEEPER_FLAG_AGENT : 0),
				   .timeout_ms = rs->timeout_ms,
				   .nargs = (uint32_t)nargs };
	char *w = buf;
	memcpy(w, &h, sizeof(h));
	w += sizeof(h);
	w = stpcpy(w, json) + 1;
	w = stpcpy(w, cwd ? cwd : "") + 1;
	for (size_t i = 0; i < nargs; i++)
		w = stpcpy(w, argv[i]) + 1;
	if (make_pipe(kill_p, err) < 0 || make_pipe(res_p, err) < 0)
		goto out;
	int send_fds[CV_KEEPER_NFDS] = { fds[0], fds[1], fds[2], kill_p[0], res_p[1] };
	struct iovec iov = { buf, len };
	int sent = cv_send_fds(sb->sock, &iov, 1, send_fds, CV_KEEPER_NFDS);
	if (sent < 0) {
		r = cv_error(err, -sent, "sandbox run: send to the keeper");
		goto out;
	}
	flight->kill = steal_fd(&kill_p[1]);
	flight->result = steal_fd(&res_p[0]);
	if (rs->tracked)
		run_link(sb, flight);
	r = 0;
out:
	pthread_mutex_unlock(&sb->lock);
	for (int i = 0; i < 2; i++) {
		cv_closep(&kill_p[i]);
		cv_closep(&res_p[i]);
	}
	return r;
}

/* Reads what FD has now (all of it, without blocking when NONBLOCK) onto
 * *buf up to CAP bytes (the rest is read and dropped). 1 at EOF. */
static int drain(int fd, uint8_t **buf, size_t *len, size_t cap)
{
	char tmp[65536];
	for (;;) {
		ssize_t n = read(fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : 1; /* EIO: a pty whose other side closed */
		if (n == 0)
			return 1;
		size_t take = *len >= cap ? 0 : (size_t)n < cap - *len ? (size_t)n : cap - *len;
		if (take) {
			uint8_t *nb = realloc(*buf, *len + take);
			if (!nb)
				return 1;
			memcpy(nb + *len, tmp, take);
			*buf = nb;
			*len += take;
		}
	}
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* The result's records: log lines to the log, then the report or the
 * error. 0 with *code and *report, or the run's error. */
static int run_outcome(bool debug, struct run *r, int *code, char **report, cv_error_t *err)
{
	size_t off = 0;
	bool got = false;
	while (off + sizeof(struct cv_keeper_rec) <= r->res_len) {
		struct cv_keeper_rec h;
		memcpy(&h, r->res + off, sizeof(h));
		off += sizeof(h);
		if (h.len > r->res_len - off)
			break;
		cleanup_free char *p = strndup(r->res + off, h.len);
		off += h.len;
		if (!p)
			return cv_error(err, ENOMEM, "sandbox run");
		if (h.type == CV_KEEPER_REC_LOG) {
			sb_log(debug, h.value, p);
		} else if (h.type == CV_KEEPER_REC_ERROR) {
			return cv_error_plain(err, h.value > 0 ? h.value : EIO, "%s", p);
		} else if (h.type == CV_KEEPER_REC_REPORT) {
			*code = h.value;
			*report = steal_pointer(&p);
			got = true;
		}
	}
	if (!got)
		return cv_error(err, EIO, "sandbox run: it ended without a result (its process was killed?)");
	return 0;
}

/* Feeds IN (may be NULL), collects stdout and stderr until the run has
 * ended; the kill pipe stays open until then. */
static int run_collect(struct run *r, const uint8_t *in, size_t in_len, uint8_t **out, size_t *out_len,
		       uint8_t **err_buf, size_t *err_len, size_t cap, cv_error_t *err)
{
	size_t in_off = 0;
	bool out_eof = r->out < 0, err_eof = r->err < 0;
	if ((r->out >= 0 && set_nonblock(r->out) < 0) || (r->err >= 0 && set_nonblock(r->err) < 0) ||
	    set_nonblock(r->result) < 0 || (r->in >= 0 && set_nonblock(r->in) < 0))
		return cv_error_errno(err, "sandbox run: O_NONBLOCK");
	if (r->in >= 0 && !in_len)
		cv_closep(&r->in);
	while (!out_eof || !err_eof || !r->res_eof) {
		struct pollfd p[4] = { { out_eof ? -1 : r->out, POLLIN, 0 },
				       { err_eof ? -1 : r->err, POLLIN, 0 },
				       { r->res_eof ? -1 : r->result, POLLIN, 0 },
				       { r->in, POLLOUT, 0 } };
		if (poll(p, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			return cv_error_errno(err, "sandbox run: poll");
		}
		if (p[0].revents)
			out_eof = drain(r->out, out, out_len, cap) == 1;
		if (p[1].revents)
			err_eof = drain(r->err, err_buf, err_len, cap) == 1;
		if (p[2].revents)
			r->res_eof = drain(r->result, (uint8_t **)&r->res, &r->res_len, 2 * CV_KEEPER_REC_MAX) == 1;
		if (p[3].revents) {
			ssize_t n = write(r->in, in + in_off, in_len - in_off);
			if (n > 0)
				in_off += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || in_off == in_len)
				cv_closep(&r->in);
		}
	}
	return 0;
}

/* stdin for a run: /dev/null, or a pipe the library writes. */
static int open_null(int flags, cv_error_t *err)
{
	int fd = open("/dev/null", flags | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "sandbox run: /dev/null");
	return fd;
}

static CvisorOutput *run_capture(CvisorSandbox *sb, const struct run_spec *rs, int stdin_fd, const uint8_t *input,
				 size_t input_len, int stdout_fd, cv_error_t *err)
{
	struct run_spec spec = *rs;
	spec.tracked = true;
	struct run r = RUN_INIT;
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, inp[2] = { -1, -1 };
	CvisorOutput *o = calloc(1, sizeof(*o));
	if (!o) {
		cv_error(err, ENOMEM, "sandbox run");
		return NULL;
	}
	int fds[3] = { stdin_fd, stdout_fd, -1 };
	if (stdin_fd < 0 && input) {
		if (make_pipe(inp, err) < 0)
			goto fail;
		fds[0] = inp[0];
		r.in = steal_fd(&inp[1]);
	} else if (stdin_fd < 0 && (fds[0] = inp[0] = open_null(O_RDONLY, err)) < 0) {
		goto fail;
	}
	if (stdout_fd < 0) {
		if (make_pipe(outp, err) < 0)
			goto fail;
		fds[1] = outp[1];
		r.out = steal_fd(&outp[0]);
	}
	if (make_pipe(errp, err) < 0)
		goto fail;
	fds[2] = errp[1];
	r.err = steal_fd(&errp[0]);
	if (run_send(sb, &spec, fds, &r, err) < 0)
		goto fail;
	/* the run holds its own copies now: EOF comes when it ends */
	for (int i = 0; i < 2; i++) {
		cv_closep(&outp[i]);
		cv_closep(&errp[i]);
		cv_closep(&inp[i]);
	}
	if (run_collect(&r, input, input_len, &o->out, &o->out_len, &o->err, &o->err_len, SIZE_MAX, err) < 0 ||
	    run_outcome(sb->debug, &r, &o->exit_code, &o->report, err) < 0)
		goto fail;
	run_unlink(sb, &r);
	run_release(&r);
	return o;
fail:
	run_unlink(sb, &r); /* a no-op when run_send failed */
	run_release(&r);
	for (int i = 0; i < 2; i++) {
		cv_closep(&outp[i]);
		cv_closep(&errp[i]);
		cv_closep(&inp[i]);
	}
	cvisor_output_free(o);
	return NULL;
}

CvisorOutput *cvisor_run_with(CvisorSandbox *sb, const struct cvisor_run_options *opts)
{
	cleanup_error cv_error_t e = NULL;
	struct cvisor_run_options o;
	if (cv_abi_run_options(opts, &o, &e) < 0) {
		fail(&e);
		return NULL;
	}
	if (!sb || !o.argv || !o.argv[0]) {
		failf(EINVAL, "sandbox run: no program given");
		return NULL;
	}
	struct run_spec rs = { .argv = o.argv,
			       .env = o.env,
			       .cwd = o.cwd,
			       .timeout_ms = o.timeout_ms,
			       .max_output = o.max_output_bytes };
	CvisorOutput *out = run_capture(sb, &rs, -1, o.input, o.input_len, -1, &e);
	if (!out)
		fail(&e);
	return out;
}

CvisorOutput *cvisor_run_argv(CvisorSandbox *sb, const char *const *argv, const char *cwd, const uint8_t *input,
			      size_t input_len, uint64_t timeout_ms)
{
	struct cvisor_run_options o = { .struct_size = sizeof(o),
					.argv = argv,
					.cwd = cwd,
					.input = input,
					.input_len = input_len,
					.timeout_ms = timeout_ms };
	return cvisor_run_with(sb, &o);
}

int cvisor_sandbox_cancel(CvisorSandbox *sb)
{
	if (!sb)
		return failf(EINVAL, "sandbox: a NULL sandbox");
	pthread_mutex_lock(&sb->lock);
	for (struct run *r = sb->runs; r; r = r->next)
		(void)write(r->kill, "k", 1);
	pthread_mutex_unlock(&sb->lock);
	pthread_mutex_lock(&sessions_lock);
	for (CvisorSession *s = sb->sessions; s; s = s->next) {
		pthread_mutex_lock(&s->lock);
		session_kill_locked(s);
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&sessions_lock);
	return 0;
}

CvisorOutput *cvisor_run_timeout(CvisorSandbox *sb, const char *command, uint64_t timeout_ms)
{
	if (!command) {
		failf(EINVAL, "sandbox run: no command given");
		return NULL;
	}
	const char *argv[] = { "/bin/sh", "-c", command, NULL };
	return cvisor_run_argv(sb, argv, NULL, NULL, 0, timeout_ms);
}

CvisorOutput *cvisor_run(CvisorSandbox *sb, const char *command)
{
	return cvisor_run_timeout(sb, command, 0);
}

void cvisor_output_free(CvisorOutput *o)
{
	if (!o)
		return;
	free(o->out);
	free(o->err);
	free(o->report);
	free(o);
}

int cvisor_output_exit_code(CvisorOutput *o)
{
	return o ? o->exit_code : -1;
}

static uint8_t *copy_bytes(const uint8_t *b, size_t n, size_t *len)
{
	uint8_t *c = n ? malloc(n) : NULL;
	if (c)
		memcpy(c, b, n);
	if (len)
		*len = c ? n : 0;
	return c;
}

uint8_t *cvisor_output_stdout(CvisorOutput *o, size_t *len)
{
	return copy_bytes(o ? o->out : NULL, o ? o->out_len : 0, len);
}

uint8_t *cvisor_output_stderr(CvisorOutput *o, size_t *len)
{
	return copy_bytes(o ? o->err : NULL, o ? o->err_len : 0, len);
}

const char *cvisor_output_report_json(CvisorOutput *o)
{
	return o && o->report ? o->report : "";
}

void cvisor_bytes_free(uint8_t *ptr, size_t len)
{
	(void)len;
	free(ptr);
}

/* ---- files ---- */

/* The agent program (keeper.h): $CVISOR_AGENT (not in set-uid programs),
 * else beside the helper (a build tree), else the installed one. It runs
 * inside the sandbox, by its path on the host's root. */
static int agent_path(CvisorSandbox *sb, char *buf, size_t size, cv_error_t *err)
{
	const char *env = secure_getenv("CVISOR_AGENT"), *helper = cv_helper_path(&sb->ctx);
	const char *slash = strrchr(helper, '/');
	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return 0;
	}
	if (slash && snprintf(buf, size, "%.*s/" CV_AGENT_NAME, (int)(slash - helper), helper) < (int)size &&
	    access(buf, X_OK) == 0)
		return 0;
	if (snprintf(buf, size, "%s/" CV_AGENT_NAME, CVISOR_LIBEXECDIR) >= (int)size)
		return cv_error(err, ENAMETOOLONG, "sandbox: the agent's path");
	return 0;
}

/* Runs the agent: `cvisor-agent OP PATH [ARG]`, with stdin
 * IN_FD (or INPUT) and stdout OUT_FD (-1: captured into *DATA); a failure
 * of the agent becomes its errno and message. */
static int agent(CvisorSandbox *sb, const char *op, const char *path, const char *arg, int in_fd, const uint8_t *input,
		 size_t input_len, int out_fd, uint8_t **data, size_t *len, cv_error_t *err)
{
	if (!sb || !path)
		return cv_error(err, EINVAL, "sandbox %s: a NULL argument", op);
	if (path[0] != '/')
		return cv_error(err, EINVAL, "sandbox %s `%s`: not an absolute path", op, path);
	char prog[PATH_MAX];
	if (agent_path(sb, prog, sizeof(prog), err) < 0)
		return -1;
	const char *argv[] = { prog, op, path, arg, NULL };
	struct run_spec rs = { .argv = argv, .cwd = "/", .uncapped = true };
	CvisorOutput *o = run_capture(sb, &rs, in_fd, input, input_len, out_fd, err);
	if (!o)
		return -1;
	int code = o->exit_code, r = 0;
	if (code != 0) {
		size_t n = o->err_len;
		while (n && (o->err[n - 1] == '\n'))
			n--;
		if (n)
			r = cv_error_plain(err, code < 126 ? code : EIO, "sandbox %.*s", (int)n, (char *)o->err);
		else
			r = cv_error(err, code < 126 ? code : EIO, "sandbox %s `%s` (agent exit status %d)", op, path,
				     code);
	} else if (data) {
		*data = steal_pointer(&o->out);
		*len = o->out_len;
	}
	cvisor_output_free(o);
	return r;
}

/* A new anonymous file for an archive. */
static int archive_file(cv_error_t *err)
{
	int fd = memfd_create("cvisor-archive", MFD_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "sandbox: memfd for an archive");
	return fd;
}

int cvisor_sandbox_write_file(CvisorSandbox *sb, const char *path, const uint8_t *data, size_t len)
{
	cleanup_error cv_error_t e = NULL;
	if (agent(sb, "write", path, NULL, -1, data ? data : (const uint8_t *)"", len, -1, NULL, NULL, &e) < 0)
		return fail(&e);
	return 0;
}

uint8_t *cvisor_sandbox_read_file(CvisorSandbox *sb, const char *path, size_t *len)
{
	cleanup_error cv_error_t e = NULL;
	uint8_t *data = NULL;
	size_t n = 0;
	int r = agent(sb, "read", path, NULL, -1, NULL, 0, -1, &data, &n, &e);
	if (r < 0) {
		int en = -fail(&e);
		if (len)
			*len = (size_t)(en > 0 ? en : EIO);
		return NULL;
	}
	if (len)
		*len = n;
	if (!n) {
		free(data);
		return NULL;
	}
	return data;
}

int cvisor_sandbox_copy_into(CvisorSandbox *sb, const char *host_path, const char *guest_path)
{
	cleanup_error cv_error_t e = NULL;
	if (!host_path)
		return failf(EINVAL, "sandbox copy_into: a NULL argument");
	cleanup_close int fd = open(host_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return failf(errno, "sandbox copy_into: open `%s`: %s", host_path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		/* a tar of the tree (its ignore rules applied), unpacked inside */
		cleanup_close int tar = archive_file(&e);
		if (tar < 0 || cv_keeper_archive_tree(fd, tar, CV_ARCHIVE_NONE, true, &e) < 0 ||
		    lseek(tar, 0, SEEK_SET) < 0) {
			if (!e)
				cv_error_errno(&e, "sandbox copy_into `%s`", host_path);
			cv_error_prefix(&e, "sandbox copy_into `%s`", host_path);
			return fail(&e);
		}
		if (agent(sb, "extract", guest_path, NULL, tar, NULL, 0, -1, NULL, NULL, &e) < 0)
			return fail(&e);
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return failf(EINVAL, "sandbox copy_into `%s`: not a regular file or a directory", host_path);
	if (fcntl(fd, F_SETFL, 0) < 0)
		return failf(errno, "sandbox copy_into `%s`: %s", host_path, strerror(errno));
	/* the file itself is the agent's stdin: no copy through here */
	if (agent(sb, "write", guest_path, NULL, fd, NULL, 0, -1, NULL, NULL, &e) < 0)
		return fail(&e);
	return 0;
}

/* copy_out of a directory: a tar made inside, unpacked here beneath
 * HOST_PATH (made when missing) by the archive module's safe extraction. */
static int copy_out_tree(CvisorSandbox *sb, const char *guest_path, const char *host_path, cv_error_t *err)
{
	cleanup_close int tar = archive_file(err);
	if (tar < 0 || agent(sb, "archive-all", guest_path, "none", -1, NULL, 0, tar, NULL, NULL, err) < 0)
		return -1;
	if (lseek(tar, 0, SEEK_SET) < 0)
		return cv_error_errno(err, "sandbox copy_out");
	if (mkdir(host_path, 0755) < 0 && errno != EEXIST)
		return cv_error_errno(err, "sandbox copy_out: mkdir `%s`", host_path);
	cleanup_close int dir = open(host_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return cv_error_errno(err, "sandbox copy_out: open `%s`", host_path);
	if (cv_archive_extract(tar, dir, NULL, err) < 0)
		return cv_error_prefix(err, "sandbox copy_out `%s`", host_path);
	return 0;
}

int cvisor_sandbox_copy_out(CvisorSandbox *sb, const char *guest_path, const char *host_path)
{
	cleanup_error cv_error_t e = NULL;
	if (!host_path)
		return failf(EINVAL, "sandbox copy_out: a NULL argument");
	/* a new file beside the destination, renamed over it once complete */
	cleanup_free char *tmp = NULL;
	if (asprintf(&tmp, "%s.cvisor-%d-%lx", host_path, (int)getpid(), (unsigned long)random()) < 0)
		return failf(ENOMEM, "sandbox copy_out: out of memory");
	cleanup_close int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return failf(errno, "sandbox copy_out: create `%s`: %s", tmp, strerror(errno));
	int r = agent(sb, "read", guest_path, NULL, -1, NULL, 0, fd, NULL, NULL, &e);
	if (r == -EISDIR) {
		(void)unlink(tmp);
		cv_error_release(&e);
		return copy_out_tree(sb, guest_path, host_path, &e) < 0 ? fail(&e) : 0;
	}
	if (r == 0 && (fsync(fd) < 0 || close(steal_fd(&fd)) < 0 || rename(tmp, host_path) < 0))
		r = cv_error_errno(&e, "sandbox copy_out: `%s`", host_path);
	if (r < 0) {
		(void)unlink(tmp);
		return fail(&e);
	}
	return 0;
}

/* ---- caches ---- */

int cvisor_cache_save(CvisorSandbox *sb, const char *sandbox_path, const char *key, const char *backend,
		      const char *format)
{
	cleanup_error cv_error_t e = NULL;
	enum cv_archive_format f;
	if (!sb || !sandbox_path || !key)
		return failf(EINVAL, "sandbox cache_save: a NULL argument");
	/* bad input fails before anything runs */
	if (cv_cache_key_validate(key, &e) < 0 || cv_archive_format_parse(format, &f, &e) < 0)
		return fail(&e);
	cleanup_close int tar = archive_file(&e);
	if (tar < 0 ||
	    agent(sb, "archive", sandbox_path, cv_archive_format_name(f), -1, NULL, 0, tar, NULL, NULL, &e) < 0)
		return fail(&e);
	if (lseek(tar, 0, SEEK_SET) < 0 || cv_cache_put(backend, key, cv_archive_format_name(f), tar, &e) < 0) {
		if (!e)
			cv_error_errno(&e, "sandbox cache_save");
		return fail(&e);
	}
	return 0;
}

int cvisor_cache_restore(CvisorSandbox *sb, const char *sandbox_path, const char *key, const char *backend,
			 const char *format)
{
	cleanup_error cv_error_t e = NULL;
	enum cv_archive_format f;
	if (!sb || !sandbox_path || !key)
		return failf(EINVAL, "sandbox cache_restore: a NULL argument");
	if (cv_cache_key_validate(key, &e) < 0 || cv_archive_format_parse(format, &f, &e) < 0)
		return fail(&e);
	cleanup_close int tar = -1;
	if (cv_cache_get(backend, key, cv_archive_format_name(f), &tar, &e) < 0)
		return fail(&e);
	/* unpacked inside, by the program's identity, into the overlay */
	if (agent(sb, "extract", sandbox_path, NULL, tar, NULL, 0, -1, NULL, NULL, &e) < 0)
		return fail(&e);
	return 0;
}

/* ---- sessions ---- */

/* A pty of the library's: the master stays here, the slave becomes the
 * run's stdio (whose supervisor gives the program a pty of the sandbox's
 * own and relays, following this one's size). */
static int open_pty(int *master, int *slave, cv_error_t *err)
{
	cleanup_close int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	char name[64];
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, name, sizeof(name)) != 0)
		return cv_error_errno(err, "sandbox session: open a pty");
	int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return cv_error_errno(err, "sandbox session: open `%s`", name);
	/* raw: the sandbox's own pty does the line discipline (echo, \r\n) */
	struct termios t;
	if (tcgetattr(s, &t) == 0) {
		cfmakeraw(&t);
		/* the supervisor turns OPOST back on (as runc does for a
		 * user's terminal): nothing for it to do then */
		t.c_oflag &= ~(tcflag_t)(ONLCR | OCRNL | ONOCR | ONLRET);
		(void)tcsetattr(s, TCSANOW, &t);
	}
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	(void)ioctl(m, TIOCSWINSZ, &ws);
	*master = steal_fd(&m);
	*slave = s;
	return 0;
}

CvisorSession *cvisor_session_start(CvisorSandbox *sb, const char *command, int pty)
{
	cleanup_error cv_error_t e = NULL;
	if (!sb) {
		failf(EINVAL, "sandbox session: a NULL sandbox");
		return NULL;
	}
	CvisorSession *s = calloc(1, sizeof(*s));
	if (!s) {
		failf(ENOMEM, "sandbox session: out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->r = (struct run)RUN_INIT;
	s->pty = pty != 0;
	pthread_mutex_lock(&sb->lock);
	s->debug = sb->debug;
	pthread_mutex_unlock(&sb->lock);
	const char *sh_c[] = { "/bin/sh", "-c", command, NULL }, *sh_i[] = { "/bin/sh", "-i", NULL };
	int slave = -1, outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, null = -1, fds[3];
	int r = -1;
	if (s->pty) {
		if (open_pty(&s->r.in, &slave, &e) < 0)
			goto out;
		fds[0] = fds[1] = fds[2] = slave;
		if ((s->r.out = fcntl(s->r.in, F_DUPFD_CLOEXEC, 3)) < 0) {
			cv_error_errno(&e, "sandbox session: dup");
			goto out;
		}
	} else {
		if ((null = open_null(O_RDONLY, &e)) < 0 || make_pipe(outp, &e) < 0 || make_pipe(errp, &e) < 0)
			goto out;
		fds[0] = null;
		fds[1] = outp[1];
		fds[2] = errp[1];
		s->r.out = steal_fd(&outp[0]);
		s->r.err = steal_fd(&errp[0]);
	}
	struct run_spec rs = { .argv = command ? sh_c : sh_i, .pty = s->pty };
	if (run_send(sb, &rs, fds, &s->r, &e) < 0)
		goto out;
	if (set_nonblock(s->r.out) < 0 || (s->r.err >= 0 && set_nonblock(s->r.err) < 0) ||
	    set_nonblock(s->r.result) < 0) {
		cv_error_errno(&e, "sandbox session: O_NONBLOCK");
		goto out;
	}
	r = 0;
out:
	cv_closep(&slave);
	cv_closep(&null);
	for (int i = 0; i < 2; i++) {
		cv_closep(&outp[i]);
		cv_closep(&errp[i]);
	}
	if (r < 0) {
		fail(&e);
		run_release(&s->r);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	pthread_mutex_lock(&sessions_lock);
	s->sb = sb;
	s->next = sb->sessions;
	if (s->next)
		s->next->prev = s;
	sb->sessions = s;
	pthread_mutex_unlock(&sessions_lock);
	return s;
}

/* How long the end of a session waits for its pty's last output. */
#define SESSION_TAIL_MS 2000

static void session_drain_to_end(int *fd, uint8_t **buf, size_t *len)
{
	uint64_t until = cv_now_ms() + SESSION_TAIL_MS;
	while (*fd >= 0) {
		if (drain(*fd, buf, len, SIZE_MAX) == 1) {
			cv_closep(fd);
			return;
		}
		uint64_t now = cv_now_ms();
		if (now >= until)
			return;
		struct pollfd p = { *fd, POLLIN, 0 };
		(void)poll(&p, 1, (int)(until - now));
	}
}

/* Takes in what has arrived, and the result once the run ended. Under
 * s->lock. */
static void session_poll(CvisorSession *s)
{
	if (s->r.out >= 0 && drain(s->r.out, &s->out, &s->out_len, SIZE_MAX) == 1)
		cv_closep(&s->r.out);
	if (s->r.err >= 0 && drain(s->r.err, &s->err, &s->err_len, SIZE_MAX) == 1)
		cv_closep(&s->r.err);
	if (!s->r.res_eof && s->r.result >= 0)
		s->r.res_eof = drain(s->r.result, (uint8_t **)&s->r.res, &s->r.res_len, 2 * CV_KEEPER_REC_MAX) == 1;
	if (s->r.res_eof && !s->done) {
		/* Every writer of the output is gone now: read it to its end
		 * (a pipe's EOF, a pty's EIO), so that what was written before
		 * the end is here once the session says it ended. A pipe has it
		 * all at once; a pty's last bytes reach the master a moment after
		 * they were written (the tty layer's flush runs in a worker). */
		session_drain_to_end(&s->r.out, &s->out, &s->out_len);
		session_drain_to_end(&s->r.err, &s->err, &s->err_len);
		cleanup_error cv_error_t e = NULL;
		cleanup_free char *report = NULL;
		if (run_outcome(s->debug, &s->r, &s->exit_code, &report, &e) < 0) {
			cv_warn("%s", e->msg);
			s->exit_code = 128 + SIGKILL;
		}
		s->done = true;
		cv_closep(&s->r.kill);
	}
}

static uint8_t *session_take(CvisorSession *s, bool err, size_t *len)
{
	if (len)
		*len = 0;
	if (!s)
		return NULL;
	pthread_mutex_lock(&s->lock);
	session_poll(s);
	uint8_t **b = err ? &s->err : &s->out;
	size_t *n = err ? &s->err_len : &s->out_len;
	uint8_t *data = *n ? *b : NULL;
	if (data) {
		if (len)
			*len = *n;
		*b = NULL;
		*n = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return data;
}

uint8_t *cvisor_session_read_stdout(CvisorSession *s, size_t *len)
{
	return session_take(s, false, len);
}

uint8_t *cvisor_session_read_stderr(CvisorSession *s, size_t *len)
{
	return session_take(s, true, len);
}

long cvisor_session_write_stdin(CvisorSession *s, const uint8_t *data, size_t len)
{
	if (!s || (!data && len))
		return failf(EINVAL, "sandbox session: a NULL argument");
	if (!s->pty)
		return failf(EPIPE, "sandbox session: stdin of a session without a pty is closed");
	pthread_mutex_lock(&s->lock);
	int fd = s->done ? -1 : s->r.in;
	pthread_mutex_unlock(&s->lock);
	if (fd < 0)
		return failf(EPIPE, "sandbox session: it has ended");
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return off ? (long)off : failf(errno, "sandbox session: write stdin: %s", strerror(errno));
		off += (size_t)n;
	}
	return (long)off;
}

void cvisor_session_resize(CvisorSession *s, uint16_t rows, uint16_t cols)
{
	if (!s || !s->pty)
		return;
	struct winsize ws = { .ws_row = rows, .ws_col = cols };
	pthread_mutex_lock(&s->lock);
	if (s->r.in >= 0)
		(void)ioctl(s->r.in, TIOCSWINSZ, &ws);
	pthread_mutex_unlock(&s->lock);
}

int cvisor_session_try_wait(CvisorSession *s, int *done)
{
	if (!s)
		return failf(EINVAL, "sandbox session: a NULL session");
	pthread_mutex_lock(&s->lock);
	session_poll(s);
	int d = s->done, code = s->exit_code;
	pthread_mutex_unlock(&s->lock);
	if (done)
		*done = d;
	return d ? code : 0;
}

int cvisor_session_wait(CvisorSession *s)
{
	if (!s)
		return failf(EINVAL, "sandbox session: a NULL session");
	for (;;) {
		pthread_mutex_lock(&s->lock);
		session_poll(s);
		bool d = s->done;
		int code = s->exit_code;
		struct pollfd p[3] = { { s->r.result, POLLIN, 0 }, { s->r.out, POLLIN, 0 }, { s->r.err, POLLIN, 0 } };
		pthread_mutex_unlock(&s->lock);
		if (d)
			return code;
		/* another thread may read meanwhile: wake up now and then */
		(void)poll(p, 3, 50);
	}
}

/* Under s->lock. */
static void session_kill_locked(CvisorSession *s)
{
	if (!s->done && s->r.kill >= 0)
		(void)write(s->r.kill, "k", 1);
}

void cvisor_session_kill(CvisorSession *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	session_kill_locked(s);
	pthread_mutex_unlock(&s->lock);
}

void cvisor_session_free(CvisorSession *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&sessions_lock);
	if (s->sb) {
		if (s->prev)
			s->prev->next = s->next;
		else
			s->sb->sessions = s->next;
		if (s->next)
			s->next->prev = s->prev;
		s->sb = NULL;
	}
	pthread_mutex_unlock(&sessions_lock);
	cvisor_session_kill(s);
	uint64_t until = cv_now_ms() + FREE_WAIT_MS;
	for (;;) {
		pthread_mutex_lock(&s->lock);
		session_poll(s);
		bool d = s->done || s->r.result < 0;
		pthread_mutex_unlock(&s->lock);
		if (d || cv_now_ms() >= until)
			break;
		struct pollfd p = { s->r.result, POLLIN, 0 };
		(void)poll(&p, 1, 50);
	}
	run_release(&s->r);
	free(s->out);
	free(s->err);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
