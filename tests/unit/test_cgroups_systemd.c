/* The systemd cgroup driver without a bus: cgroupsPath parsing, slice
 * expansion, cpuset bitmasks, the CPU quota conversion and the scope's
 * property list for v1 and v2. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups/cgroups-internal.h"
#include "cgroups/cgroups-systemd.h"
#include "tap.h"

static void parse(void)
{
	struct cv_cg_systemd_path p;
	cv_error_t err = NULL;

	ok(cv_cg_systemd_parse("system.slice:docker:abc", "id", &p, &err) == 0, "docker-style path");
	is_str(p.unit, "docker-abc.scope", "prefix-name.scope");
	cv_cg_systemd_path_clear(&p);
	ok(cv_cg_systemd_parse("a-b.slice::c1", "id", &p, &err) == 0, "empty prefix");
	is_str(p.slice, "a-b.slice", "nested slice kept as named");
	is_str(p.unit, "c1.scope", "empty prefix: NAME.scope");
	cv_cg_systemd_path_clear(&p);
	ok(cv_cg_systemd_parse("::c2", "id", &p, &err) == 0, "empty slice and prefix");
	is_str(p.slice, "system.slice", "default slice");
	is_str(p.unit, "c2.scope", "unit");
	cv_cg_systemd_path_clear(&p);
	ok(cv_cg_systemd_parse("", "c3", &p, &err) == 0, "empty cgroupsPath");
	is_str(p.unit, "cvisor-c3.scope", "default unit from the id");
	cv_cg_systemd_path_clear(&p);
	ok(cv_cg_systemd_parse("", "", &p, &err) < 0, "empty path and id refused");
	cv_error_release(&err);
	ok(cv_cg_systemd_parse("/abs/path", "id", &p, &err) < 0 && strstr(err->msg, "slice:prefix:name"),
	   "a cgroupfs path refused: %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_cg_systemd_parse("a.slice:..:x", "id", &p, &err) < 0, "prefix .. refused");
	cv_error_release(&err);
	ok(cv_cg_systemd_parse("../a.slice:p:x", "id", &p, &err) < 0, "slice with / refused");
	cv_error_release(&err);
}

static void check_slice(const char *slice, const char *want)
{
	cv_error_t err = NULL;
	char *got = NULL;
	int r = cv_sd_expand_slice(slice, &got, &err);

	if (want)
		ok(r == 0 && got && strcmp(got, want) == 0, "expand %s -> %s (got %s)", slice, want,
		   got ? got : err->msg);
	else
		ok(r < 0 && strstr(err->msg, "invalid systemd slice name"), "expand %s refused: %s", slice,
		   err ? err->msg : got);
	free(got);
	cv_error_release(&err);
}

static void slices(void)
{
	check_slice("system.slice", "/system.slice");
	check_slice("-.slice", "/");
	check_slice("a-b.slice", "/a.slice/a-b.slice");
	check_slice("a-b-c.slice", "/a.slice/a-b.slice/a-b-c.slice");
	check_slice("machine-libpod_pod_1.slice", "/machine.slice/machine-libpod_pod_1.slice");
	check_slice("a--b.slice", NULL);
	check_slice("-a.slice", NULL);
	check_slice("a-.slice", NULL);
	check_slice(".slice", NULL);
	check_slice("a.scope", NULL);
	check_slice("a/b.slice", NULL);
}

static void check_bits(const char *list, const uint8_t *want, size_t n)
{
	cv_error_t err = NULL;
	uint8_t *got = NULL;
	size_t len = 0;
	int r = cv_sd_cpuset_bits(list, &got, &len, &err);

	if (want)
		ok(r == 0 && len == n && memcmp(got, want, n) == 0, "bits of \"%s\" (%zu bytes, first 0x%02x)", list,
		   len, len ? got[0] : 0);
	else
		ok(r < 0 && strstr(err->msg, list), "bits of \"%s\" refused: %s", list, err ? err->msg : "");
	free(got);
	cv_error_release(&err);
}

static void bits(void)
{
	check_bits("0", (const uint8_t[]){ 0x01 }, 1);
	check_bits("0-3", (const uint8_t[]){ 0x0f }, 1);
	check_bits("1,3", (const uint8_t[]){ 0x0a }, 1);
	check_bits("7-8", (const uint8_t[]){ 0x80, 0x01 }, 2);
	check_bits("0,9-10,16", (const uint8_t[]){ 0x01, 0x06, 0x01 }, 3);
	check_bits("", NULL, 0);
	check_bits("3-1", NULL, 0);
	check_bits("1,", NULL, 0);
	check_bits("a", NULL, 0);
	check_bits("1-", NULL, 0);
	check_bits("99999", NULL, 0);
}

static void quota(void)
{
	ok(cv_sd_quota_per_sec(50000, 100000) == 500000, "50 ms / 100 ms = 500 ms/s");
	ok(cv_sd_quota_per_sec(50000, 0) == 500000, "default period 100 ms");
	ok(cv_sd_quota_per_sec(12345, 100000) == 130000, "rounded up to whole percent");
	ok(cv_sd_quota_per_sec(200000, 100000) == 2000000, "two cpus");
	ok(cv_sd_quota_per_sec(-1, 100000) == UINT64_MAX, "-1 unlimited");
	ok(cv_sd_quota_per_sec(0, 100000) == UINT64_MAX, "0 unlimited");
}

static const struct cv_sd_prop *find(const struct cv_sd_props *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].name, name) == 0)
			return &p->v[i];
	return NULL;
}

static bool has_u64(const struct cv_sd_props *p, const char *name, uint64_t v)
{
	const struct cv_sd_prop *x = find(p, name);
	return x && strcmp(x->sig, "t") == 0 && x->u64 == v;
}

static void properties(void)
{
	oci_memory mem = { .limit = { true, 256 << 20 },
			   .reservation = { true, 128 << 20 },
			   .swap = { true, 512 << 20 } };
	oci_cpu cpu = { .shares = { true, 1024 },
			.quota = { true, 50000 },
			.period = { true, 100000 },
			.cpus = (char *)"0-1",
			.mems = (char *)"0" };
	oci_block_io io = { .weight = { true, 500 } };
	oci_resources r = { .memory = &mem,
			    .cpu = &cpu,
			    .block_io = &io,
			    .has_pids = true,
			    .pids_limit = { true, 100 } };
	struct cv_sd_props p;
	const struct cv_sd_prop *x;
	cv_error_t err = NULL;

	ok(cv_sd_scope_properties(&r, true, 4242, "machine.slice", "cvisor container c1", &p, &err) == 0,
	   "v2 properties build");
	x = find(&p, "Description");
	ok(x && strcmp(x->sig, "s") == 0 && strcmp(x->str, "cvisor container c1") == 0, "Description s");
	x = find(&p, "Slice");
	ok(x && strcmp(x->sig, "s") == 0 && strcmp(x->str, "machine.slice") == 0, "Slice s");
	x = find(&p, "PIDs");
	ok(x && strcmp(x->sig, "au") == 0 && x->u64 == 4242, "PIDs au [pid]");
	x = find(&p, "Delegate");
	ok(x && strcmp(x->sig, "b") == 0 && x->b, "Delegate b true");
	x = find(&p, "DefaultDependencies");
	ok(x && strcmp(x->sig, "b") == 0 && !x->b, "DefaultDependencies b false");
	ok(has_u64(&p, "MemoryMax", 256 << 20), "MemoryMax t");
	ok(has_u64(&p, "MemoryLow", 128 << 20), "MemoryLow t");
	ok(has_u64(&p, "MemorySwapMax", 256 << 20), "MemorySwapMax = swap - limit");
	ok(has_u64(&p, "CPUWeight", 39), "CPUWeight from shares 1024: %" PRIu64,
	   find(&p, "CPUWeight") ? find(&p, "CPUWeight")->u64 : 0);
	ok(has_u64(&p, "CPUQuotaPerSecUSec", 500000), "CPUQuotaPerSecUSec t");
	ok(has_u64(&p, "CPUQuotaPeriodUSec", 100000), "CPUQuotaPeriodUSec t");
	x = find(&p, "AllowedCPUs");
	ok(x && strcmp(x->sig, "ay") == 0 && x->len == 1 && x->bytes[0] == 0x03, "AllowedCPUs ay");
	x = find(&p, "AllowedMemoryNodes");
	ok(x && strcmp(x->sig, "ay") == 0 && x->len == 1 && x->bytes[0] == 0x01, "AllowedMemoryNodes ay");
	ok(has_u64(&p, "TasksMax", 100), "TasksMax t");
	ok(has_u64(&p, "IOWeight", cv_cg_blkio_to_io_weight(500)), "IOWeight from blkio weight");
	ok(!find(&p, "MemoryLimit") && !find(&p, "CPUShares") && !find(&p, "BlockIOWeight"), "no v1 properties on v2");
	cv_sd_props_clear(&p);

	ok(cv_sd_scope_properties(&r, false, 7, "system.slice", "d", &p, &err) == 0, "v1 properties build");
	ok(has_u64(&p, "MemoryLimit", 256 << 20), "MemoryLimit t");
	ok(has_u64(&p, "CPUShares", 1024), "CPUShares t");
	ok(has_u64(&p, "BlockIOWeight", 500), "BlockIOWeight t");
	ok(has_u64(&p, "TasksMax", 100), "TasksMax on v1");
	ok(has_u64(&p, "CPUQuotaPerSecUSec", 500000), "CPU quota on v1");
	ok(!find(&p, "MemoryMax") && !find(&p, "MemoryLow") && !find(&p, "MemorySwapMax") && !find(&p, "CPUWeight") &&
		   !find(&p, "AllowedCPUs") && !find(&p, "IOWeight"),
	   "no v2 properties on v1");
	cv_sd_props_clear(&p);

	/* unlimited values are systemd's infinity */
	mem = (oci_memory){ .limit = { true, -1 }, .swap = { true, -1 } };
	r = (oci_resources){ .memory = &mem, .has_pids = true, .pids_limit = { true, -1 } };
	cpu = (oci_cpu){ .period = { true, 50000 } };
	r.cpu = &cpu;
	ok(cv_sd_scope_properties(&r, true, 1, "system.slice", "d", &p, &err) == 0, "unlimited values build");
	ok(has_u64(&p, "MemoryMax", UINT64_MAX), "MemoryMax -1 = infinity");
	ok(has_u64(&p, "MemorySwapMax", UINT64_MAX), "MemorySwapMax -1 = infinity");
	ok(has_u64(&p, "TasksMax", UINT64_MAX), "TasksMax -1 = infinity");
	ok(has_u64(&p, "CPUQuotaPeriodUSec", 50000) && has_u64(&p, "CPUQuotaPerSecUSec", UINT64_MAX),
	   "period alone: quota unlimited");
	cv_sd_props_clear(&p);

	ok(cv_sd_scope_properties(NULL, true, 1, "system.slice", "d", &p, &err) == 0 && p.n == 5,
	   "no resources: Description, Slice, PIDs, Delegate, DefaultDependencies only (%zu)", p.n);
	cv_sd_props_clear(&p);

	cpu = (oci_cpu){ .cpus = (char *)"0-x" };
	r = (oci_resources){ .cpu = &cpu };
	ok(cv_sd_scope_properties(&r, true, 1, "system.slice", "d", &p, &err) < 0 &&
		   strstr(err->msg, "linux.resources.cpu.cpus") && p.n == 0,
	   "bad cpus names the field: %s", err ? err->msg : "");
	cv_error_release(&err);
	mem = (oci_memory){ .limit = { true, 512 << 20 }, .swap = { true, 256 << 20 } };
	r = (oci_resources){ .memory = &mem };
	ok(cv_sd_scope_properties(&r, true, 1, "system.slice", "d", &p, &err) < 0 &&
		   strstr(err->msg, "linux.resources.memory.swap"),
	   "swap below limit refused: %s", err ? err->msg : "");
	cv_error_release(&err);
}

int main(void)
{
	parse();
	slices();
	bits();
	quota();
	properties();
	return tap_done();
}
