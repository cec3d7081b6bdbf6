/* sandbox-test: drives libcvisor's sandbox calls (cvisor.h, "sandboxes")
 * from a script on the command line, one step per argument group, and
 * prints what each returns, for tests/integration/sandbox-api.bats:
 *
 *   ctx ROOT                state root of the sandboxes made after it
 *   new | use N | free      make sandbox N (0..3, "use" picks; new makes
 *                           the next), free the current one
 *   debug                   the sandbox's debug lines to stderr
 *   net 0|1, listen 0|1, env K V, limits MEM PIDS CPU%, opt KEY VALUE
 *   run CMD                 "exit=N", "out=...", "err=..." (bytes as %q)
 *   runt MS CMD             the same with a timeout
 *   runwith ENV CAP CMD     cvisor_run_with: ENV "A=1,B=2" ("-": none) for
 *                           this run, CAP its max_output_bytes (0: none)
 *   cancel MS CMD           run CMD; another thread cancels the sandbox
 *                           after MS ms ("cancel rc=N" then the output)
 *   errno                   "errno=N" of cvisor_last_errno()
 *   report                  the last run's report JSON
 *   write PATH DATA | read PATH | copyin HOST GUEST | copyout GUEST HOST
 *                           "rc=N" (read: "data=...", "len=N")
 *   csave PATH KEY BACKEND FORMAT | crestore PATH KEY BACKEND FORMAT
 *                           cache_save / cache_restore: "rc=N"
 *   sess CMD|- PTY          start a session (CMD "-": interactive sh)
 *   sin DATA | resize R C | swait | stry | skill | sout | serr | sfree
 *   sleep MS                pause
 *   threads N CMD           N threads, each its own sandbox running CMD
 *                           twice, "threads ok=K" when K runs printed 7
 *   ready                   print "ready" and wait for stdin's EOF
 *   caller                  "caller=unchanged" when this process's signal
 *                           dispositions and mask, dumpable and subreaper
 *                           flags and open fds are as at the start, and it
 *                           has no child; else what changed
 * Every failure prints "error=<errno> <cvisor_last_error()>". */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cvisor.h"

static void show(const char *key, const uint8_t *b, size_t n)
{
	printf("%s=", key);
	for (size_t i = 0; i < n; i++) {
		if (b[i] == '\n')
			fputs("\\n", stdout);
		else if (b[i] == '\r')
			fputs("\\r", stdout);
		else if (b[i] < 32 || b[i] >= 127)
			printf("\\x%02x", b[i]);
		else
			putchar(b[i]);
	}
	putchar('\n');
}

static void show_bytes(const char *key, uint8_t *b, size_t n)
{
	show(key, b, b ? n : 0);
	cvisor_bytes_free(b, n);
}

static void rc(int r)
{
	if (r < 0)
		printf("rc=%d error=%s\n", r, cvisor_last_error());
	else
		printf("rc=%d\n", r);
}

static char *last_report;

static void output(CvisorOutput *o)
{
	if (!o) {
		printf("error=%s\n", cvisor_last_error());
		return;
	}
	size_t n;
	uint8_t *b;
	printf("exit=%d\n", cvisor_output_exit_code(o));
	b = cvisor_output_stdout(o, &n);
	show_bytes("out", b, n);
	b = cvisor_output_stderr(o, &n);
	show_bytes("err", b, n);
	free(last_report);
	last_report = strdup(cvisor_output_report_json(o));
	cvisor_output_free(o);
}

struct caller_state {
	struct sigaction act[65];
	sigset_t mask;
	int dumpable, subreaper, fds;
};

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1; /* the directory's own */
}

static void caller_state(struct caller_state *c)
{
	memset(c, 0, sizeof(*c));
	for (int s = 1; s < 65; s++)
		sigaction(s, NULL, &c->act[s]);
	sigprocmask(SIG_SETMASK, NULL, &c->mask);
	c->dumpable = prctl(PR_GET_DUMPABLE);
	prctl(PR_GET_CHILD_SUBREAPER, &c->subreaper);
	c->fds = count_fds();
}

static void caller_compare(const struct caller_state *a)
{
	struct caller_state b;
	bool same = true;
	caller_state(&b);
	for (int s = 1; s < 65; s++)
		if (a->act[s].sa_handler != b.act[s].sa_handler || a->act[s].sa_flags != b.act[s].sa_flags) {
			printf("caller: the disposition of signal %d changed\n", s);
			same = false;
		}
	if (memcmp(&a->mask, &b.mask, sizeof(a->mask)) != 0) {
		printf("caller: the signal mask changed\n");
		same = false;
	}
	if (a->dumpable != b.dumpable || a->subreaper != b.subreaper) {
		printf("caller: dumpable or subreaper changed\n");
		same = false;
	}
	if (a->fds != b.fds) {
		printf("caller: %d fds open, %d at the start\n", b.fds, a->fds);
		same = false;
	}
	if (waitpid(-1, NULL, WNOHANG | __WALL) != -1 || errno != ECHILD) {
		printf("caller: it has a child\n");
		same = false;
	}
	if (same)
		printf("caller=unchanged\n");
}

struct cancel_arg {
	CvisorSandbox *sb;
	int ms, rc;
};

static void *cancel_main(void *p)
{
	struct cancel_arg *a = p;
	usleep((useconds_t)a->ms * 1000);
	a->rc = cvisor_sandbox_cancel(a->sb);
	return NULL;
}

static CvisorOutput *run_with(CvisorSandbox *sb, char *envspec, uint64_t cap, const char *cmd)
{
	const char *env[16] = { NULL }, *argv[] = { "/bin/sh", "-c", cmd, NULL };
	size_t n = 0;
	for (char *save = NULL, *t = strcmp(envspec, "-") ? strtok_r(envspec, ",", &save) : NULL; t && n < 15;
	     t = strtok_r(NULL, ",", &save))
		env[n++] = t;
	struct cvisor_run_options o = { .struct_size = sizeof(o), .argv = argv, .env = env, .max_output_bytes = cap };
	return cvisor_run_with(sb, &o);
}

struct thread_arg {
	const char *cmd;
	int ok;
	struct cvisor_context *ctx;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	CvisorSandbox *sb = cvisor_sandbox_new();
	if (!sb || (a->ctx && cvisor_sandbox_set_context(sb, a->ctx) < 0))
		return NULL;
	cvisor_sandbox_set_allow_network(sb, 0);
	for (int i = 0; i < 2; i++) {
		CvisorOutput *o = cvisor_run(sb, a->cmd);
		if (o && cvisor_output_exit_code(o) == 7)
			a->ok++;
		else
			fprintf(stderr, "thread run: %s\n", o ? "wrong exit status" : cvisor_last_error());
		cvisor_output_free(o);
	}
	cvisor_sandbox_free(sb);
	return NULL;
}

int main(int argc, char **argv)
{
	CvisorSandbox *sbs[4] = { NULL };
	int cur = -1;
	CvisorSession *s = NULL;
	struct cvisor_context ctx = { .struct_size = sizeof(ctx), .rootless = -1 };
	bool have_ctx = false;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct caller_state start;
	caller_state(&start);

#define NEED(k)                                                                                                        \
	do {                                                                                                           \
		if (i + (k) >= argc) {                                                                                 \
			fprintf(stderr, "sandbox-test: %s needs %d arguments\n", op, k);                               \
			return 2;                                                                                      \
		}                                                                                                      \
	} while (0)
#define SB (cur >= 0 ? sbs[cur] : NULL)
	for (int i = 1; i < argc; i++) {
		const char *op = argv[i];
		if (strcmp(op, "ctx") == 0) {
			NEED(1);
			ctx.state_root = argv[++i];
			have_ctx = true;
		} else if (strcmp(op, "new") == 0) {
			cur++;
			if (cur >= 4)
				return 2;
			sbs[cur] = cvisor_sandbox_new();
			if (have_ctx)
				rc(cvisor_sandbox_set_context(sbs[cur], &ctx));
		} else if (strcmp(op, "use") == 0) {
			NEED(1);
			cur = atoi(argv[++i]);
		} else if (strcmp(op, "free") == 0) {
			cvisor_sandbox_free(SB);
			sbs[cur] = NULL;
		} else if (strcmp(op, "debug") == 0) {
			cvisor_sandbox_set_log_level(SB, 1);
		} else if (strcmp(op, "net") == 0) {
			NEED(1);
			cvisor_sandbox_set_allow_network(SB, atoi(argv[++i]));
		} else if (strcmp(op, "listen") == 0) {
			NEED(1);
			cvisor_sandbox_set_allow_listen(SB, atoi(argv[++i]));
		} else if (strcmp(op, "env") == 0) {
			NEED(2);
			cvisor_sandbox_set_env(SB, argv[i + 1], argv[i + 2]);
			i += 2;
		} else if (strcmp(op, "limits") == 0) {
			NEED(3);
			cvisor_sandbox_set_limits(SB, strtoull(argv[i + 1], NULL, 0), strtoull(argv[i + 2], NULL, 0),
						  (uint32_t)strtoul(argv[i + 3], NULL, 0));
			i += 3;
		} else if (strcmp(op, "opt") == 0) {
			NEED(2);
			rc(cvisor_sandbox_set_option(SB, argv[i + 1], argv[i + 2]));
			i += 2;
		} else if (strcmp(op, "run") == 0) {
			NEED(1);
			output(cvisor_run(SB, argv[++i]));
		} else if (strcmp(op, "runt") == 0) {
			NEED(2);
			output(cvisor_run_timeout(SB, argv[i + 2], strtoull(argv[i + 1], NULL, 0)));
			i += 2;
		} else if (strcmp(op, "runwith") == 0) {
			NEED(3);
			output(run_with(SB, argv[i + 1], strtoull(argv[i + 2], NULL, 0), argv[i + 3]));
			i += 3;
		} else if (strcmp(op, "cancel") == 0) {
			NEED(2);
			pthread_t t;
			struct cancel_arg a = { .sb = SB, .ms = atoi(argv[i + 1]) };
			if (pthread_create(&t, NULL, cancel_main, &a) != 0)
				return 2;
			CvisorOutput *o = cvisor_run(SB, argv[i + 2]);
			pthread_join(t, NULL);
			printf("cancel rc=%d\n", a.rc);
			output(o);
			i += 2;
		} else if (strcmp(op, "errno") == 0) {
			printf("errno=%d\n", cvisor_last_errno());
		} else if (strcmp(op, "report") == 0) {
			printf("report=%s\n", last_report ? last_report : "");
		} else if (strcmp(op, "write") == 0) {
			NEED(2);
			rc(cvisor_sandbox_write_file(SB, argv[i + 1], (const uint8_t *)argv[i + 2],
						     strlen(argv[i + 2])));
			i += 2;
		} else if (strcmp(op, "read") == 0) {
			NEED(1);
			size_t n = 0;
			uint8_t *b = cvisor_sandbox_read_file(SB, argv[++i], &n);
			if (!b && n)
				printf("error=%zu %s\n", n, cvisor_last_error());
			else
				show_bytes("data", b, n);
		} else if (strcmp(op, "copyin") == 0) {
			NEED(2);
			rc(cvisor_sandbox_copy_into(SB, argv[i + 1], argv[i + 2]));
			i += 2;
		} else if (strcmp(op, "copyout") == 0) {
			NEED(2);
			rc(cvisor_sandbox_copy_out(SB, argv[i + 1], argv[i + 2]));
			i += 2;
		} else if (strcmp(op, "csave") == 0 || strcmp(op, "crestore") == 0) {
			NEED(4);
			int (*f)(CvisorSandbox *, const char *, const char *, const char *,
				 const char *) = op[1] == 's' ? cvisor_cache_save : cvisor_cache_restore;
			rc(f(SB, argv[i + 1], argv[i + 2], argv[i + 3], argv[i + 4]));
			i += 4;
		} else if (strcmp(op, "sess") == 0) {
			NEED(2);
			s = cvisor_session_start(SB, strcmp(argv[i + 1], "-") ? argv[i + 1] : NULL, atoi(argv[i + 2]));
			i += 2;
			if (!s)
				printf("error=%s\n", cvisor_last_error());
		} else if (strcmp(op, "sin") == 0) {
			NEED(1);
			i++;
			printf("sin=%ld\n", cvisor_session_write_stdin(s, (const uint8_t *)argv[i], strlen(argv[i])));
		} else if (strcmp(op, "resize") == 0) {
			NEED(2);
			cvisor_session_resize(s, (uint16_t)atoi(argv[i + 1]), (uint16_t)atoi(argv[i + 2]));
			i += 2;
		} else if (strcmp(op, "swait") == 0) {
			printf("swait=%d\n", cvisor_session_wait(s));
		} else if (strcmp(op, "stry") == 0) {
			int done = -1;
			int code = cvisor_session_try_wait(s, &done);
			printf("stry=%d done=%d\n", code, done);
		} else if (strcmp(op, "skill") == 0) {
			cvisor_session_kill(s);
		} else if (strcmp(op, "sout") == 0 || strcmp(op, "serr") == 0) {
			size_t n = 0;
			uint8_t *b = op[1] == 'o' ? cvisor_session_read_stdout(s, &n)
						  : cvisor_session_read_stderr(s, &n);
			show_bytes(op, b, n);
		} else if (strcmp(op, "sfree") == 0) {
			cvisor_session_free(s);
			s = NULL;
		} else if (strcmp(op, "sleep") == 0) {
			NEED(1);
			usleep((useconds_t)atoi(argv[++i]) * 1000);
		} else if (strcmp(op, "threads") == 0) {
			NEED(2);
			int n = atoi(argv[i + 1]);
			pthread_t t[64];
			struct thread_arg a[64];
			if (n < 1 || n > 64)
				return 2;
			for (int k = 0; k < n; k++) {
				a[k] = (struct thread_arg){ .cmd = argv[i + 2], .ctx = have_ctx ? &ctx : NULL };
				if (pthread_create(&t[k], NULL, thread_main, &a[k]) != 0)
					return 2;
			}
			int ok = 0;
			for (int k = 0; k < n; k++) {
				pthread_join(t[k], NULL);
				ok += a[k].ok;
			}
			printf("threads ok=%d\n", ok);
			i += 2;
		} else if (strcmp(op, "caller") == 0) {
			caller_compare(&start);
		} else if (strcmp(op, "ready") == 0) {
			char c;
			printf("ready\n");
			while (read(0, &c, 1) > 0)
				;
		} else {
			fprintf(stderr, "sandbox-test: unknown step `%s`\n", op);
			return 2;
		}
	}
	if (s)
		cvisor_session_free(s);
	for (int k = 0; k < 4; k++)
		cvisor_sandbox_free(sbs[k]);
	free(last_report);
	return 0;
}
