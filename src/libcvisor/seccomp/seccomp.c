/* OCI seccomp profile -> classic BPF program.
 *
 * libseccomp does the translation; the program is then exported once into
 * memory so the container process only has to call seccomp(2) on a ready
 * buffer right before execve (no allocation, no libseccomp in the child). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"
#include "seccomp/seccomp-filter.h"
#include "seccomp/seccomp-internal.h"

#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#define FIELD "linux.seccomp"

static void scmp_ctx_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}
#define cleanup_scmp __attribute__((cleanup(scmp_ctx_releasep)))

static const struct {
	const char *name;
	uint32_t arch;
} arch_table[] = {
	{ "SCMP_ARCH_X86", SCMP_ARCH_X86 },
	{ "SCMP_ARCH_X86_64", SCMP_ARCH_X86_64 },
	{ "SCMP_ARCH_X32", SCMP_ARCH_X32 },
	{ "SCMP_ARCH_ARM", SCMP_ARCH_ARM },
	{ "SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64 },
	{ "SCMP_ARCH_MIPS", SCMP_ARCH_MIPS },
	{ "SCMP_ARCH_MIPS64", SCMP_ARCH_MIPS64 },
	{ "SCMP_ARCH_MIPS64N32", SCMP_ARCH_MIPS64N32 },
	{ "SCMP_ARCH_MIPSEL", SCMP_ARCH_MIPSEL },
	{ "SCMP_ARCH_MIPSEL64", SCMP_ARCH_MIPSEL64 },
	{ "SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32 },
	{ "SCMP_ARCH_PPC", SCMP_ARCH_PPC },
	{ "SCMP_ARCH_PPC64", SCMP_ARCH_PPC64 },
	{ "SCMP_ARCH_PPC64LE", SCMP_ARCH_PPC64LE },
	{ "SCMP_ARCH_S390", SCMP_ARCH_S390 },
	{ "SCMP_ARCH_S390X", SCMP_ARCH_S390X },
	{ "SCMP_ARCH_PARISC", SCMP_ARCH_PARISC },
	{ "SCMP_ARCH_PARISC64", SCMP_ARCH_PARISC64 },
	{ "SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64 },
};

static const struct {
	const char *name;
	unsigned long flag;
} flag_table[] = {
	{ "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
	{ "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG },
	{ "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
	{ "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV },
};

static const struct {
	const char *name;
	enum scmp_compare op;
} op_table[] = {
	{ "SCMP_CMP_NE", SCMP_CMP_NE },
	{ "SCMP_CMP_LT", SCMP_CMP_LT },
	{ "SCMP_CMP_LE", SCMP_CMP_LE },
	{ "SCMP_CMP_EQ", SCMP_CMP_EQ },
	{ "SCMP_CMP_GE", SCMP_CMP_GE },
	{ "SCMP_CMP_GT", SCMP_CMP_GT },
	{ "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
};

static long sys_seccomp(unsigned int op, unsigned int flags, void *args)
{
	return syscall(SYS_seccomp, op, flags, args);
}

int cv_seccomp_arch_from_name(const char *name, uint32_t *arch)
{
	for (size_t i = 0; i < sizeof(arch_table) / sizeof(arch_table[0]); i++)
		if (strcmp(arch_table[i].name, name) == 0) {
			*arch = arch_table[i].arch;
			return 0;
		}
	return -1;
}

int cv_seccomp_flag_from_name(const char *name, unsigned long *flag)
{
	for (size_t i = 0; i < sizeof(flag_table) / sizeof(flag_table[0]); i++)
		if (strcmp(flag_table[i].name, name) == 0) {
			*flag = flag_table[i].flag;
			return 0;
		}
	return -1;
}

int cv_seccomp_op_from_name(const char *name, int *op)
{
	for (size_t i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++)
		if (strcmp(op_table[i].name, name) == 0) {
			*op = op_table[i].op;
			return 0;
		}
	return -1;
}

/* errno_ret only matters for ERRNO (the errno) and TRACE (the value the
 * tracer sees); elsewhere it is an error, as with runc. */
int cv_seccomp_action_from_name(const char *name, const oci_opt_u32 *errno_ret, uint32_t *action, const char *field,
				cv_error_t *err)
{
	uint32_t ret = errno_ret && errno_ret->set ? errno_ret->v : EPERM;
	bool takes_ret = false;

	if (name == NULL)
		return cv_error(err, 0, "%s: missing action", field);
	if (strcmp(name, "SCMP_ACT_KILL") == 0 || strcmp(name, "SCMP_ACT_KILL_THREAD") == 0)
		*action = SCMP_ACT_KILL_THREAD;
	else if (strcmp(name, "SCMP_ACT_KILL_PROCESS") == 0)
		*action = SCMP_ACT_KILL_PROCESS;
	else if (strcmp(name, "SCMP_ACT_TRAP") == 0)
		*action = SCMP_ACT_TRAP;
	else if (strcmp(name, "SCMP_ACT_ERRNO") == 0) {
		*action = SCMP_ACT_ERRNO(ret);
		takes_ret = true;
	} else if (strcmp(name, "SCMP_ACT_TRACE") == 0) {
		*action = SCMP_ACT_TRACE(ret);
		takes_ret = true;
	} else if (strcmp(name, "SCMP_ACT_ALLOW") == 0)
		*action = SCMP_ACT_ALLOW;
	else if (strcmp(name, "SCMP_ACT_LOG") == 0)
		*action = SCMP_ACT_LOG;
	else if (strcmp(name, "SCMP_ACT_NOTIFY") == 0)
		*action = SCMP_ACT_NOTIFY;
	else
		return cv_error(err, 0, "%s: unknown action \"%s\"", field, name);
	if (errno_ret && errno_ret->set && !takes_ret)
		return cv_error(err, 0, "%s: errnoRet is only valid with SCMP_ACT_ERRNO and SCMP_ACT_TRACE, not %s",
				field, name);
	if (takes_ret && ret > 0xffff)
		return cv_error(err, 0, "%s: errnoRet %" PRIu32 " out of range (0-65535)", field, ret);
	return 0;
}

static int add_rule(scmp_filter_ctx ctx, const oci_seccomp_syscall *sc, size_t idx, const char *name, int nr,
		    uint32_t action, const struct scmp_arg_cmp *cmps, cv_error_t *err)
{
	int r;
	unsigned int counts[6] = { 0 };
	bool split = false;

	for (size_t i = 0; i < sc->args_len; i++)
		if (++counts[sc->args[i].index] > 1)
			split = true;

	if (!split) {
		r = seccomp_rule_add_array(ctx, action, nr, sc->args_len, cmps);
		if (r < 0)
			return cv_error(err, -r, FIELD ".syscalls[%zu]: add rule for `%s`", idx, name);
		return 0;
	}
	/* libseccomp cannot AND two comparisons on one argument: like runc,
	 * fall back to one rule per comparison (ORed). */
	for (size_t i = 0; i < sc->args_len; i++) {
		r = seccomp_rule_add_array(ctx, action, nr, 1, &cmps[i]);
		if (r < 0)
			return cv_error(err, -r, FIELD ".syscalls[%zu]: add rule for `%s`", idx, name);
	}
	return 0;
}

static int add_syscalls(scmp_filter_ctx ctx, const oci_seccomp *p, uint32_t default_action, bool *has_notify,
			cv_error_t *err)
{
	for (size_t i = 0; i < p->syscalls_len; i++) {
		const oci_seccomp_syscall *sc = &p->syscalls[i];
		struct scmp_arg_cmp cmps[sc->args_len ? sc->args_len : 1];
		char field[64];
		uint32_t action;
		int r;

		snprintf(field, sizeof(field), FIELD ".syscalls[%zu].action", i);
		r = cv_seccomp_action_from_name(sc->action, &sc->errno_ret, &action, field, err);
		if (r < 0)
			return r;
		if (sc->args_len > 6)
			return cv_error(err, 0, FIELD ".syscalls[%zu].args: %zu conditions, at most 6", i,
					sc->args_len);
		for (size_t j = 0; j < sc->args_len; j++) {
			const oci_seccomp_arg *a = &sc->args[j];
			int op;

			if (a->index > 5)
				return cv_error(err, 0,
						FIELD ".syscalls[%zu].args[%zu].index: %" PRIu32 " out of range (0-5)",
						i, j, a->index);
			if (a->op == NULL || cv_seccomp_op_from_name(a->op, &op) < 0)
				return cv_error(err, 0, FIELD ".syscalls[%zu].args[%zu].op: unknown operator \"%s\"", i,
						j, a->op ? a->op : "");
			cmps[j] = (struct scmp_arg_cmp){ .arg = a->index,
							 .op = op,
							 .datum_a = a->value,
							 .datum_b = a->value_two.set ? a->value_two.v : 0 };
		}
		if (action == default_action) {
			cv_debug("seccomp: %s: action equals the default action, skipped", field);
			continue;
		}
		if (action == SCMP_ACT_NOTIFY)
			*has_notify = true;
		for (size_t n = 0; n < sc->names.len; n++) {
			const char *name = sc->names.v[n];
			int nr = seccomp_syscall_resolve_name(name);

			/* The runtime writes the listener fd number to its parent after
			 * loading: notifying write would hang it (runc refuses it too). */
			if (action == SCMP_ACT_NOTIFY && strcmp(name, "write") == 0)
				return cv_error(err, 0,
						FIELD ".syscalls[%zu]: SCMP_ACT_NOTIFY cannot be used for `write`: the "
						      "runtime needs it to hand the listener over",
						i);
			if (nr == __NR_SCMP_ERROR) {
				cv_debug("seccomp: unknown syscall `%s`, skipped", name);
				continue;
			}
			r = add_rule(ctx, sc, i, name, nr, action, cmps, err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* seccomp(SECCOMP_SET_MODE_FILTER, flag, NULL) fails with EFAULT when the
 * kernel knows the flag (it got as far as reading the program), EINVAL when
 * it does not. */
static bool kernel_has_flag(unsigned long flag)
{
	return sys_seccomp(SECCOMP_SET_MODE_FILTER, flag, NULL) < 0 && errno == EFAULT;
}

static int parse_flags(const oci_seccomp *p, unsigned int *flags, cv_error_t *err)
{
	*flags = 0;
	for (size_t i = 0; i < p->flags.len; i++) {
		unsigned long f;

		if (cv_seccomp_flag_from_name(p->flags.v[i], &f) < 0)
			return cv_error(err, 0, FIELD ".flags[%zu]: unknown flag \"%s\"", i, p->flags.v[i]);
		/* WAIT_KILLABLE_RECV is only accepted together with a listener. */
		if (!kernel_has_flag(f == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV ? f | SECCOMP_FILTER_FLAG_NEW_LISTENER
										 : f))
			return cv_error(err, EINVAL, FIELD ".flags[%zu]: %s is not supported by the running kernel", i,
					p->flags.v[i]);
		*flags |= f;
	}
	return 0;
}

/* Exports the compiled program into a memfd and reads it back: libseccomp
 * 2.5 has no in-memory export. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_filter **out, size_t *len, cv_error_t *err)
{
	cleanup_close int fd = memfd_create("cvisor-seccomp", MFD_CLOEXEC);
	cleanup_free struct sock_filter *buf = NULL;
	struct stat st;
	int r;

	if (fd < 0)
		return cv_error_errno(err, "memfd_create");
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		return cv_error(err, -r, "seccomp_export_bpf");
	if (fstat(fd, &st) < 0)
		return cv_error_errno(err, "fstat seccomp memfd");
	if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0 ||
	    st.st_size / sizeof(struct sock_filter) > BPF_MAXINSNS)
		return cv_error(err, EINVAL, "seccomp filter has an invalid size %jd bytes (at most %d instructions)",
				(intmax_t)st.st_size, BPF_MAXINSNS);
	buf = malloc(st.st_size);
	if (buf == NULL)
		return cv_error(err, ENOMEM, "allocate seccomp filter");
	for (off_t off = 0; off < st.st_size;) {
		ssize_t n = pread(fd, (char *)buf + off, st.st_size - off, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return cv_error(err, n < 0 ? errno : EIO, "read seccomp memfd");
		off += n;
	}
	*len = st.st_size / sizeof(struct sock_filter);
	*out = steal_pointer(&buf);
	return 0;
}

int cv_seccomp_compile(const oci_seccomp *p, struct cv_seccomp **out, cv_error_t *err)
{
	cleanup_scmp scmp_filter_ctx ctx = NULL;
	cleanup_free struct cv_seccomp *f = NULL;
	cleanup_free char *key = NULL;
	size_t key_len = 0;
	uint32_t default_action;
	bool has_notify = false;
	int r;

	*out = NULL;
	if (p == NULL)
		return 0;

	r = cv_seccomp_action_from_name(p->default_action, &p->default_errno_ret, &default_action,
					FIELD ".defaultAction", err);
	if (r < 0)
		return r;
	if (default_action == SCMP_ACT_NOTIFY)
		return cv_error(err, 0, FIELD ".defaultAction: SCMP_ACT_NOTIFY cannot be the default action");

	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return cv_error(err, ENOMEM, "allocate seccomp filter");
	r = parse_flags(p, &f->flags, err);
	if (r < 0)
		return r;

	r = cv_seccomp_cache_key(p, &key, &key_len);
	if (r < 0)
		return cv_error(err, -r, FIELD ": cache key");
	r = cv_seccomp_cache_lookup(key, key_len, f);
	if (r == 0) {
		*out = steal_pointer(&f);
		return 0;
	}
	if (r != -ENOENT)
		cv_debug("seccomp cache: entry unusable (%s), recompiling", strerror(-r));

	ctx = seccomp_init(default_action);
	if (ctx == NULL)
		return cv_error(err, EINVAL, FIELD ": seccomp_init failed");
	/* Binary-tree dispatch keeps long profiles fast at syscall time;
	 * libseccomp 2.5.4 misbehaves with it on near-empty filters, hence
	 * the threshold (runc uses the same). */
	if (p->syscalls_len > 32) {
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
		if (r < 0)
			cv_debug("seccomp: binary tree optimization unavailable: %s", strerror(-r));
	}
	for (size_t i = 0; i < p->architectures.len; i++) {
		uint32_t arch;

		if (cv_seccomp_arch_from_name(p->architectures.v[i], &arch) < 0)
			return cv_error(err, 0, FIELD ".architectures[%zu]: unknown architecture \"%s\"", i,
					p->architectures.v[i]);
		r = seccomp_arch_add(ctx, arch);
		if (r < 0 && r != -EEXIST)
			return cv_error(err, -r, FIELD ".architectures[%zu]: add %s", i, p->architectures.v[i]);
	}

	r = add_syscalls(ctx, p, default_action, &has_notify, err);
	if (r < 0)
		return r;

	r = export_bpf(ctx, &f->insns, &f->len, err);
	if (r < 0)
		return cv_error_prefix(err, FIELD);
	f->has_notify = has_notify;
	if (!has_notify && (f->flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)) {
		cv_debug("seccomp: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV without SCMP_ACT_NOTIFY rules has no effect");
		f->flags &= ~SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	}
	if (has_notify) {
		f->flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
		/* TSYNC and NEW_LISTENER together need TSYNC_ESRCH (5.7+). */
		if (f->flags & SECCOMP_FILTER_FLAG_TSYNC)
			f->flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
	}
	r = cv_seccomp_cache_store(key, key_len, f);
	if (r < 0)
		cv_debug("seccomp cache: store failed: %s", strerror(-r));
	*out = steal_pointer(&f);
	return 0;
}

bool cv_seccomp_has_notify(const struct cv_seccomp *f)
{
	return f && f->has_notify;
}

int cv_seccomp_load(const struct cv_seccomp *f, int *notify_fd, cv_error_t *err)
{
	struct sock_fprog prog;
	long r;

	if (notify_fd)
		*notify_fd = -1;
	if (f == NULL)
		return 0;
	prog.len = (unsigned short)f->len;
	prog.filter = f->insns;
	r = sys_seccomp(SECCOMP_SET_MODE_FILTER, f->flags, &prog);
	if (r < 0)
		return cv_error_errno(err, "load seccomp filter (%zu instructions)", f->len);
	if (f->has_notify) {
		if (notify_fd)
			*notify_fd = (int)r;
		else
			(void)close((int)r); /* caller does not want the listener */
	}
	return 0;
}

void cv_seccomp_free(struct cv_seccomp *f)
{
	if (f == NULL)
		return;
	free(f->insns);
	free(f);
}
