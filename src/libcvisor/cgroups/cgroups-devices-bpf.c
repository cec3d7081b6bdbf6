/* cgroup v2 device control: v2 has no devices.allow/deny files; a
 * BPF_PROG_TYPE_CGROUP_DEVICE program attached to the container's cgroup
 * decides each open/mknod. We build the program by hand from the OCI rules:
 * the rules are checked last to first and the first match decides, which
 * gives the v1 list semantics "a later rule overrides an earlier one";
 * nothing matching means deny. */
#include "config.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroups/cgroups-internal.h"
#include "cleanup.h"
#include "log.h"

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define LDX_W(dst, src, off) INSN(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
#define ALU32_K(op, dst, imm) INSN(BPF_ALU | (op) | BPF_K, dst, 0, 0, imm)
#define MOV32_X(dst, src) INSN(BPF_ALU | BPF_MOV | BPF_X, dst, src, 0, 0)
#define MOV64_K(dst, imm) INSN(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define JMP_K(op, dst, imm, off) INSN(BPF_JMP | (op) | BPF_K, dst, 0, off, imm)
#define JMP_X(op, dst, src, off) INSN(BPF_JMP | (op) | BPF_X, dst, src, off, 0)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* Registers after the prologue: r2 = device type, r3 = requested access,
 * r4 = major, r5 = minor (struct bpf_cgroup_dev_ctx). */
static const struct bpf_insn prologue[] = {
	LDX_W(BPF_REG_2, BPF_REG_1, 0),  ALU32_K(BPF_AND, BPF_REG_2, 0xffff), LDX_W(BPF_REG_3, BPF_REG_1, 0),
	ALU32_K(BPF_RSH, BPF_REG_3, 16), LDX_W(BPF_REG_4, BPF_REG_1, 4),      LDX_W(BPF_REG_5, BPF_REG_1, 8),
};

static int access_mask(const char *a)
{
	int m = 0;

	if (!a || !*a)
		return BPF_DEVCG_ACC_MKNOD | BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE;
	for (; *a; a++) {
		switch (*a) {
		case 'r':
			m |= BPF_DEVCG_ACC_READ;
			break;
		case 'w':
			m |= BPF_DEVCG_ACC_WRITE;
			break;
		case 'm':
			m |= BPF_DEVCG_ACC_MKNOD;
			break;
		default:
			return -1;
		}
	}
	return m;
}

/* Emits one rule's block into blk; returns its length, and sets *uncond when
 * it matches every request (nothing after it can run). */
static int rule_block(const oci_device_cgroup *r, struct bpf_insn *blk, bool *uncond, cv_error_t *err)
{
	const char *type = r->type && *r->type ? r->type : "a";
	int mask = access_mask(r->access);
	int n = 0, jumps[4], nj = 0;
	const int all = BPF_DEVCG_ACC_MKNOD | BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE;
	bool any_type = strcmp(type, "a") == 0;

	if (mask < 0)
		return cv_error(err, EINVAL, "invalid access \"%s\" (expected a subset of rwm)", r->access);
	if (!any_type && strcmp(type, "c") != 0 && strcmp(type, "b") != 0)
		return cv_error(err, EINVAL, "invalid type \"%s\" (expected a, b or c)", type);
	if (!any_type) {
		jumps[nj++] = n;
		blk[n++] = JMP_K(BPF_JNE, BPF_REG_2, type[0] == 'c' ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK, 0);
	}
	if (mask != all) {
		blk[n++] = MOV32_X(BPF_REG_1, BPF_REG_3);
		blk[n++] = ALU32_K(BPF_AND, BPF_REG_1, mask);
		jumps[nj++] = n;
		/* allow: every requested bit granted; deny: any requested bit denied */
		blk[n++] = r->allow ? JMP_X(BPF_JNE, BPF_REG_1, BPF_REG_3, 0) : JMP_K(BPF_JEQ, BPF_REG_1, 0, 0);
	}
	if (!any_type && r->major.set && r->major.v >= 0) {
		jumps[nj++] = n;
		blk[n++] = JMP_K(BPF_JNE, BPF_REG_4, (int32_t)r->major.v, 0);
	}
	if (!any_type && r->minor.set && r->minor.v >= 0) {
		jumps[nj++] = n;
		blk[n++] = JMP_K(BPF_JNE, BPF_REG_5, (int32_t)r->minor.v, 0);
	}
	blk[n++] = MOV64_K(BPF_REG_0, r->allow ? 1 : 0);
	blk[n++] = EXIT();
	for (int i = 0; i < nj; i++)
		blk[jumps[i]].off = (int16_t)(n - jumps[i] - 1);
	*uncond = nj == 0;
	return n;
}

int cv_cg_devices_bpf_build(const oci_device_cgroup *rules, size_t n, const oci_device_cgroup *extra, size_t n_extra,
			    struct cv_bpf_insn_buf *out, cv_error_t *err)
{
	size_t total = n + n_extra, cap = sizeof(prologue) / sizeof(prologue[0]) + total * 8 + 2, len = 0;
	struct bpf_insn *p;
	bool uncond = false;

	if (total > 4096)
		return cv_error(err, E2BIG, "too many device rules (%zu)", total);
	p = calloc(cap, sizeof(*p));
	if (!p)
		return cv_error(err, ENOMEM, "device program");
	memcpy(p, prologue, sizeof(prologue));
	len = sizeof(prologue) / sizeof(prologue[0]);
	for (size_t k = total; k-- > 0 && !uncond;) {
		const oci_device_cgroup *r = k >= n ? &extra[k - n] : &rules[k];
		int m = rule_block(r, p + len, &uncond, err);
		if (m < 0) {
			free(p);
			return cv_error_prefix(err, "device rule %zu", k);
		}
		len += m;
	}
	if (!uncond) {
		p[len++] = MOV64_K(BPF_REG_0, 0);
		p[len++] = EXIT();
	}
	out->insns = p;
	out->n = len;
	return 0;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int cv_cg_devices_bpf_attach(int dirfd, const oci_device_cgroup *rules, size_t n, const oci_device_cgroup *extra,
			     size_t n_extra, cv_error_t *err)
{
	struct cv_bpf_insn_buf prog = { 0 };
	cleanup_close int progfd = -1;
	union bpf_attr attr;
	static const char license[] = "Apache-2.0";
	int r;

	if (cv_cg_devices_bpf_build(rules, n, extra, n_extra, &prog, err) < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (uintptr_t)prog.insns;
	attr.insn_cnt = (uint32_t)prog.n;
	attr.license = (uintptr_t)license;
	progfd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (progfd < 0) {
		/* Load again with the verifier log, for a useful message. */
		char log[1024] = "";
		int e = errno;
		attr.log_buf = (uintptr_t)log;
		attr.log_size = sizeof(log);
		attr.log_level = 1;
		r = sys_bpf(BPF_PROG_LOAD, &attr);
		if (r >= 0)
			(void)close(r);
		free(prog.insns);
		log[sizeof(log) - 1] = '\0';
		for (char *c = log; *c; c++)
			if (*c == '\n')
				*c = ' ';
		return cv_error(err, e, "load the device cgroup program%s%s", *log ? " (verifier: " : "",
				*log ? log : "");
	}
	free(prog.insns);
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = dirfd;
	attr.attach_bpf_fd = progfd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	if (sys_bpf(BPF_PROG_ATTACH, &attr) < 0)
		return cv_error_errno(err, "attach the device cgroup program");
	return 0;
}
