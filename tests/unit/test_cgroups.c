/* Unit tests of the cgroup manager's pure parts: value conversions, cgroup
 * paths, systemd paths, device rules and the device program's shape. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups/cgroups-internal.h"
#include "tap.h"

static void conversions(void)
{
	ok(cv_cg_shares_to_weight(0) == 0, "shares 0 (unset) -> weight 0");
	ok(cv_cg_shares_to_weight(2) == 1, "shares 2 -> weight 1");
	ok(cv_cg_shares_to_weight(1024) == 39, "shares 1024 -> weight 39 (runc's linear mapping)");
	ok(cv_cg_shares_to_weight(262144) == 10000, "shares 262144 -> weight 10000");
	ok(cv_cg_shares_to_weight(1) == 1, "shares below the range clamp to weight 1");
	ok(cv_cg_shares_to_weight(1000000) == 10000, "shares above the range clamp to 10000");
	ok(cv_cg_blkio_to_io_weight(0) == 0, "blkio weight 0 (unset) -> 0");
	ok(cv_cg_blkio_to_io_weight(10) == 1, "blkio weight 10 -> io.weight 1");
	ok(cv_cg_blkio_to_io_weight(500) == 4950, "blkio weight 500 -> io.weight 4950");
	ok(cv_cg_blkio_to_io_weight(1000) == 10000, "blkio weight 1000 -> io.weight 10000");

	int64_t out = 42;
	cv_error_t err = NULL;
	ok(cv_cg_swap_to_v2(0, -1, &out, &err) == 0 && out == -1, "swap unset with unlimited memory -> max");
	ok(cv_cg_swap_to_v2(-1, 100, &out, &err) == 0 && out == -1, "swap -1 -> max");
	ok(cv_cg_swap_to_v2(0, 100, &out, &err) == 0 && out == 0, "swap 0 stays 0");
	ok(cv_cg_swap_to_v2(300, 100, &out, &err) == 0 && out == 200, "swap 300 with limit 100 -> swap.max 200");
	ok(cv_cg_swap_to_v2(100, 100, &out, &err) == 0 && out == 0, "swap == limit -> no swap");
	ok(cv_cg_swap_to_v2(50, 100, &out, &err) < 0 && err && strstr(err->msg, "must be at least"),
	   "swap below limit is refused: %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_cg_swap_to_v2(300, 0, &out, &err) < 0 && err && strstr(err->msg, "needs a memory limit"),
	   "swap without a limit is refused");
	cv_error_release(&err);
	ok(cv_cg_swap_to_v2(300, -1, &out, &err) < 0, "swap with unlimited memory is refused");
	cv_error_release(&err);

	char buf[128];
	cv_cg_fmt_max(-1, buf, sizeof(buf));
	is_str(buf, "max", "-1 -> max");
	cv_cg_fmt_max(1048576, buf, sizeof(buf));
	is_str(buf, "1048576", "number stays");
	cv_cg_fmt_pids(0, buf, sizeof(buf));
	is_str(buf, "max", "pids 0 -> max");
	cv_cg_fmt_pids(-1, buf, sizeof(buf));
	is_str(buf, "max", "pids -1 -> max");
	cv_cg_fmt_pids(64, buf, sizeof(buf));
	is_str(buf, "64", "pids 64");

	cv_cg_fmt_cpu_max(true, 50000, true, 100000, NULL, 0, buf, sizeof(buf));
	is_str(buf, "50000 100000", "cpu.max quota+period");
	cv_cg_fmt_cpu_max(true, 20000, false, 0, NULL, 0, buf, sizeof(buf));
	is_str(buf, "20000 100000", "cpu.max quota alone: default period");
	cv_cg_fmt_cpu_max(true, -1, true, 50000, NULL, 0, buf, sizeof(buf));
	is_str(buf, "max 50000", "cpu.max unlimited quota");
	cv_cg_fmt_cpu_max(false, 0, true, 200000, "30000", 100000, buf, sizeof(buf));
	is_str(buf, "30000 200000", "cpu.max period alone keeps the current quota");
	cv_cg_fmt_cpu_max(true, 10000, false, 0, "max", 250000, buf, sizeof(buf));
	is_str(buf, "10000 250000", "cpu.max quota alone keeps the current period");
}

static void device_rules(void)
{
	char buf[64];
	cv_error_t err = NULL;
	oci_device_cgroup r = { .allow = true,
				.type = "c",
				.major = { true, 1 },
				.minor = { true, 3 },
				.access = "rwm" };

	ok(cv_cg_fmt_device_rule(&r, buf, sizeof(buf), &err) == 0, "format c 1:3");
	is_str(buf, "c 1:3 rwm", "char device rule");
	r.minor.set = false;
	r.access = "r";
	cv_cg_fmt_device_rule(&r, buf, sizeof(buf), &err);
	is_str(buf, "c 1:* r", "wildcard minor");
	r = (oci_device_cgroup){ .allow = false, .access = "rwm" };
	cv_cg_fmt_device_rule(&r, buf, sizeof(buf), &err);
	is_str(buf, "a *:* rwm", "type defaults to all");
	r = (oci_device_cgroup){ .allow = true, .type = "b", .major = { true, 8 }, .minor = { true, 0 } };
	cv_cg_fmt_device_rule(&r, buf, sizeof(buf), &err);
	is_str(buf, "b 8:0 rwm", "access defaults to rwm");
	r.access = "rx";
	ok(cv_cg_fmt_device_rule(&r, buf, sizeof(buf), &err) < 0 && strstr(err->msg, "invalid access"),
	   "bad access refused: %s", err ? err->msg : "");
	cv_error_release(&err);
	r.access = "r";
	r.type = "z";
	ok(cv_cg_fmt_device_rule(&r, buf, sizeof(buf), &err) < 0 && strstr(err->msg, "invalid type"),
	   "bad type refused");
	cv_error_release(&err);

	oci_rdma rd = { .device = "mlx5_1", .hca_handles = { true, 3 }, .hca_objects = { true, 10000 } };
	ok(cv_cg_fmt_rdma(&rd, buf, sizeof(buf), &err) == 0, "rdma line");
	is_str(buf, "mlx5_1 hca_handle=3 hca_object=10000", "rdma both fields");
	rd.hca_handles.set = false;
	cv_cg_fmt_rdma(&rd, buf, sizeof(buf), &err);
	is_str(buf, "mlx5_1 hca_object=10000", "rdma one field");
	rd.device = "../x";
	ok(cv_cg_fmt_rdma(&rd, buf, sizeof(buf), &err) < 0, "rdma device with / refused");
	cv_error_release(&err);

	ok(cv_cg_valid_page_size("2MB") && cv_cg_valid_page_size("1GB") && cv_cg_valid_page_size("64KB"),
	   "page sizes 2MB 1GB 64KB");
	ok(!cv_cg_valid_page_size("2mb") && !cv_cg_valid_page_size("MB") && !cv_cg_valid_page_size("2MB/../x") &&
		   !cv_cg_valid_page_size("02MB") && !cv_cg_valid_page_size(NULL),
	   "bad page sizes refused");
	ok(cv_cg_valid_unified_key("memory.high") && !cv_cg_valid_unified_key("../memory.high") &&
		   !cv_cg_valid_unified_key("") && !cv_cg_valid_unified_key(".hidden"),
	   "unified keys are single file names");
}

static void check_path(const char *own, const char *cp, const char *id, const char *want)
{
	char *out = NULL;
	cv_error_t err = NULL;
	int r = cv_cg_resolve_path(own, cp, id, &out, &err);

	if (want)
		is_str(r == 0 ? out : (err ? err->msg : "?"), want, "path own=%s cgroupsPath=%s id=%s", own,
		       cp ? cp : "(null)", id ? id : "(null)");
	else
		ok(r < 0 && err && err->msg, "path own=%s cgroupsPath=%s refused: %s", own, cp ? cp : "(null)",
		   err ? err->msg : "");
	free(out);
	cv_error_release(&err);
}

static void paths(void)
{
	check_path("/", NULL, "c1", "c1");
	check_path("/", "", "c1", "c1");
	check_path("/user/abc", NULL, "c1", "user/abc/c1");
	check_path("/user/abc", "pod/x", "c1", "user/abc/pod/x");
	check_path("/user/abc", "/machine/c1", "c1", "machine/c1");
	check_path("/user//abc/", "a//b/", "c1", "user/abc/a/b");
	check_path("/", "/", "c1", NULL);
	check_path("/", "/a/../b", "c1", NULL);
	check_path("/", "a/./b", "c1", NULL);
	check_path("/x", "..", "c1", NULL);
	check_path("/x", NULL, "..", NULL);
}

static void systemd_paths(void)
{
	struct cv_cg_systemd_path p;
	cv_error_t err = NULL;

	ok(cv_cg_systemd_parse("machine.slice:libpod:abc", "id", &p, &err) == 0, "systemd path parses");
	is_str(p.slice, "machine.slice", "slice");
	is_str(p.prefix, "libpod", "prefix");
	is_str(p.name, "abc", "name");
	is_str(p.unit, "libpod-abc.scope", "unit");
	cv_cg_systemd_path_clear(&p);
	ok(cv_cg_systemd_parse(":cri:x", "id", &p, &err) == 0, "empty slice");
	is_str(p.slice, "system.slice", "empty slice -> system.slice");
	cv_cg_systemd_path_clear(&p);
	ok(cv_cg_systemd_parse("user.slice:p:my.scope", "id", &p, &err) == 0, "name with .scope");
	is_str(p.unit, "my.scope", "name ending in .scope is the unit");
	cv_cg_systemd_path_clear(&p);
	ok(cv_cg_systemd_parse(NULL, "c9", &p, &err) == 0, "default systemd path");
	is_str(p.unit, "cvisor-c9.scope", "default unit");
	cv_cg_systemd_path_clear(&p);
	ok(cv_cg_systemd_parse("machine.slice:libpod", "id", &p, &err) < 0 && strstr(err->msg, "slice:prefix:name"),
	   "two fields refused: %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_cg_systemd_parse("machine:libpod:x", "id", &p, &err) < 0, "slice without .slice refused");
	cv_error_release(&err);
	ok(cv_cg_systemd_parse("a.slice:p:../x", "id", &p, &err) < 0, "name with / refused");
	cv_error_release(&err);
	ok(cv_cg_systemd_parse("a.slice:p:", "id", &p, &err) < 0, "empty name refused");
	cv_error_release(&err);
	ok(cv_cg_systemd_parse("a.slice:p:x:y", "id", &p, &err) < 0, "four fields refused");
	cv_error_release(&err);
}

static void bpf_program(void)
{
	struct cv_bpf_insn_buf b = { 0 };
	cv_error_t err = NULL;
	oci_device_cgroup deny_all = { .allow = false, .access = "rwm" };
	oci_device_cgroup allow_null = { .allow = true,
					 .type = "c",
					 .major = { true, 1 },
					 .minor = { true, 3 },
					 .access = "rw" };
	oci_device_cgroup allow_all = { .allow = true, .access = "rwm" };
	oci_device_cgroup rules[] = { deny_all, allow_null };
	struct bpf_insn *in;

	ok(cv_cg_devices_bpf_build(rules, 2, NULL, 0, &b, &err) == 0, "build deny-all + allow null");
	in = b.insns;
	/* prologue 6, allow_null: type, access(3), major, minor, mov, exit = 8;
	 * deny-all is unconditional: mov, exit. */
	ok(b.n == 16, "program length %zu == 16", b.n);
	ok(in[b.n - 1].code == (BPF_JMP | BPF_EXIT) && in[b.n - 2].imm == 0, "ends with deny");
	ok(in[6].code == (BPF_JMP | BPF_JNE | BPF_K) && in[6].imm == BPF_DEVCG_DEV_CHAR && in[6].off == 7,
	   "type check skips the rule block");
	free(b.insns);

	oci_device_cgroup rules2[] = { allow_all, deny_all };
	ok(cv_cg_devices_bpf_build(rules2, 2, cv_cg_default_device_rules, cv_cg_default_device_rules_len, &b, &err) ==
		   0,
	   "build with defaults");
	in = b.insns;
	ok(in[b.n - 1].code == (BPF_JMP | BPF_EXIT) && in[b.n - 2].imm == 0,
	   "a later deny-all stops the program before the earlier allow-all");
	free(b.insns);

	oci_device_cgroup bad = { .allow = true, .type = "q", .access = "r" };
	ok(cv_cg_devices_bpf_build(&bad, 1, NULL, 0, &b, &err) < 0 && strstr(err->msg, "device rule 0"),
	   "bad rule refused: %s", err ? err->msg : "");
	cv_error_release(&err);
}

/* org.cvisor.cgroup.controllers: names, bits, and resources the list leaves out */
static void parse_msg(const char *value, const char *want)
{
	uint32_t mask = 0;
	cv_error_t err = NULL;
	int r = cv_cgroup_controllers_parse(value, &mask, &err);

	is_str(r < 0 && err ? err->msg : "(accepted)", want, "controllers \"%s\" refused", value);
	cv_error_release(&err);
}

static uint32_t bits_of(const char *names)
{
	uint32_t m = 0;

	for (unsigned b = 0; cv_cgroup_controller_name(b); b++) {
		const char *n = cv_cgroup_controller_name(b);
		for (const char *p = names; *p;) {
			size_t l = strcspn(p, " ");
			if (l == strlen(n) && strncmp(p, n, l) == 0)
				m |= 1u << b;
			p += l + (p[l] == ' ');
		}
	}
	return m;
}

static void check_msg(const char *value, const oci_resources *r, enum cv_cgroup_layout layout, const char *want)
{
	uint32_t mask = 0;
	cv_error_t err = NULL;
	int rc = cv_cgroup_controllers_parse(value, &mask, &err);

	if (rc == 0)
		rc = cv_cgroup_controllers_check(value, mask, r, layout, &err);
	if (want)
		is_str(rc < 0 && err ? err->msg : "(accepted)", want, "controllers \"%s\" (layout %d) refused", value,
		       (int)layout);
	else
		ok(rc == 0, "controllers \"%s\" (layout %d) accepted%s%s", value, (int)layout, err ? ": " : "",
		   err ? err->msg : "");
	cv_error_release(&err);
}

static void controllers(void)
{
	static const char *const all = "cpu cpuacct cpuset memory pids blkio io devices freezer net_cls net_prio "
				       "perf_event hugetlb rdma misc unified";
	uint32_t mask = 0;
	cv_error_t err = NULL;
	unsigned n = 0;

	while (cv_cgroup_controller_name(n))
		n++;
	ok(n == 16 && !cv_cgroup_controller_name(16), "16 known controller names");
	ok(cv_cgroup_controllers_parse("cpu,cpuacct,cpuset,memory,pids,blkio,io,devices,freezer,net_cls,net_prio,"
				       "perf_event,hugetlb,rdma,misc,unified",
				       &mask, &err) == 0 &&
		   mask == bits_of(all) && mask == 0xffff,
	   "every known name parses, one bit each (%#x)", mask);
	ok(cv_cgroup_controllers_parse("memory,pids", &mask, &err) == 0 && mask == bits_of("memory pids"),
	   "memory,pids -> memory and pids only");
	ok(cv_cgroup_controllers_parse("pids,pids", &mask, &err) == 0 && mask == bits_of("pids"),
	   "a repeated name is harmless");
	ok(cv_cgroup_controllers_parse("unified", &mask, &err) == 0 && mask == bits_of("unified"), "unified alone");
	cv_error_release(&err);

	parse_msg("", "annotation org.cvisor.cgroup.controllers \"\": empty controller name");
	parse_msg("memory,,pids", "annotation org.cvisor.cgroup.controllers \"memory,,pids\": empty controller name");
	parse_msg(",memory", "annotation org.cvisor.cgroup.controllers \",memory\": empty controller name");
	parse_msg("memory,", "annotation org.cvisor.cgroup.controllers \"memory,\": empty controller name");
	parse_msg("memory,foo",
		  "annotation org.cvisor.cgroup.controllers \"memory,foo\": unknown cgroup controller \"foo\"");
	parse_msg("memory, pids",
		  "annotation org.cvisor.cgroup.controllers \"memory, pids\": unknown cgroup controller \" pids\"");
	parse_msg("Memory",
		  "annotation org.cvisor.cgroup.controllers \"Memory\": unknown cgroup controller \"Memory\"");
	parse_msg(
		"name=systemd",
		"annotation org.cvisor.cgroup.controllers \"name=systemd\": unknown cgroup controller \"name=systemd\"");
	parse_msg("cpu,cpuacct,mem",
		  "annotation org.cvisor.cgroup.controllers \"cpu,cpuacct,mem\": unknown cgroup controller \"mem\"");

	oci_memory mem = { .limit = { true, 1 << 24 } };
	oci_memory check_only = { .check_before_update = { true, true } };
	oci_cpu shares = { .shares = { true, 512 } };
	oci_cpu cpus = { .cpus = "0" };
	oci_block_io bio = { .weight = { true, 100 } };
	oci_block_io empty_bio = { 0 };
	oci_hugepage_limit hp = { .page_size = "2MB", .limit = 0 };
	oci_network net_cls = { .class_id = { true, 7 } };
	oci_net_priority prio = { .name = "lo", .priority = 1 };
	oci_network net_prio = { .priorities = &prio, .priorities_len = 1 };
	oci_rdma rd = { .device = "mlx5_0" };
	oci_kv ukv = { .key = "memory.high", .value = "1M" };
	oci_device_cgroup dev = { .allow = true, .type = "c", .access = "rwm" };
	const char *pref = "annotation org.cvisor.cgroup.controllers";
	char want[256];
#define WANT(value, field, ctl)                                                                                        \
	(snprintf(want, sizeof(want), "%s \"%s\": %s needs the %s controller, which the list leaves out", pref, value, \
		  field, ctl),                                                                                         \
	 want)

	oci_resources r = { .memory = &mem };
	check_msg("pids", &r, CV_CGROUP_HYBRID, WANT("pids", "linux.resources.memory", "memory"));
	check_msg("memory,pids", &r, CV_CGROUP_HYBRID, NULL);
	check_msg("pids", &r, CV_CGROUP_UNIFIED, WANT("pids", "linux.resources.memory", "memory"));
	check_msg("pids", NULL, CV_CGROUP_HYBRID, NULL);
	r = (oci_resources){ .memory = &check_only };
	check_msg("pids", &r, CV_CGROUP_LEGACY, NULL); /* checkBeforeUpdate alone sets nothing */
	r = (oci_resources){ .cpu = &shares };
	check_msg("memory,cpuacct", &r, CV_CGROUP_LEGACY, WANT("memory,cpuacct", "linux.resources.cpu", "cpu"));
	check_msg("cpu", &r, CV_CGROUP_LEGACY, NULL);
	r = (oci_resources){ .cpu = &cpus };
	check_msg("cpu", &r, CV_CGROUP_LEGACY, WANT("cpu", "linux.resources.cpu.cpus/mems", "cpuset"));
	check_msg("cpuset", &r, CV_CGROUP_LEGACY, NULL);
	r = (oci_resources){ .has_pids = true, .pids_limit = { true, 10 } };
	check_msg("memory", &r, CV_CGROUP_HYBRID, WANT("memory", "linux.resources.pids", "pids"));
	r = (oci_resources){ .has_pids = true };
	check_msg("memory", &r, CV_CGROUP_HYBRID, NULL);
	r = (oci_resources){ .block_io = &bio };
	check_msg("memory", &r, CV_CGROUP_HYBRID, WANT("memory", "linux.resources.blockIO", "blkio"));
	check_msg("memory", &r, CV_CGROUP_UNIFIED, WANT("memory", "linux.resources.blockIO", "io"));
	check_msg("blkio", &r, CV_CGROUP_LEGACY, NULL);
	check_msg("io", &r, CV_CGROUP_UNIFIED, NULL);
	r = (oci_resources){ .block_io = &empty_bio };
	check_msg("memory", &r, CV_CGROUP_LEGACY, NULL);
	r = (oci_resources){ .hugepage_limits = &hp, .hugepage_limits_len = 1 };
	check_msg("memory", &r, CV_CGROUP_HYBRID, WANT("memory", "linux.resources.hugepageLimits", "hugetlb"));
	r = (oci_resources){ .network = &net_cls };
	check_msg("net_prio", &r, CV_CGROUP_LEGACY, WANT("net_prio", "linux.resources.network.classID", "net_cls"));
	r = (oci_resources){ .network = &net_prio };
	check_msg("net_cls", &r, CV_CGROUP_LEGACY, WANT("net_cls", "linux.resources.network.priorities", "net_prio"));
	r = (oci_resources){ .rdma = &rd, .rdma_len = 1 };
	check_msg("misc", &r, CV_CGROUP_LEGACY, WANT("misc", "linux.resources.rdma", "rdma"));
	r = (oci_resources){ .unified = { &ukv, 1 } };
	check_msg("memory", &r, CV_CGROUP_HYBRID, WANT("memory", "linux.resources.unified", "unified"));
	check_msg("memory", &r, CV_CGROUP_UNIFIED, NULL); /* the one v2 directory is the unified one */
	check_msg("memory,unified", &r, CV_CGROUP_HYBRID, NULL);
	r = (oci_resources){ .devices = &dev, .devices_len = 1 };
	check_msg("memory", &r, CV_CGROUP_HYBRID, WANT("memory", "linux.resources.devices", "devices"));
	check_msg("memory", &r, CV_CGROUP_UNIFIED, NULL); /* v2: an eBPF program, no controller */
	check_msg("devices", &r, CV_CGROUP_HYBRID, NULL);
	r = (oci_resources){ 0 };
	check_msg("memory", &r, CV_CGROUP_HYBRID, NULL); /* default device rules: no devices cgroup is fine */
#undef WANT

	struct cv_cgroup_config cfg = { .id = "x", .controllers = "memory", .systemd = true };
	ok(cv_cgroup_config_validate(&cfg, &err) < 0 && err &&
		   strcmp(err->msg,
			  "annotation org.cvisor.cgroup.controllers \"memory\": not supported with "
			  "--systemd-cgroup (systemd gives a scope a directory in every hierarchy it manages)") == 0,
	   "refused with --systemd-cgroup: %s", err ? err->msg : "");
	cv_error_release(&err);
	cfg = (struct cv_cgroup_config){ .id = "x", .controllers = "bogus", .systemd = true };
	ok(cv_cgroup_config_validate(&cfg, &err) < 0 && err && strstr(err->msg, "unknown cgroup controller"),
	   "names are checked first");
	cv_error_release(&err);
	cfg = (struct cv_cgroup_config){ .id = "x", .systemd = true };
	ok(cv_cgroup_config_validate(&cfg, &err) == 0, "no annotation: nothing to validate");
}

int main(void)
{
	controllers();
	conversions();
	device_rules();
	paths();
	systemd_paths();
	bpf_program();
	return tap_done();
}
