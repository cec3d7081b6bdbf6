/* Unit tests for the seccomp module: OCI profile -> BPF translation.
 *
 * Verdicts are checked two ways: by running the exported program through a
 * small classic-BPF interpreter on synthetic seccomp_data (any architecture,
 * no kernel involved), and by loading it in a forked child and observing
 * what real syscalls return. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "cleanup.h"
#include "io.h"
#include "seccomp/seccomp-internal.h"
#include "seccomp/seccomp-filter.h"

/* ---- minimal TAP ---- */
static int t_num, t_failed;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++t_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		t_failed++;
	fflush(stdout);
}

/* ---- classic BPF interpreter (the subset seccomp filters may use) ---- */
static uint32_t bpf_run(const struct sock_filter *p, size_t len, const struct seccomp_data *d)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = { 0 };
	const unsigned char *data = (const unsigned char *)d;

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *i = &p[pc];
		uint32_t src = BPF_SRC(i->code) == BPF_X ? X : i->k;

		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (BPF_MODE(i->code) == BPF_ABS) {
				if (i->k + 4 > sizeof(*d))
					return 0xdeadbeef;
				memcpy(&A, data + i->k, 4);
			} else if (BPF_MODE(i->code) == BPF_MEM)
				A = M[i->k];
			else if (BPF_MODE(i->code) == BPF_IMM)
				A = i->k;
			else
				return 0xdeadbeef;
			break;
		case BPF_LDX:
			X = BPF_MODE(i->code) == BPF_MEM ? M[i->k] : i->k;
			break;
		case BPF_ST:
			M[i->k] = A;
			break;
		case BPF_STX:
			M[i->k] = X;
			break;
		case BPF_ALU:
			switch (BPF_OP(i->code)) {
			case BPF_ADD:
				A += src;
				break;
			case BPF_SUB:
				A -= src;
				break;
			case BPF_AND:
				A &= src;
				break;
			case BPF_OR:
				A |= src;
				break;
			case BPF_XOR:
				A ^= src;
				break;
			case BPF_LSH:
				A <<= src;
				break;
			case BPF_RSH:
				A >>= src;
				break;
			case BPF_NEG:
				A = -A;
				break;
			default:
				return 0xdeadbeef;
			}
			break;
		case BPF_JMP:
			switch (BPF_OP(i->code)) {
			case BPF_JA:
				pc += i->k;
				break;
			case BPF_JEQ:
				pc += A == src ? i->jt : i->jf;
				break;
			case BPF_JGT:
				pc += A > src ? i->jt : i->jf;
				break;
			case BPF_JGE:
				pc += A >= src ? i->jt : i->jf;
				break;
			case BPF_JSET:
				pc += (A & src) ? i->jt : i->jf;
				break;
			default:
				return 0xdeadbeef;
			}
			break;
		case BPF_RET:
			return BPF_RVAL(i->code) == BPF_A ? A : i->k;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				X = A;
			else
				A = X;
			break;
		}
	}
	return 0xdeadbeef; /* fell off the end: the kernel would refuse it */
}

static uint32_t verdict_arch(const struct cv_seccomp *f, uint32_t arch, int nr, uint64_t a0, uint64_t a1)
{
	struct seccomp_data d = { .nr = nr, .arch = arch, .args = { a0, a1 } };
	return bpf_run(f->insns, f->len, &d);
}

static uint32_t verdict(const struct cv_seccomp *f, int nr, uint64_t a0, uint64_t a1)
{
	return verdict_arch(f, AUDIT_ARCH_X86_64, nr, a0, a1);
}

#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | (e))

/* ---- profile builders ---- */
static char *names_buf[16][8];

static oci_strv strv(int slot, const char *a, const char *b)
{
	oci_strv v = { .v = names_buf[slot], .set = true };
	names_buf[slot][0] = (char *)a;
	names_buf[slot][1] = (char *)b;
	names_buf[slot][2] = NULL;
	v.len = b ? 2 : 1;
	return v;
}

static struct cv_seccomp *compile_ok(const oci_seccomp *p, const char *what)
{
	cleanup_error cv_error_t err = NULL;
	struct cv_seccomp *f = NULL;
	int r = cv_seccomp_compile(p, &f, &err);

	ok(r == 0 && f != NULL, "%s compiles%s%s", what, err ? ": " : "", err ? err->msg : "");
	return f;
}

static void compile_fails(const oci_seccomp *p, const char *expect)
{
	cleanup_error cv_error_t err = NULL;
	struct cv_seccomp *f = NULL;
	int r = cv_seccomp_compile(p, &f, &err);

	ok(r < 0 && f == NULL && err && strcmp(err->msg, expect) == 0, "error `%s` (got `%s`)", expect,
	   err ? err->msg : "success");
	cv_seccomp_free(f);
}

/* Loads F in a forked child, runs FN there and returns its exit status (or
 * 128+signal). */
static int in_child(const struct cv_seccomp *f, int (*fn)(void))
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		cleanup_error cv_error_t err = NULL;
		int nfd;
		/* exit_group directly: a sanitizer's _exit hook would run a leak
		 * check here and replace the status we report */
		if (cv_seccomp_load(f, &nfd, &err) < 0)
			syscall(SYS_exit_group, 250);
		syscall(SYS_exit_group, fn());
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int call_getppid(void)
{
	return syscall(SYS_getppid) < 0 ? errno : 0;
}
static int call_personality0(void)
{
	return syscall(SYS_personality, 0xffffffffUL) < 0 ? errno : 0;
}
static int call_personality8(void)
{
	return syscall(SYS_personality, 8UL) < 0 ? errno : 0;
}

static void test_basic(void)
{
	oci_seccomp_syscall sc[2] = {
		{ .names = strv(0, "getppid", NULL), .action = "SCMP_ACT_ERRNO", .errno_ret = { true, EACCES } },
		{ .names = strv(1, "uname", "this_syscall_does_not_exist"), .action = "SCMP_ACT_ERRNO" },
	};
	oci_seccomp p = { .default_action = "SCMP_ACT_ALLOW", .syscalls = sc, .syscalls_len = 2 };
	struct cv_seccomp *f = compile_ok(&p, "basic profile with an unknown syscall name");

	if (!f)
		return;
	ok(verdict(f, SYS_getppid, 0, 0) == RET_ERRNO(EACCES), "getppid -> ERRNO(EACCES)");
	ok(verdict(f, SYS_uname, 0, 0) == RET_ERRNO(EPERM), "errnoRet defaults to EPERM");
	ok(verdict(f, SYS_getpid, 0, 0) == SECCOMP_RET_ALLOW, "getpid -> default ALLOW");
	ok(!cv_seccomp_has_notify(f) && f->flags == 0, "no notify, no flags");
	ok(in_child(f, call_getppid) == EACCES, "loaded filter: getppid fails with EACCES in the child");
	cv_seccomp_free(f);
}

static void test_actions(void)
{
	static const struct {
		const char *name;
		uint32_t ret;
	} acts[] = {
		{ "SCMP_ACT_KILL", SECCOMP_RET_KILL_THREAD },
		{ "SCMP_ACT_KILL_THREAD", SECCOMP_RET_KILL_THREAD },
		{ "SCMP_ACT_KILL_PROCESS", SECCOMP_RET_KILL_PROCESS },
		{ "SCMP_ACT_TRAP", SECCOMP_RET_TRAP },
		{ "SCMP_ACT_TRACE", SECCOMP_RET_TRACE | EPERM },
		{ "SCMP_ACT_LOG", SECCOMP_RET_LOG },
		{ "SCMP_ACT_NOTIFY", SECCOMP_RET_USER_NOTIF },
	};
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		oci_seccomp_syscall sc = { .names = strv(0, "getppid", NULL), .action = (char *)acts[i].name };
		oci_seccomp p = { .default_action = "SCMP_ACT_ALLOW", .syscalls = &sc, .syscalls_len = 1 };
		struct cv_seccomp *f = compile_ok(&p, acts[i].name);
		if (!f)
			continue;
		ok(verdict(f, SYS_getppid, 0, 0) == acts[i].ret, "%s -> 0x%x", acts[i].name, acts[i].ret);
		if (strcmp(acts[i].name, "SCMP_ACT_NOTIFY") == 0)
			ok(cv_seccomp_has_notify(f) && (f->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER),
			   "NOTIFY sets has_notify and NEW_LISTENER");
		if (strcmp(acts[i].name, "SCMP_ACT_KILL_PROCESS") == 0)
			ok(in_child(f, call_getppid) == 128 + SIGSYS, "KILL_PROCESS ends the child with SIGSYS");
		cv_seccomp_free(f);
	}
	/* TRACE errnoRet is the value handed to the tracer */
	oci_seccomp_syscall sc = { .names = strv(0, "getppid", NULL),
				   .action = "SCMP_ACT_TRACE",
				   .errno_ret = { true, 42 } };
	oci_seccomp p = { .default_action = "SCMP_ACT_ALLOW", .syscalls = &sc, .syscalls_len = 1 };
	struct cv_seccomp *f = compile_ok(&p, "TRACE with errnoRet");
	if (f)
		ok(verdict(f, SYS_getppid, 0, 0) == (SECCOMP_RET_TRACE | 42), "TRACE(42)");
	cv_seccomp_free(f);
}

static void test_default_errno(void)
{
	oci_seccomp_syscall sc = { .names = strv(0, "getpid", NULL), .action = "SCMP_ACT_ALLOW" };
	oci_seccomp p = { .default_action = "SCMP_ACT_ERRNO",
			  .default_errno_ret = { true, ENOSYS },
			  .syscalls = &sc,
			  .syscalls_len = 1 };
	struct cv_seccomp *f = compile_ok(&p, "defaultErrnoRet");
	if (!f)
		return;
	ok(verdict(f, SYS_getppid, 0, 0) == RET_ERRNO(ENOSYS), "defaultErrnoRet ENOSYS applies");
	ok(verdict(f, SYS_getpid, 0, 0) == SECCOMP_RET_ALLOW, "listed syscall allowed");
	cv_seccomp_free(f);

	/* a rule equal to the default action is skipped, not an error */
	oci_seccomp_syscall sc2 = { .names = strv(0, "getpid", NULL), .action = "SCMP_ACT_ALLOW" };
	oci_seccomp p2 = { .default_action = "SCMP_ACT_ALLOW", .syscalls = &sc2, .syscalls_len = 1 };
	f = compile_ok(&p2, "rule equal to the default action");
	cv_seccomp_free(f);
}

static void test_args(void)
{
	oci_seccomp_arg pers0 = { .index = 0, .value = 0, .op = "SCMP_CMP_EQ" };
	oci_seccomp_arg persall = { .index = 0, .value = 0xffffffff, .op = "SCMP_CMP_EQ" };
	oci_seccomp_arg masked = { .index = 0,
				   .value = CLONE_NEWUSER,
				   .value_two = { true, 0 },
				   .op = "SCMP_CMP_MASKED_EQ" };
	oci_seccomp_arg and2[2] = { { .index = 0, .value = 1, .op = "SCMP_CMP_EQ" },
				    { .index = 1, .value = 5, .op = "SCMP_CMP_GT" } };
	oci_seccomp_arg same[2] = { { .index = 0, .value = 3, .op = "SCMP_CMP_EQ" },
				    { .index = 0, .value = 7, .op = "SCMP_CMP_EQ" } };
	oci_seccomp_arg ops[4] = { { .index = 0, .value = 10, .op = "SCMP_CMP_LT" },
				   { .index = 1, .value = 10, .op = "SCMP_CMP_GE" },
				   { .index = 2, .value = 10, .op = "SCMP_CMP_NE" },
				   { .index = 3, .value = 10, .op = "SCMP_CMP_LE" } };
	oci_seccomp_syscall sc[7] = {
		{ .names = strv(0, "personality", NULL), .action = "SCMP_ACT_ALLOW", .args = &pers0, .args_len = 1 },
		{ .names = strv(1, "personality", NULL), .action = "SCMP_ACT_ALLOW", .args = &persall, .args_len = 1 },
		{ .names = strv(2, "unshare", NULL), .action = "SCMP_ACT_ALLOW", .args = &masked, .args_len = 1 },
		{ .names = strv(3, "kill", NULL), .action = "SCMP_ACT_ALLOW", .args = and2, .args_len = 2 },
		{ .names = strv(4, "dup", NULL), .action = "SCMP_ACT_ALLOW", .args = same, .args_len = 2 },
		{ .names = strv(5, "mmap", NULL), .action = "SCMP_ACT_ALLOW", .args = ops, .args_len = 4 },
		/* so the child can report */
		{ .names = strv(6, "exit_group", "exit"), .action = "SCMP_ACT_ALLOW" },
	};
	oci_seccomp p = { .default_action = "SCMP_ACT_ERRNO", .syscalls = sc, .syscalls_len = 7 };
	struct cv_seccomp *f = compile_ok(&p, "argument filters");
	if (!f)
		return;
	ok(verdict(f, SYS_personality, 0, 0) == SECCOMP_RET_ALLOW, "personality(0) allowed");
	ok(verdict(f, SYS_personality, 0xffffffff, 0) == SECCOMP_RET_ALLOW,
	   "personality(0xffffffff) allowed by a second rule (rules ORed)");
	ok(verdict(f, SYS_personality, 8, 0) == RET_ERRNO(EPERM), "personality(8) refused");
	ok(verdict(f, SYS_unshare, CLONE_NEWNS, 0) == SECCOMP_RET_ALLOW, "MASKED_EQ: unshare(CLONE_NEWNS) allowed");
	ok(verdict(f, SYS_unshare, CLONE_NEWNS | CLONE_NEWUSER, 0) == RET_ERRNO(EPERM),
	   "MASKED_EQ: unshare(CLONE_NEWUSER|CLONE_NEWNS) refused");
	ok(verdict(f, SYS_kill, 1, 6) == SECCOMP_RET_ALLOW, "two args ANDed: both match");
	ok(verdict(f, SYS_kill, 1, 5) == RET_ERRNO(EPERM), "two args ANDed: second fails");
	ok(verdict(f, SYS_kill, 2, 6) == RET_ERRNO(EPERM), "two args ANDed: first fails");
	ok(verdict(f, SYS_dup, 3, 0) == SECCOMP_RET_ALLOW && verdict(f, SYS_dup, 7, 0) == SECCOMP_RET_ALLOW &&
		   verdict(f, SYS_dup, 4, 0) == RET_ERRNO(EPERM),
	   "two conditions on one argument become ORed rules (runc)");
	{
		struct seccomp_data d = { .nr = SYS_mmap, .arch = AUDIT_ARCH_X86_64, .args = { 9, 10, 11, 10 } };
		ok(bpf_run(f->insns, f->len, &d) == SECCOMP_RET_ALLOW, "LT/GE/NE/LE all match");
		d.args[3] = 11;
		ok(bpf_run(f->insns, f->len, &d) == RET_ERRNO(EPERM), "LE fails");
		d.args[3] = 10;
		d.args[2] = 10;
		ok(bpf_run(f->insns, f->len, &d) == RET_ERRNO(EPERM), "NE fails");
		d.args[2] = 11;
		d.args[0] = 10;
		ok(bpf_run(f->insns, f->len, &d) == RET_ERRNO(EPERM), "LT fails");
		d.args[0] = 9;
		d.args[1] = 9;
		ok(bpf_run(f->insns, f->len, &d) == RET_ERRNO(EPERM), "GE fails");
	}
	int rc = in_child(f, call_personality0);
	ok(rc == 0, "loaded filter: personality(0xffffffff) allowed (child status %d)", rc);
	ok(in_child(f, call_personality8) == EPERM, "loaded filter: personality(8) EPERM");
	cv_seccomp_free(f);
}

static void test_arches(void)
{
	oci_seccomp_syscall sc = { .names = strv(0, "getpid", NULL), .action = "SCMP_ACT_ALLOW" };
	oci_seccomp p = { .default_action = "SCMP_ACT_ERRNO", .syscalls = &sc, .syscalls_len = 1 };
	struct cv_seccomp *f = compile_ok(&p, "native-only profile");
	const int i386_getpid = 20, x32_bit = 0x40000000;

	if (f) {
		ok(verdict_arch(f, AUDIT_ARCH_I386, i386_getpid, 0, 0) == SECCOMP_RET_KILL_THREAD,
		   "i386 syscall killed when x86 is not listed");
		ok(verdict_arch(f, AUDIT_ARCH_X86_64, x32_bit | SYS_getpid, 0, 0) == SECCOMP_RET_KILL_THREAD,
		   "x32 syscall killed when x32 is not listed");
		cv_seccomp_free(f);
	}
	p.architectures = strv(1, "SCMP_ARCH_X86", "SCMP_ARCH_X32");
	f = compile_ok(&p, "profile with x86 and x32");
	if (f) {
		ok(verdict_arch(f, AUDIT_ARCH_I386, i386_getpid, 0, 0) == SECCOMP_RET_ALLOW, "i386 getpid allowed");
		ok(verdict_arch(f, AUDIT_ARCH_I386, 64 /* getppid */, 0, 0) == RET_ERRNO(EPERM),
		   "i386 getppid gets the default action");
		ok(verdict_arch(f, AUDIT_ARCH_X86_64, x32_bit | SYS_getpid, 0, 0) == SECCOMP_RET_ALLOW,
		   "x32 getpid allowed");
		ok(verdict(f, SYS_getpid, 0, 0) == SECCOMP_RET_ALLOW, "native still present");
		cv_seccomp_free(f);
	}
	p.architectures = strv(1, "SCMP_ARCH_X86_64", NULL);
	f = compile_ok(&p, "listing the native arch");
	cv_seccomp_free(f);
}

static void test_flags(void)
{
	oci_seccomp p = { .default_action = "SCMP_ACT_ALLOW" };
	struct cv_seccomp *f;

	p.flags = strv(0, "SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG");
	f = compile_ok(&p, "TSYNC and LOG flags");
	if (f)
		ok(f->flags == (SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG), "flags passed to seccomp(2)");
	cv_seccomp_free(f);
	p.flags = strv(0, "SECCOMP_FILTER_FLAG_SPEC_ALLOW", NULL);
	f = compile_ok(&p, "SPEC_ALLOW flag");
	cv_seccomp_free(f);
	p.flags = strv(0, "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", NULL);
	f = compile_ok(&p, "WAIT_KILLABLE_RECV flag");
	cv_seccomp_free(f);
}

static void test_errors(void)
{
	oci_seccomp_arg badop = { .index = 0, .op = "SCMP_CMP_FOO" };
	oci_seccomp_arg badidx = { .index = 6, .op = "SCMP_CMP_EQ" };
	oci_seccomp_syscall sc[4] = {
		{ .names = strv(0, "getpid", NULL), .action = "SCMP_ACT_ALLOW" },
		{ .names = strv(1, "getpid", NULL), .action = "SCMP_ACT_ALLOW" },
		{ .names = strv(2, "getpid", NULL), .action = "SCMP_ACT_ALLOW" },
		{ .names = strv(3, "getppid", NULL), .action = "SCMP_ACT_FOO" },
	};
	oci_seccomp p = { .default_action = "SCMP_ACT_ERRNO", .syscalls = sc, .syscalls_len = 4 };

	compile_fails(&p, "linux.seccomp.syscalls[3].action: unknown action \"SCMP_ACT_FOO\"");
	sc[3].action = "SCMP_ACT_ALLOW";
	sc[3].errno_ret = (oci_opt_u32){ true, 1 };
	compile_fails(&p, "linux.seccomp.syscalls[3].action: errnoRet is only valid with SCMP_ACT_ERRNO and "
			  "SCMP_ACT_TRACE, not SCMP_ACT_ALLOW");
	sc[3].errno_ret.set = false;
	sc[2].args = &badop;
	sc[2].args_len = 1;
	compile_fails(&p, "linux.seccomp.syscalls[2].args[0].op: unknown operator \"SCMP_CMP_FOO\"");
	sc[2].args = &badidx;
	compile_fails(&p, "linux.seccomp.syscalls[2].args[0].index: 6 out of range (0-5)");
	sc[2].args_len = 0;
	p.architectures = strv(4, "SCMP_ARCH_X86", "SCMP_ARCH_Z80");
	compile_fails(&p, "linux.seccomp.architectures[1]: unknown architecture \"SCMP_ARCH_Z80\"");
	p.architectures = (oci_strv){ 0 };
	p.flags = strv(5, "SECCOMP_FILTER_FLAG_BOGUS", NULL);
	compile_fails(&p, "linux.seccomp.flags[0]: unknown flag \"SECCOMP_FILTER_FLAG_BOGUS\"");
	p.flags = (oci_strv){ 0 };
	p.default_action = "SCMP_ACT_NOTIFY";
	compile_fails(&p, "linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default action");
	p.default_action = "allow";
	compile_fails(&p, "linux.seccomp.defaultAction: unknown action \"allow\"");
	p.default_action = "SCMP_ACT_ERRNO";
	sc[0].action = "SCMP_ACT_NOTIFY";
	sc[0].names = strv(6, "write", NULL);
	compile_fails(&p, "linux.seccomp.syscalls[0]: SCMP_ACT_NOTIFY cannot be used for `write`: the runtime "
			  "needs it to hand the listener over");
	sc[0].action = "SCMP_ACT_ERRNO";
	sc[0].errno_ret = (oci_opt_u32){ true, 70000 };
	compile_fails(&p, "linux.seccomp.syscalls[0].action: errnoRet 70000 out of range (0-65535)");
}

static void test_notify_load(void)
{
	oci_seccomp_syscall sc = { .names = strv(0, "getppid", NULL), .action = "SCMP_ACT_NOTIFY" };
	oci_seccomp p = { .default_action = "SCMP_ACT_ALLOW",
			  .syscalls = &sc,
			  .syscalls_len = 1,
			  .flags = strv(1, "SECCOMP_FILTER_FLAG_TSYNC", NULL) };
	struct cv_seccomp *f = compile_ok(&p, "notify profile");
	int fds[2];
	pid_t pid;
	int status, nfd = -1;

	if (!f)
		return;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		cleanup_error cv_error_t err = NULL;
		if (cv_seccomp_load(f, &nfd, &err) < 0)
			_exit(1);
		_exit(write(fds[1], &nfd, sizeof(nfd)) == sizeof(nfd) && nfd >= 0 ? 0 : 2);
	}
	close(fds[1]);
	if (read(fds[0], &nfd, sizeof(nfd)) != sizeof(nfd))
		nfd = -1;
	close(fds[0]);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 && nfd >= 0, "load returns a listener fd (%d)", nfd);
	cv_seccomp_free(f);
}

/* ---- a JSON profile file -> oci_seccomp, for podman's default profile ----
 * The file holds a linux.seccomp object: it is parsed with the runtime's own
 * config.json parser inside a minimal config; the specs are freed at exit. */
static yajl_val jget(yajl_val o, const char *key)
{
	const char *path[] = { key, NULL };
	return yajl_tree_get(o, path, yajl_t_any);
}

static oci_spec *loaded_specs[8];
static size_t loaded_n;

static void free_loaded_specs(void)
{
	for (size_t i = 0; i < loaded_n; i++)
		oci_spec_free(loaded_specs[i]);
	loaded_n = 0;
}

static oci_seccomp *load_profile_json(const char *path)
{
	cleanup_error cv_error_t err = NULL;
	cleanup_free char *data = NULL, *doc = NULL;
	size_t len = 0;
	oci_spec *spec = NULL;

	if (loaded_n == sizeof(loaded_specs) / sizeof(loaded_specs[0]))
		return NULL;
	if (cv_read_file_at(AT_FDCWD, path, OCI_JSON_MAX_SIZE, CV_READ_REGULAR, &data, &len, &err) < 0)
		return NULL;
	if (asprintf(&doc, "{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\": %s}}", data) < 0)
		return NULL;
	if (oci_spec_parse(doc, strlen(doc), path, &spec, &err) < 0) {
		printf("# %s\n", err->msg);
		return NULL;
	}
	if (loaded_n == 0)
		atexit(free_loaded_specs);
	loaded_specs[loaded_n++] = spec;
	return spec->linux_->seccomp;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_podman_profile(void)
{
	/* the OCI form podman 4.3 generates from containers-common's profile */
	const char *path = getenv("CVISOR_SECCOMP_PROFILE")
				   ?: SRCDIR "/tests/integration/data/seccomp/podman-default.json";
	oci_seccomp *p = load_profile_json(path);
	struct cv_seccomp *f;
	double t0, t1;

	if (p == NULL) {
		ok(0, "read %s", path);
		return;
	}
	t0 = now_ms();
	f = compile_ok(p, "podman's default profile");
	t1 = now_ms();
	printf("# compiled %s in %.2f ms, %zu instructions\n", path, t1 - t0, f ? f->len : 0);
	if (!f)
		return;
	ok(verdict(f, SYS_getpid, 0, 0) == SECCOMP_RET_ALLOW, "podman: getpid allowed");
	ok(verdict(f, SYS_personality, 0, 0) == SECCOMP_RET_ALLOW, "podman: personality(0) allowed");
	ok(verdict(f, SYS_personality, 8, 0) == SECCOMP_RET_ALLOW, "podman: personality(PER_LINUX32) allowed");
	ok(verdict(f, SYS_personality, 1, 0) == RET_ERRNO(ENOSYS), "podman: personality(1) refused with ENOSYS");
	ok(verdict(f, SYS_kexec_load, 0, 0) == RET_ERRNO(EPERM), "podman: kexec_load EPERM");
	{
		struct seccomp_data d = { .nr = SYS_socket, .arch = AUDIT_ARCH_X86_64, .args = { 16, 3, 9 } };
		ok(bpf_run(f->insns, f->len, &d) == RET_ERRNO(EINVAL),
		   "podman: socket(AF_NETLINK, _, NETLINK_AUDIT) EINVAL");
		d.args[2] = 0;
		ok(bpf_run(f->insns, f->len, &d) == SECCOMP_RET_ALLOW, "podman: socket(AF_NETLINK, _, 0) allowed");
	}
	ok(verdict_arch(f, AUDIT_ARCH_I386, 20, 0, 0) == SECCOMP_RET_ALLOW, "podman: i386 getpid allowed (x86 listed)");
	cv_seccomp_free(f);
}

/* The library's half of SCMP_ACT_NOTIFY end to end: a child loads a filter
 * that notifies mkdir, hands the listener to the test agent with
 * cv_seccomp_send_listener, and sees the agent's answer. */
static void test_notify_agent(void)
{
	const char *agent = getenv("CVISOR_SECCOMP_AGENT") ?: BUILDDIR "/tests/integration/seccomp-agent";
	oci_seccomp_syscall sc = { .names = strv(0, "mkdir", NULL), .action = "SCMP_ACT_NOTIFY" };
	oci_seccomp p = { .default_action = "SCMP_ACT_ALLOW", .syscalls = &sc, .syscalls_len = 1 };
	char dir[] = "/tmp/cvisor-seccomp-agent-XXXXXX", sock[64], msgf[64], cmd[256], line[16] = "";
	struct cv_seccomp *f = compile_ok(&p, "notify profile for the agent");
	FILE *ready;
	pid_t pid;
	int status = -1;

	if (!f || access(agent, X_OK) < 0 || !mkdtemp(dir)) {
		ok(0, "agent %s available", agent);
		cv_seccomp_free(f);
		return;
	}
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(msgf, sizeof(msgf), "%s/msg", dir);
	snprintf(cmd, sizeof(cmd), "%s %s 17 %s", agent, sock, msgf);
	ready = popen(cmd, "re");
	if (!ready || !fgets(line, sizeof(line), ready)) {
		ok(0, "agent started");
		return;
	}
	pid = fork();
	if (pid == 0) {
		cleanup_error cv_error_t err = NULL;
		char state[256];
		int nfd;

		if (cv_seccomp_load(f, &nfd, &err) < 0 || nfd < 0)
			_exit(100);
		snprintf(
			state, sizeof(state),
			"{\"ociVersion\":\"1.3.0\",\"id\":\"unit\",\"status\":\"creating\",\"pid\":%d,\"bundle\":\"/\"}",
			(int)getpid());
		if (cv_seccomp_send_listener(sock, nfd, (int)getpid(), state, "meta \"quoted\"", &err) < 0)
			_exit(101);
		close(nfd);
		_exit(mkdir("/proc/cannot-create-here", 0755) < 0 ? errno : 0);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 17, "mkdir answered by the agent with errno 17 (status %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	ok(pclose(ready) == 0, "agent exits once the filter has no user");
	{
		cleanup_fclose FILE *mf = fopen(msgf, "re");
		char buf[4096] = "", errbuf[128];
		yajl_val root = NULL;
		if (mf && fread(buf, 1, sizeof(buf) - 1, mf) > 0)
			root = yajl_tree_parse(buf, errbuf, sizeof(errbuf));
		const char *fds_path[] = { "fds", NULL }, *st_id[] = { "state", "id", NULL };
		yajl_val fds = root ? yajl_tree_get(root, fds_path, yajl_t_array) : NULL;
		ok(root && fds && fds->u.array.len == 1 &&
			   strcmp(YAJL_GET_STRING(fds->u.array.values[0]) ?: "", "seccompFd") == 0 &&
			   YAJL_GET_INTEGER(jget(root, "pid")) == pid &&
			   strcmp(YAJL_GET_STRING(jget(root, "metadata")) ?: "", "meta \"quoted\"") == 0 &&
			   strcmp(YAJL_GET_STRING(jget(root, "ociVersion")) ?: "", "1.3.0") == 0 &&
			   strcmp(YAJL_GET_STRING(yajl_tree_get(root, st_id, yajl_t_string)) ?: "", "unit") == 0,
		   "containerProcessState message: %s", buf);
		if (root)
			yajl_tree_free(root);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		ok(0, "cleanup");
	cv_seccomp_free(f);
}

static int count_entries(const char *dir)
{
	cleanup_dir DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	return n;
}

/* The cache key's serialization is pinned: every field tagged, strings
 * length-prefixed, numbers in decimal, unset ones "-". A change would miss
 * every cached entry once, or worse, let two profiles share a key. */
static void test_cache_key(void)
{
	oci_seccomp_arg arg = { .index = 0, .value = UINT64_MAX, .op = "SCMP_CMP_EQ" };
	oci_seccomp_syscall sc = { .names = strv(0, "mount", NULL),
				   .action = "SCMP_ACT_ERRNO",
				   .errno_ret = { true, 1 },
				   .args = &arg,
				   .args_len = 1 };
	oci_seccomp p = { .default_action = "SCMP_ACT_ALLOW",
			  .architectures = strv(1, "SCMP_ARCH_X86_64", NULL),
			  .syscalls = &sc,
			  .syscalls_len = 1 };
	static const char want[] =
		"D14:SCMP_ACT_ALLOWe-A1;s16:SCMP_ARCH_X86_64F0;S1;N1;s5:mounta14:SCMP_ACT_ERRNOr1;G1;"
		"i0;v18446744073709551615;w-o11:SCMP_CMP_EQ";
	cleanup_free char *key = NULL;
	size_t len = 0;
	ok(cv_seccomp_cache_key(&p, &key, &len) == 0 && key && len == strlen(key), "a key is made");
	/* after the environment's field (cvisor, libseccomp, kernel) */
	ok(key && key[0] == 'E' && len > sizeof(want) - 1 && strcmp(key + len - (sizeof(want) - 1), want) == 0 &&
		   strstr(key, "cvisor ") == strchr(key, ':') + 1,
	   "its fields serialized as pinned (%s)", key ? key : "");
}

static void test_cache(void)
{
	const char *path = getenv("CVISOR_SECCOMP_PROFILE")
				   ?: SRCDIR "/tests/integration/data/seccomp/podman-default.json";
	oci_seccomp *p = load_profile_json(path);
	char dir[] = "/tmp/cvisor-seccomp-cache-XXXXXX";
	char cache[sizeof(dir) + 16], cmd[256];
	struct cv_seccomp *f1, *f2, *f3;
	double t0, t1, t2;

	if (!p || !mkdtemp(dir)) {
		ok(0, "cache test setup");
		return;
	}
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	cv_seccomp_set_cache_dir(cache);
	t0 = now_ms();
	f1 = compile_ok(p, "podman profile, cold cache");
	t1 = now_ms();
	f2 = compile_ok(p, "podman profile, warm cache");
	t2 = now_ms();
	printf("# podman profile: cold %.2f ms, cached %.2f ms\n", t1 - t0, t2 - t1);
	ok(count_entries(cache) == 1, "one cache entry written");
	ok(f1 && f2 && f1->len == f2->len && f1->flags == f2->flags &&
		   memcmp(f1->insns, f2->insns, f1->len * sizeof(*f1->insns)) == 0,
	   "cached program identical to the compiled one");
	ok(t2 - t1 < (t1 - t0) / 2, "cache hit is faster (%.2f vs %.2f ms)", t2 - t1, t1 - t0);

	/* a different profile must not hit the entry */
	p->default_errno_ret.v = EPERM;
	f3 = compile_ok(p, "changed profile");
	ok(f3 && f1 && verdict(f3, SYS_personality, 1, 0) == RET_ERRNO(EPERM) && count_entries(cache) == 2,
	   "changed profile compiled anew (new entry, new verdict)");
	p->default_errno_ret.v = ENOSYS;
	cv_seccomp_free(f3);

	/* corrupt entries are ignored and replaced */
	snprintf(cmd, sizeof(cmd), "for f in %s/*.bpf; do truncate -s -3 $f; done", cache);
	if (system(cmd) != 0)
		ok(0, "truncate entries");
	f3 = compile_ok(p, "truncated cache entry");
	ok(f3 && f1 && f3->len == f1->len && memcmp(f1->insns, f3->insns, f1->len * sizeof(*f1->insns)) == 0,
	   "truncated entry ignored, program recompiled");
	cv_seccomp_free(f3);

	/* a directory others can write to is not trusted: tamper with the
	 * program's last instruction, which a trusted lookup would return */
	snprintf(
		cmd, sizeof(cmd),
		"for f in %s/*.bpf; do printf 'XXXXXXXX' | dd of=$f bs=1 seek=$(($(stat -c %%s $f) - 8)) conv=notrunc status=none; done",
		cache);
	if (system(cmd) != 0)
		ok(0, "tamper with entries");
	chmod(cache, 0777);
	f3 = compile_ok(p, "cache directory with mode 0777");
	ok(f3 && f1 && f3->len == f1->len && memcmp(f1->insns, f3->insns, f1->len * sizeof(*f1->insns)) == 0,
	   "world-writable cache directory ignored");
	cv_seccomp_free(f3);
	chmod(cache, 0700);
	f3 = compile_ok(p, "tampered entry in a private directory");
	ok(f3 && f1 && memcmp(f1->insns, f3->insns, f1->len * sizeof(*f1->insns)) != 0,
	   "(control) the same entry is used once the directory is private");
	cv_seccomp_free(f3);

	cv_seccomp_free(f1);
	cv_seccomp_free(f2);
	cv_seccomp_set_cache_dir(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		ok(0, "cleanup %s", dir);
}

int main(void)
{
	/* keep the host's cache out of the translation tests */
	cv_seccomp_set_cache_dir(NULL);
	test_basic();
	test_actions();
	test_default_errno();
	test_args();
	test_arches();
	test_flags();
	test_errors();
	test_notify_load();
	test_podman_profile();
	test_cache_key();
	test_cache();
	test_notify_agent();
	printf("1..%d\n", t_num);
	return t_failed ? 1 : 0;
}
