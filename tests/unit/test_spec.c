/* Unit tests for oci/: config.json parsing, validation, emission and round
 * trips; process.json; the default config; state and features documents. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "cleanup.h"
#include "io.h"
#include "oci/features.h"
#include "oci/spec.h"
#include "oci/state.h"
#include "tap.h"

#ifndef TEST_DATA_DIR
#error "TEST_DATA_DIR must be defined"
#endif

static char *read_data(const char *file, size_t *len)
{
	char path[4096];
	char *buf = NULL;
	cv_error_t err = NULL;
	snprintf(path, sizeof(path), "%s/%s", TEST_DATA_DIR, file);
	if (cv_read_file_at(AT_FDCWD, path, OCI_JSON_MAX_SIZE, CV_READ_REGULAR, &buf, len, &err) < 0) {
		tap_diag("cannot read %s: %s", path, err->msg);
		cv_error_release(&err);
		return NULL;
	}
	return buf;
}

/* ---- a canonical form of any JSON document (sorted keys, compact), so two
 * documents can be compared independently of order and whitespace ---- */
static const char *const *sort_keys_base;
static int cmp_idx(const void *a, const void *b)
{
	return strcmp(sort_keys_base[*(const size_t *)a], sort_keys_base[*(const size_t *)b]);
}

static void canon(yajl_val v, FILE *f)
{
	if (YAJL_IS_OBJECT(v)) {
		size_t n = v->u.object.len;
		size_t *idx = calloc(n ? n : 1, sizeof(size_t));
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
		sort_keys_base = v->u.object.keys;
		qsort(idx, n, sizeof(size_t), cmp_idx);
		fputc('{', f);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%s\"%s\":", i ? "," : "", v->u.object.keys[idx[i]]);
			canon(v->u.object.values[idx[i]], f);
		}
		fputc('}', f);
		free(idx);
	} else if (YAJL_IS_ARRAY(v)) {
		fputc('[', f);
		for (size_t i = 0; i < v->u.array.len; i++) {
			if (i)
				fputc(',', f);
			canon(v->u.array.values[i], f);
		}
		fputc(']', f);
	} else if (YAJL_IS_STRING(v)) {
		fputc('"', f);
		for (const unsigned char *p = (const unsigned char *)v->u.string; *p; p++)
			if (*p == '"' || *p == '\\' || *p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		fputc('"', f);
	} else if (YAJL_IS_NUMBER(v)) {
		fputs(v->u.number.r, f);
	} else if (YAJL_IS_TRUE(v)) {
		fputs("true", f);
	} else if (YAJL_IS_FALSE(v)) {
		fputs("false", f);
	} else {
		fputs("null", f);
	}
}

static char *canonical(const char *json)
{
	char errbuf[256];
	yajl_val v = yajl_tree_parse(json, errbuf, sizeof(errbuf));
	if (!v) {
		tap_diag("yajl_tree_parse: %s", errbuf);
		return NULL;
	}
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	canon(v, f);
	fclose(f);
	yajl_tree_free(v);
	return out;
}

/* ---- helpers ---- */
static void expect_error(const char *json, const char *want)
{
	oci_spec *s = NULL;
	cv_error_t err = NULL;
	int r = oci_spec_parse(json, strlen(json), "config.json", &s, &err);
	if (r >= 0) {
		ok(false, "rejects %.60s", json);
		tap_diag("expected error: %s", want);
		oci_spec_free(s);
		return;
	}
	is_str(err->msg, want, "error: %s", want);
	cv_error_release(&err);
}

static oci_spec *expect_valid(const char *json, const char *what)
{
	oci_spec *s = NULL;
	cv_error_t err = NULL;
	int r = oci_spec_parse(json, strlen(json), "config.json", &s, &err);
	ok(r == 0, "accepts %s", what);
	if (r < 0) {
		tap_diag("%s", err->msg);
		cv_error_release(&err);
		return NULL;
	}
	return s;
}

/* Parses, emits (pretty and compact), re-parses: the model must survive, and
 * the emitted document must say what the input said. */
static void round_trip(const char *json, const char *what, bool compare_text)
{
	cleanup_spec oci_spec *a = expect_valid(json, what);
	if (!a)
		return;
	for (int pretty = 0; pretty <= 1; pretty++) {
		cleanup_free char *out = NULL;
		size_t len = 0;
		cv_error_t err = NULL;
		int r = oci_spec_emit(a, pretty, &out, &len, &err);
		ok(r == 0 && out && strlen(out) == len, "%s: emit (%s)", what, pretty ? "pretty" : "compact");
		if (r < 0) {
			cv_error_release(&err);
			continue;
		}
		cleanup_spec oci_spec *b = NULL;
		r = oci_spec_parse(out, len, "emitted", &b, &err);
		ok(r == 0, "%s: re-parse the emitted document (%s)", what, pretty ? "pretty" : "compact");
		if (r < 0) {
			tap_diag("%s", err->msg);
			cv_error_release(&err);
			continue;
		}
		ok(oci_spec_equal(a, b), "%s: parse(emit(x)) == x (%s)", what, pretty ? "pretty" : "compact");
		if (compare_text) {
			cleanup_free char *c1 = canonical(json);
			cleanup_free char *c2 = canonical(out);
			is_str(c2, c1, "%s: emitted JSON has every property of the input (%s)", what,
			       pretty ? "pretty" : "compact");
		}
	}
}

#define BASE "{\"ociVersion\":\"1.0.0\","
#define PROC(x) BASE "\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\"," x "}}"
#define LINUX(x) BASE "\"linux\":{" x "}}"
#define RES(x) LINUX("\"resources\":{" x "}")
#define SECCOMP(x) LINUX("\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ALLOW\"," x "}")

static void test_valid_documents(void)
{
	size_t len;
	cleanup_free char *runc = read_data("runc-spec.json", &len);
	round_trip(runc, "runc spec's config.json", true);
	cleanup_free char *rootless = read_data("runc-spec-rootless.json", &len);
	round_trip(rootless, "runc spec --rootless's config.json", true);
	cleanup_free char *full = read_data("full.json", &len);
	round_trip(full, "full fixture (every property)", true);

	oci_spec *s = expect_valid("{\"ociVersion\":\"1.0.0\"}", "a minimal config");
	ok(s && !s->process && !s->root && !s->linux_, "minimal config has nothing set");
	oci_spec_free(s);

	static const char *const versions[] = { "1.0.0", "1.0.2-dev", "1.1.0-rc.1", "1.2.1", "1.3.0", "1.99.7+build" };
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		char json[128];
		snprintf(json, sizeof(json), "{\"ociVersion\":\"%s\"}", versions[i]);
		char what[64];
		snprintf(what, sizeof(what), "ociVersion %s", versions[i]);
		oci_spec_free(expect_valid(json, what));
	}

	s = expect_valid(BASE "\"process\":null,\"root\":null,\"hostname\":null}", "null as absent");
	ok(s && !s->process && !s->root && !s->hostname, "null properties are absent");
	oci_spec_free(s);

	s = expect_valid(BASE "\"foo\":{\"bar\":[1,2,{}]},\"linux\":{\"unknownThing\":1},"
			      "\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"new\":true}}",
			 "unknown properties");
	oci_spec_free(s);

	s = expect_valid(BASE "\"hostname\":\"a\",\"hostname\":\"b\"}", "a duplicate member");
	is_str(s ? s->hostname : NULL, "b", "the last duplicate member wins");
	oci_spec_free(s);

	s = expect_valid(BASE "\"annotations\":{\"k\":\"1\",\"k\":\"2\",\"j\":\"3\"}}", "duplicate annotation keys");
	ok(s && s->annotations.len == 2 && strcmp(s->annotations.v[0].value, "2") == 0,
	   "a duplicate map key replaces the earlier value");
	oci_spec_free(s);

	s = expect_valid(LINUX("\"timeOffsets\":{\"monotonic\":{\"secs\":1},\"monotonic\":{\"nanosecs\":2}},"
			       "\"netDevices\":{\"eth0\":{\"name\":\"a\"},\"eth0\":{}},"
			       "\"resources\":{\"rdma\":{\"m\":{\"hcaHandles\":1},\"m\":{\"hcaObjects\":2}}}"),
			 "duplicate keys in timeOffsets, netDevices and rdma");
	ok(s && s->linux_->time_offsets_len == 1 && s->linux_->time_offsets[0].secs == 0 &&
		   s->linux_->time_offsets[0].nanosecs == 2 && s->linux_->net_devices_len == 1 &&
		   !s->linux_->net_devices[0].name && s->linux_->resources->rdma_len == 1 &&
		   !s->linux_->resources->rdma[0].hca_handles.set && s->linux_->resources->rdma[0].hca_objects.v == 2,
	   "the last duplicate key wins in every map");
	oci_spec_free(s);

	s = expect_valid(RES("\"memory\":{\"limit\":-9223372036854775808},\"cpu\":{\"shares\":18446744073709551615}"),
			 "int64 and uint64 extremes");
	ok(s && s->linux_->resources->memory->limit.v == INT64_MIN && s->linux_->resources->cpu->shares.v == UINT64_MAX,
	   "int64 min and uint64 max are exact");
	oci_spec_free(s);
}

static void test_type_errors(void)
{
	expect_error("[]", "config.json: expected a JSON object at the top level, got an array");
	expect_error("\"x\"", "config.json: expected a JSON object at the top level, got a string");
	expect_error("{\"ociVersion\":2}", "config.json: ociVersion: expected a string, got 2");
	expect_error(BASE "\"root\":\"rootfs\"}", "config.json: root: expected an object, got \"rootfs\"");
	expect_error(BASE "\"root\":{\"path\":\"r\",\"readonly\":\"yes\"}}",
		     "config.json: root.readonly: expected a boolean, got \"yes\"");
	expect_error(BASE "\"mounts\":{}}", "config.json: mounts: expected an array, got an object");
	expect_error(BASE "\"mounts\":[{\"destination\":\"/x\",\"options\":[\"ro\",1]}]}",
		     "config.json: mounts[0].options[1]: expected a string, got 1");
	expect_error(
		BASE
		"\"mounts\":[{\"destination\":\"/x\",\"uidMappings\":[{\"containerID\":0,\"hostID\":1,\"size\":true}]}]}",
		"config.json: mounts[0].uidMappings[0].size: expected a non-negative integer, got true");
	expect_error(BASE "\"hostname\":[]}", "config.json: hostname: expected a string, got an array");
	expect_error(PROC("\"user\":{\"uid\":\"root\",\"gid\":0}"),
		     "config.json: process.user.uid: expected a non-negative integer, got \"root\"");
	expect_error(PROC("\"user\":{\"uid\":-1,\"gid\":0}"),
		     "config.json: process.user.uid: expected a non-negative integer, got -1");
	expect_error(PROC("\"user\":{\"uid\":1.5,\"gid\":0}"),
		     "config.json: process.user.uid: expected a non-negative integer, got 1.5");
	expect_error(PROC("\"user\":{\"uid\":1e3,\"gid\":0}"),
		     "config.json: process.user.uid: expected a non-negative integer, got 1e3");
	expect_error(PROC("\"user\":{\"uid\":null,\"gid\":0}"),
		     "config.json: process.user: missing required property \"uid\"");
	expect_error(PROC("\"user\":{\"uid\":4294967296,\"gid\":0}"),
		     "config.json: process.user.uid: 4294967296 is out of range (0..4294967295)");
	expect_error(PROC("\"user\":{\"uid\":0,\"gid\":0,\"additionalGids\":[1,\"a\"]}"),
		     "config.json: process.user.additionalGids[1]: expected a non-negative integer, got \"a\"");
	expect_error(PROC("\"terminal\":\"true\""), "config.json: process.terminal: expected a boolean, got \"true\"");
	expect_error(PROC("\"noNewPrivileges\":1"), "config.json: process.noNewPrivileges: expected a boolean, got 1");
	expect_error(PROC("\"env\":\"A=1\""), "config.json: process.env: expected an array, got \"A=1\"");
	expect_error(PROC("\"capabilities\":{\"bounding\":[1]}"),
		     "config.json: process.capabilities.bounding[0]: expected a string, got 1");
	expect_error(PROC("\"capabilities\":[]"),
		     "config.json: process.capabilities: expected an object, got an array");
	expect_error(PROC("\"oomScoreAdj\":\"x\""), "config.json: process.oomScoreAdj: expected an integer, got \"x\"");
	expect_error(PROC("\"execCPUAffinity\":\"0\""),
		     "config.json: process.execCPUAffinity: expected an object, got \"0\"");
	expect_error(PROC("\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1,\"soft\":false}]"),
		     "config.json: process.rlimits[0].soft: expected a non-negative integer, got false");
	expect_error(BASE "\"annotations\":{\"a\":1}}", "config.json: annotations[\"a\"]: expected a string, got 1");
	expect_error(BASE "\"annotations\":[]}", "config.json: annotations: expected an object, got an array");
	expect_error(RES("\"memory\":{\"limit\":\"1G\"}"),
		     "config.json: linux.resources.memory.limit: expected an integer, got \"1G\"");
	expect_error(RES("\"memory\":{\"limit\":9223372036854775808}"),
		     "config.json: linux.resources.memory.limit: 9223372036854775808 is out of range "
		     "(-9223372036854775808..9223372036854775807)");
	expect_error(
		RES("\"cpu\":{\"shares\":18446744073709551616}"),
		"config.json: linux.resources.cpu.shares: 18446744073709551616 is out of range (0..18446744073709551615)");
	expect_error(RES("\"cpu\":{\"shares\":-1}"),
		     "config.json: linux.resources.cpu.shares: expected a non-negative integer, got -1");
	expect_error(RES("\"memory\":{\"disableOOMKiller\":0}"),
		     "config.json: linux.resources.memory.disableOOMKiller: expected a boolean, got 0");
	expect_error(RES("\"rdma\":{\"mlx\":{\"hcaHandles\":-1}}"),
		     "config.json: linux.resources.rdma[\"mlx\"].hcaHandles: expected a non-negative integer, got -1");
	expect_error(RES("\"unified\":{\"a\":true}"),
		     "config.json: linux.resources.unified[\"a\"]: expected a string, got true");
	expect_error(
		RES("\"blockIO\":{\"throttleReadBpsDevice\":[{\"major\":8,\"minor\":0,\"rate\":\"fast\"}]}"),
		"config.json: linux.resources.blockIO.throttleReadBpsDevice[0].rate: expected a non-negative integer, got \"fast\"");
	expect_error(LINUX("\"sysctl\":{\"k\":1}"), "config.json: linux.sysctl[\"k\"]: expected a string, got 1");
	expect_error(LINUX("\"intelRdt\":{\"schemata\":\"x\"}"),
		     "config.json: linux.intelRdt.schemata: expected an array, got \"x\"");
	expect_error(LINUX("\"netDevices\":{\"eth0\":\"x\"}"),
		     "config.json: linux.netDevices[\"eth0\"]: expected an object, got \"x\"");
	expect_error(LINUX("\"uidMappings\":[{\"containerID\":0,\"hostID\":0,\"size\":\"1\"}]"),
		     "config.json: linux.uidMappings[0].size: expected a non-negative integer, got \"1\"");
	expect_error(LINUX("\"namespaces\":[{\"type\":7}]"),
		     "config.json: linux.namespaces[0].type: expected a string, got 7");
	expect_error(
		SECCOMP("\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":0,\"value\":-1,\"op\":\"SCMP_CMP_EQ\"}]}]"),
		"config.json: linux.seccomp.syscalls[0].args[0].value: expected a non-negative integer, got -1");
	expect_error(BASE "\"hostname\":\"a\\u0000b\"}", "config.json: hostname: string contains a NUL character");
	/* A long value is cut in the message. */
	char json[512];
	snprintf(json, sizeof(json), "{\"ociVersion\":\"%0300d\"}", 7);
	cleanup_spec oci_spec *s = NULL;
	cv_error_t err = NULL;
	ok(oci_spec_parse(json, strlen(json), "config.json", &s, &err) < 0 && strlen(err->msg) < 200 &&
		   strstr(err->msg, "\"..."),
	   "a long value is truncated in the message");
	cv_error_release(&err);
}

static void test_missing_required(void)
{
	expect_error("{}", "config.json: missing required property \"ociVersion\"");
	expect_error(BASE "\"root\":{}}", "config.json: root: missing required property \"path\"");
	expect_error(BASE "\"mounts\":[{\"destination\":\"/a\"},{\"type\":\"proc\"}]}",
		     "config.json: mounts[1]: missing required property \"destination\"");
	expect_error(BASE "\"mounts\":[{\"destination\":\"/x\",\"uidMappings\":[{\"containerID\":0,\"hostID\":1}]}]}",
		     "config.json: mounts[0].uidMappings[0]: missing required property \"size\"");
	expect_error(BASE "\"process\":{\"cwd\":\"/\"}}", "config.json: process: missing required property \"args\"");
	expect_error(BASE "\"process\":{\"args\":[\"sh\"]}}",
		     "config.json: process: missing required property \"cwd\"");
	expect_error(PROC("\"user\":{\"uid\":0}"), "config.json: process.user: missing required property \"gid\"");
	expect_error(PROC("\"consoleSize\":{\"height\":1}"),
		     "config.json: process.consoleSize: missing required property \"width\"");
	expect_error(PROC("\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1}]"),
		     "config.json: process.rlimits[0]: missing required property \"soft\"");
	expect_error(PROC("\"rlimits\":[{\"hard\":1,\"soft\":1}]"),
		     "config.json: process.rlimits[0]: missing required property \"type\"");
	expect_error(PROC("\"scheduler\":{}"), "config.json: process.scheduler: missing required property \"policy\"");
	expect_error(PROC("\"ioPriority\":{\"priority\":1}"),
		     "config.json: process.ioPriority: missing required property \"class\"");
	expect_error(BASE "\"hooks\":{\"prestart\":[{}]}}",
		     "config.json: hooks.prestart[0]: missing required property \"path\"");
	expect_error(BASE "\"hooks\":{\"poststop\":[{\"path\":\"/a\"},{\"args\":[]}]}}",
		     "config.json: hooks.poststop[1]: missing required property \"path\"");
	expect_error(LINUX("\"namespaces\":[{\"path\":\"/proc/1/ns/pid\"}]"),
		     "config.json: linux.namespaces[0]: missing required property \"type\"");
	expect_error(LINUX("\"devices\":[{\"type\":\"c\",\"major\":1,\"minor\":3}]"),
		     "config.json: linux.devices[0]: missing required property \"path\"");
	expect_error(LINUX("\"devices\":[{\"path\":\"/dev/null\"}]"),
		     "config.json: linux.devices[0]: missing required property \"type\"");
	expect_error(RES("\"devices\":[{\"access\":\"rwm\"}]"),
		     "config.json: linux.resources.devices[0]: missing required property \"allow\"");
	expect_error(RES("\"pids\":{}"), "config.json: linux.resources.pids: missing required property \"limit\"");
	expect_error(RES("\"hugepageLimits\":[{\"limit\":1}]"),
		     "config.json: linux.resources.hugepageLimits[0]: missing required property \"pageSize\"");
	expect_error(RES("\"hugepageLimits\":[{\"pageSize\":\"2MB\"}]"),
		     "config.json: linux.resources.hugepageLimits[0]: missing required property \"limit\"");
	expect_error(RES("\"blockIO\":{\"weightDevice\":[{\"major\":8}]}"),
		     "config.json: linux.resources.blockIO.weightDevice[0]: missing required property \"minor\"");
	expect_error(RES("\"network\":{\"priorities\":[{\"name\":\"eth0\"}]}"),
		     "config.json: linux.resources.network.priorities[0]: missing required property \"priority\"");
	expect_error(LINUX("\"seccomp\":{}"),
		     "config.json: linux.seccomp: missing required property \"defaultAction\"");
	expect_error(SECCOMP("\"syscalls\":[{\"action\":\"SCMP_ACT_ALLOW\"}]"),
		     "config.json: linux.seccomp.syscalls[0]: missing required property \"names\"");
	expect_error(SECCOMP("\"syscalls\":[{\"names\":[\"read\"]}]"),
		     "config.json: linux.seccomp.syscalls[0]: missing required property \"action\"");
	expect_error(
		SECCOMP("\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"value\":1,\"op\":\"SCMP_CMP_EQ\"}]}]"),
		"config.json: linux.seccomp.syscalls[0].args[0]: missing required property \"index\"");
	expect_error(
		SECCOMP("\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":1,\"value\":1}]}]"),
		"config.json: linux.seccomp.syscalls[0].args[0]: missing required property \"op\"");
	expect_error(LINUX("\"personality\":{}"),
		     "config.json: linux.personality: missing required property \"domain\"");
	expect_error(LINUX("\"memoryPolicy\":{\"nodes\":\"0\"}"),
		     "config.json: linux.memoryPolicy: missing required property \"mode\"");
}

static void test_semantic_errors(void)
{
	expect_error("{\"ociVersion\":\"2.0.0\"}",
		     "config.json: ociVersion: unsupported major version \"2.0.0\" (want 1.x)");
	expect_error("{\"ociVersion\":\"0.1.0\"}",
		     "config.json: ociVersion: unsupported major version \"0.1.0\" (want 1.x)");
	expect_error("{\"ociVersion\":\"abc\"}", "config.json: ociVersion: not a version: \"abc\"");
	expect_error("{\"ociVersion\":\"1\"}", "config.json: ociVersion: not a version: \"1\"");
	expect_error(BASE "\"root\":{\"path\":\"\"}}", "config.json: root.path: must not be empty");
	expect_error(BASE "\"mounts\":[{\"destination\":\"proc\"}]}",
		     "config.json: mounts[0].destination: must be an absolute path, got \"proc\"");
	expect_error(BASE "\"process\":{\"args\":[],\"cwd\":\"/\"}}",
		     "config.json: process.args: must contain at least one entry");
	expect_error(BASE "\"process\":{\"args\":[\"sh\"],\"cwd\":\"tmp\"}}",
		     "config.json: process.cwd: must be an absolute path, got \"tmp\"");
	expect_error(PROC("\"user\":{\"uid\":0,\"gid\":0,\"umask\":512}"),
		     "config.json: process.user.umask: 512 is out of range (0..511)");
	expect_error(PROC("\"env\":[\"A=1\",\"FOO\"]"), "config.json: process.env[1]: expected KEY=VALUE, got \"FOO\"");
	expect_error(PROC("\"rlimits\":[{\"type\":\"RLIMIT_FOO\",\"hard\":1,\"soft\":1}]"),
		     "config.json: process.rlimits[0].type: unknown rlimit type \"RLIMIT_FOO\"");
	expect_error(PROC("\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1024,\"soft\":2048}]"),
		     "config.json: process.rlimits[0]: soft limit 2048 exceeds hard limit 1024");
	expect_error(
		PROC("\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1,\"soft\":1},{\"type\":\"RLIMIT_NOFILE\",\"hard\":1,\"soft\":1}]"),
		"config.json: process.rlimits[1].type: duplicate rlimit type \"RLIMIT_NOFILE\"");
	expect_error(PROC("\"oomScoreAdj\":1001"),
		     "config.json: process.oomScoreAdj: 1001 is out of range (-1000..1000)");
	expect_error(PROC("\"scheduler\":{\"policy\":\"SCHED_FOO\"}"),
		     "config.json: process.scheduler.policy: unknown scheduler policy \"SCHED_FOO\"");
	expect_error(PROC("\"scheduler\":{\"policy\":\"SCHED_OTHER\",\"flags\":[\"X\"]}"),
		     "config.json: process.scheduler.flags[0]: unknown scheduler flag \"X\"");
	expect_error(PROC("\"scheduler\":{\"policy\":\"SCHED_OTHER\",\"nice\":20}"),
		     "config.json: process.scheduler.nice: 20 is out of range (-20..19)");
	expect_error(PROC("\"ioPriority\":{\"class\":\"IOPRIO_CLASS_X\",\"priority\":1}"),
		     "config.json: process.ioPriority.class: unknown I/O priority class \"IOPRIO_CLASS_X\"");
	expect_error(PROC("\"ioPriority\":{\"class\":\"IOPRIO_CLASS_RT\",\"priority\":8}"),
		     "config.json: process.ioPriority.priority: 8 is out of range (0..7)");
	expect_error(BASE "\"hooks\":{\"poststop\":[{\"path\":\"bin/x\"}]}}",
		     "config.json: hooks.poststop[0].path: must be an absolute path, got \"bin/x\"");
	expect_error(BASE "\"hooks\":{\"createRuntime\":[{\"path\":\"/x\",\"timeout\":0}]}}",
		     "config.json: hooks.createRuntime[0].timeout: must be greater than zero, got 0");
	expect_error(LINUX("\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"ipc\"},{\"type\":\"foo\"}]"),
		     "config.json: linux.namespaces[2].type: unknown namespace type \"foo\"");
	expect_error(LINUX("\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"pid\"}]"),
		     "config.json: linux.namespaces[1].type: duplicate namespace type \"pid\"");
	expect_error(LINUX("\"namespaces\":[{\"type\":\"network\",\"path\":\"proc/1/ns/net\"}]"),
		     "config.json: linux.namespaces[0].path: must be an absolute path, got \"proc/1/ns/net\"");
	expect_error(LINUX("\"devices\":[{\"type\":\"x\",\"path\":\"/dev/x\"}]"),
		     "config.json: linux.devices[0].type: unknown device type \"x\"");
	expect_error(LINUX("\"devices\":[{\"type\":\"c\",\"path\":\"dev/x\"}]"),
		     "config.json: linux.devices[0].path: must be an absolute path, got \"dev/x\"");
	expect_error(RES("\"devices\":[{\"allow\":true,\"type\":\"p\"}]"),
		     "config.json: linux.resources.devices[0].type: unknown device type \"p\"");
	expect_error(
		RES("\"devices\":[{\"allow\":true,\"access\":\"rwx\"}]"),
		"config.json: linux.resources.devices[0].access: expected a combination of r, w and m, got \"rwx\"");
	expect_error(RES("\"blockIO\":{\"weight\":5}"),
		     "config.json: linux.resources.blockIO.weight: 5 is out of range (10..1000)");
	expect_error(RES("\"blockIO\":{\"leafWeight\":70000}"),
		     "config.json: linux.resources.blockIO.leafWeight: 70000 is out of range (10..1000)");
	expect_error(RES("\"blockIO\":{\"weightDevice\":[{\"major\":8,\"minor\":0,\"weight\":1001}]}"),
		     "config.json: linux.resources.blockIO.weightDevice[0].weight: 1001 is out of range (10..1000)");
	expect_error(RES("\"memory\":{\"swappiness\":101}"),
		     "config.json: linux.resources.memory.swappiness: 101 is out of range (0..100)");
	expect_error(LINUX("\"seccomp\":{\"defaultAction\":\"SCMP_ACT_FOO\"}"),
		     "config.json: linux.seccomp.defaultAction: unknown seccomp action \"SCMP_ACT_FOO\"");
	expect_error(SECCOMP("\"architectures\":[\"SCMP_ARCH_X86_64\",\"SCMP_ARCH_Z80\"]"),
		     "config.json: linux.seccomp.architectures[1]: unknown seccomp architecture \"SCMP_ARCH_Z80\"");
	expect_error(SECCOMP("\"flags\":[\"SECCOMP_FILTER_FLAG_FOO\"]"),
		     "config.json: linux.seccomp.flags[0]: unknown seccomp flag \"SECCOMP_FILTER_FLAG_FOO\"");
	expect_error(SECCOMP("\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_NOPE\"}]"),
		     "config.json: linux.seccomp.syscalls[0].action: unknown seccomp action \"SCMP_ACT_NOPE\"");
	expect_error(SECCOMP("\"syscalls\":[{\"names\":[],\"action\":\"SCMP_ACT_ALLOW\"}]"),
		     "config.json: linux.seccomp.syscalls[0].names: must contain at least one entry");
	expect_error(
		SECCOMP("\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":0,\"value\":1,\"op\":\"SCMP_CMP_FOO\"}]}]"),
		"config.json: linux.seccomp.syscalls[0].args[0].op: unknown seccomp operator \"SCMP_CMP_FOO\"");
	expect_error(
		SECCOMP("\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":6,\"value\":1,\"op\":\"SCMP_CMP_EQ\"}]}]"),
		"config.json: linux.seccomp.syscalls[0].args[0].index: 6 is out of range (0..5)");
	expect_error(LINUX("\"rootfsPropagation\":\"weird\""),
		     "config.json: linux.rootfsPropagation: unknown rootfs propagation \"weird\"");
	expect_error(LINUX("\"maskedPaths\":[\"/proc/kcore\",\"proc/keys\"]"),
		     "config.json: linux.maskedPaths[1]: must be an absolute path, got \"proc/keys\"");
	expect_error(LINUX("\"readonlyPaths\":[\"sys\"]"),
		     "config.json: linux.readonlyPaths[0]: must be an absolute path, got \"sys\"");
	expect_error(LINUX("\"personality\":{\"domain\":\"LINUX64\"}"),
		     "config.json: linux.personality.domain: unknown personality domain \"LINUX64\"");
	expect_error(LINUX("\"personality\":{\"domain\":\"LINUX\",\"flags\":[\"X\"]}"),
		     "config.json: linux.personality.flags[0]: unknown personality flag \"X\"");
	expect_error(LINUX("\"memoryPolicy\":{\"mode\":\"MPOL_NOPE\"}"),
		     "config.json: linux.memoryPolicy.mode: unknown memory policy mode \"MPOL_NOPE\"");
	expect_error(LINUX("\"memoryPolicy\":{\"mode\":\"MPOL_BIND\",\"flags\":[\"MPOL_F_NOPE\"]}"),
		     "config.json: linux.memoryPolicy.flags[0]: unknown memory policy flag \"MPOL_F_NOPE\"");
	expect_error(LINUX("\"timeOffsets\":{\"realtime\":{\"secs\":1}}"),
		     "config.json: linux.timeOffsets: unknown clock \"realtime\"");
	expect_error(LINUX("\"timeOffsets\":{\"monotonic\":{\"nanosecs\":1000000000}}"),
		     "config.json: linux.timeOffsets.monotonic.nanosecs: 1000000000 is out of range (0..999999999)");
	expect_error(LINUX("\"netDevices\":{\"a/b\":{}}"),
		     "config.json: linux.netDevices: invalid interface name \"a/b\"");
}

static void test_malformed(void)
{
	expect_error("{\"ociVersion\": \"1.0.0\",}",
		     "config.json: invalid JSON at byte 24: parse error: invalid object key (must be a string)");
	expect_error("{\"ociVersion\": \"1.0.0\"", "config.json: invalid JSON at byte 22: parse error: premature EOF");
	expect_error("  \n", "config.json: invalid JSON at byte 3: parse error: premature EOF");
	expect_error("", "config.json: invalid JSON at byte 0: parse error: premature EOF");
	expect_error("{\"ociVersion\":\"1.0.0\"} x",
		     "config.json: invalid JSON at byte 24: parse error: trailing garbage");
	expect_error("{\"ociVersion\":tru}",
		     "config.json: invalid JSON at byte 17: lexical error: invalid string in json text.");
	expect_error(
		"{\"ociVersion\":\"1.0.0\" /* c */}",
		"config.json: invalid JSON at byte 22: lexical error: probable comment found in input text, comments are not enabled.");
	expect_error("{\"hostname\":\"ab\xff\"}", "config.json: invalid UTF-8 in a string at byte 16");
	expect_error("{\"host\xc3\x28\":\"a\"}", "config.json: invalid UTF-8 in a string at byte 8");
	expect_error("{\"a\":\"\x01\"}",
		     "config.json: invalid JSON at byte 6: lexical error: invalid character inside string.");
}

static void test_limits(void)
{
	/* 64 levels (the top-level object plus 63 arrays) are fine, 65 are not. */
	char deep[256], deeper[256];
	size_t o = (size_t)snprintf(deep, sizeof(deep), "{\"ociVersion\":\"1.0.0\",\"x\":");
	for (int i = 0; i < 63; i++)
		deep[o++] = '[';
	for (int i = 0; i < 63; i++)
		deep[o++] = ']';
	deep[o++] = '}';
	deep[o] = '\0';
	oci_spec_free(expect_valid(deep, "nesting of 64 levels"));
	o = (size_t)snprintf(deeper, sizeof(deeper), "{\"ociVersion\":\"1.0.0\",\"x\":");
	for (int i = 0; i < 64; i++)
		deeper[o++] = '[';
	for (int i = 0; i < 64; i++)
		deeper[o++] = ']';
	deeper[o++] = '}';
	deeper[o] = '\0';
	expect_error(deeper, "config.json: nesting deeper than 64 levels at byte 89");

	/* 200,000 environment entries and an 8 MiB string. */
	size_t n = 200000, cap = 16 * 1024 * 1024 + 64;
	char *big = malloc(cap);
	o = (size_t)snprintf(big, cap,
			     "{\"ociVersion\":\"1.0.0\",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"env\":[");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(big + o, cap - o, "%s\"V%zu=1\"", i ? "," : "", i);
	o += (size_t)snprintf(big + o, cap - o, "]},\"hostname\":\"");
	memset(big + o, 'h', 8 * 1024 * 1024);
	o += 8 * 1024 * 1024;
	o += (size_t)snprintf(big + o, cap - o, "\"}");
	oci_spec *s = NULL;
	cv_error_t err = NULL;
	int r = oci_spec_parse(big, o, "config.json", &s, &err);
	ok(r == 0 && s->process->env.len == n && strlen(s->hostname) == 8 * 1024 * 1024,
	   "a huge array (%zu entries) and a huge string (8 MiB)", n);
	if (r < 0)
		tap_diag("%s", err->msg);
	cv_error_release(&err);
	oci_spec_free(s);
	s = NULL;

	/* Over 16 MiB: refused before parsing. */
	memset(big, ' ', cap);
	memcpy(big, "{\"ociVersion\":\"1.0.0\"}", 22);
	r = oci_spec_parse(big, 16 * 1024 * 1024 + 1, "config.json", &s, &err);
	is_str(r < 0 ? err->msg : NULL, "config.json: document too large (16777217 bytes, the limit is 16 MiB)",
	       "a document over 16 MiB is refused");
	cv_error_release(&err);
	r = oci_spec_parse(big, 16 * 1024 * 1024, "config.json", &s, &err);
	ok(r == 0, "a document of exactly 16 MiB is accepted");
	oci_spec_free(s);
	cv_error_release(&err);

	/* The same limit for files. */
	char path[] = "/tmp/cvisor-test-spec-XXXXXX";
	int fd = mkstemp(path);
	ok(fd >= 0 && write(fd, big, 16 * 1024 * 1024 + 1) == 16 * 1024 * 1024 + 1, "write a 16 MiB + 1 file");
	s = NULL;
	r = oci_spec_load(path, &s, &err);
	char want[256];
	snprintf(want, sizeof(want), "`%s`: too large (16777217 bytes, the limit is 16 MiB)", path);
	is_str(r < 0 ? err->msg : NULL, want, "oci_spec_load refuses a file over 16 MiB");
	cv_error_release(&err);
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(big);
}

static void test_load(void)
{
	oci_spec *s = NULL;
	cv_error_t err = NULL;
	char path[4096];
	snprintf(path, sizeof(path), "%s/full.json", TEST_DATA_DIR);
	ok(oci_spec_load(path, &s, &err) == 0 && s && strcmp(s->hostname, "full-host") == 0,
	   "oci_spec_load reads a file");
	oci_spec_free(s);
	s = NULL;
	cv_error_release(&err);

	ok(oci_spec_load("/nonexistent/config.json", &s, &err) < 0 && err->errnum == ENOENT &&
		   strcmp(err->msg, "open `/nonexistent/config.json`: No such file or directory") == 0,
	   "a missing file names the path and errno");
	cv_error_release(&err);

	char dir[] = "/tmp/cvisor-test-spec-XXXXXX";
	ok(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/config.json", dir);
	FILE *f = fopen(path, "we");
	fputs("{\"ociVersion\":\"1.0.0\",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"user\":{\"uid\":\"root\",\"gid\":0}}}",
	      f);
	fclose(f);
	ok(oci_spec_load(path, &s, &err) < 0, "oci_spec_load reports errors");
	is_str(err ? err->msg : NULL, "config.json: process.user.uid: expected a non-negative integer, got \"root\"",
	       "errors are prefixed with the file's basename");
	cv_error_release(&err);
	ok(oci_spec_load(dir, &s, &err) < 0, "a directory is refused");
	cv_error_release(&err);
	unlink(path);
	rmdir(dir);
}

static void test_process(void)
{
	oci_process *p = NULL;
	cv_error_t err = NULL;
	const char *json =
		"{\"args\":[\"ls\",\"-l\"],\"cwd\":\"/tmp\",\"env\":[\"A=1\"],\"terminal\":true,"
		"\"user\":{\"uid\":1,\"gid\":2,\"additionalGids\":[3]},\"capabilities\":{\"bounding\":[\"CAP_KILL\"]},"
		"\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":10,\"soft\":5}],\"noNewPrivileges\":true,"
		"\"consoleSize\":{\"height\":10,\"width\":20},\"oomScoreAdj\":5,\"apparmorProfile\":\"p\","
		"\"selinuxLabel\":\"l\",\"scheduler\":{\"policy\":\"SCHED_BATCH\"},"
		"\"ioPriority\":{\"class\":\"IOPRIO_CLASS_IDLE\",\"priority\":0},\"execCPUAffinity\":{\"final\":\"1\"}}";
	int r = oci_process_parse(json, strlen(json), "process.json", &p, &err);
	ok(r == 0 && p && p->args.len == 2 && p->user.gid == 2, "oci_process_parse accepts a process");
	if (r == 0) {
		for (int pretty = 0; pretty <= 1; pretty++) {
			char *out = NULL;
			size_t len;
			oci_process *q = NULL;
			ok(oci_process_emit(p, pretty, &out, &len, &err) == 0, "oci_process_emit");
			ok(oci_process_parse(out, len, "emitted", &q, &err) == 0 && oci_process_equal(p, q),
			   "process round trip (%s)", pretty ? "pretty" : "compact");
			cleanup_free char *c1 = canonical(json);
			cleanup_free char *c2 = canonical(out);
			is_str(c2, c1, "process: emitted JSON has every property of the input");
			oci_process_free(q);
			free(out);
		}
	}
	oci_process_free(p);
	cv_error_release(&err);

	static const struct {
		const char *json, *want;
	} cases[] = {
		{ "{\"args\":[\"sh\"]}", "process.json: missing required property \"cwd\"" },
		{ "{\"cwd\":\"/\"}", "process.json: missing required property \"args\"" },
		{ "{\"args\":[\"sh\"],\"cwd\":\"/\",\"user\":{\"uid\":\"root\",\"gid\":0}}",
		  "process.json: user.uid: expected a non-negative integer, got \"root\"" },
		{ "{\"args\":[\"sh\"],\"cwd\":\"rel\"}", "process.json: cwd: must be an absolute path, got \"rel\"" },
		{ "{\"args\":[\"sh\"],\"cwd\":\"/\",\"rlimits\":[{\"type\":\"X\",\"soft\":1,\"hard\":1}]}",
		  "process.json: rlimits[0].type: unknown rlimit type \"X\"" },
		{ "[1]", "process.json: expected a JSON object at the top level, got an array" },
		{ "{\"args\":[\"sh\"],", "process.json: invalid JSON at byte 15: parse error: premature EOF" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = NULL;
		r = oci_process_parse(cases[i].json, strlen(cases[i].json), "process.json", &p, &err);
		is_str(r < 0 ? err->msg : NULL, cases[i].want, "process error: %s", cases[i].want);
		oci_process_free(p);
		cv_error_release(&err);
	}
}

static bool has_ns(const oci_linux *l, const char *type)
{
	for (size_t i = 0; i < l->namespaces_len; i++)
		if (strcmp(l->namespaces[i].type, type) == 0)
			return true;
	return false;
}

static const oci_mount *find_mount(const oci_spec *s, const char *dest)
{
	for (size_t i = 0; i < s->mounts_len; i++)
		if (strcmp(s->mounts[i].destination, dest) == 0)
			return &s->mounts[i];
	return NULL;
}

static bool has_option(const oci_mount *m, const char *prefix)
{
	for (size_t i = 0; m && i < m->options.len; i++)
		if (strncmp(m->options.v[i], prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

#define RUNC_LIKE_HEAD "{\n\t\"ociVersion\": \"" OCI_VERSION "\",\n\t\"process\": {\n\t\t\"terminal\": true,"
static void test_default(void)
{
	cleanup_spec oci_spec *s = NULL;
	cv_error_t err = NULL;
	ok(oci_spec_default(false, &s, &err) == 0, "oci_spec_default(false)");
	if (!s)
		return;
	const oci_process *p = s->process;
	is_str(s->oci_version, OCI_VERSION, "default: ociVersion");
	ok(p->terminal && p->args.len == 1 && strcmp(p->args.v[0], "sh") == 0, "default: sh with a terminal");
	ok(p->env.len == 2 && strcmp(p->env.v[1], "TERM=xterm") == 0 && strncmp(p->env.v[0], "PATH=", 5) == 0,
	   "default: PATH and TERM");
	is_str(p->cwd, "/", "default: cwd");
	ok(p->capabilities && p->capabilities->bounding.len == 3 && p->capabilities->effective.len == 3 &&
		   p->capabilities->permitted.len == 3 &&
		   strcmp(p->capabilities->bounding.v[2], "CAP_NET_BIND_SERVICE") == 0,
	   "default: three capabilities");
	ok(p->rlimits_len == 1 && strcmp(p->rlimits[0].type, "RLIMIT_NOFILE") == 0 && p->rlimits[0].hard == 1024 &&
		   p->rlimits[0].soft == 1024,
	   "default: RLIMIT_NOFILE 1024");
	ok(p->no_new_privileges, "default: noNewPrivileges");
	ok(s->root && strcmp(s->root->path, "rootfs") == 0 && s->root->readonly, "default: read-only rootfs");
	is_str(s->hostname, "cvisor", "default: hostname");
	ok(s->mounts_len == 7 && find_mount(s, "/sys/fs/cgroup") && has_option(find_mount(s, "/dev/pts"), "gid=5"),
	   "default: seven mounts");
	is_str(find_mount(s, "/sys") ? find_mount(s, "/sys")->type : NULL, "sysfs", "default: sysfs on /sys");
	const oci_linux *l = s->linux_;
	ok(l->namespaces_len == 6 && has_ns(l, "pid") && has_ns(l, "network") && has_ns(l, "ipc") && has_ns(l, "uts") &&
		   has_ns(l, "mount") && has_ns(l, "cgroup") && !has_ns(l, "user"),
	   "default: pid network ipc uts mount cgroup namespaces");
	ok(l->resources && l->resources->devices_len == 1 && !l->resources->devices[0].allow &&
		   strcmp(l->resources->devices[0].access, "rwm") == 0,
	   "default: deny all devices");
	ok(l->masked_paths.len == 10 && l->readonly_paths.len == 5, "default: masked and read-only paths");

	cleanup_spec oci_spec *rl = NULL;
	ok(oci_spec_default(true, &rl, &err) == 0, "oci_spec_default(true)");
	if (!rl)
		return;
	l = rl->linux_;
	ok(has_ns(l, "user") && !has_ns(l, "network") && l->namespaces_len == 6,
	   "rootless: user namespace, no network");
	ok(l->uid_mappings.len == 1 && l->uid_mappings.v[0].container_id == 0 &&
		   l->uid_mappings.v[0].host_id == geteuid() && l->uid_mappings.v[0].size == 1,
	   "rootless: uid mapping of the caller to 0");
	ok(l->gid_mappings.len == 1 && l->gid_mappings.v[0].host_id == getegid(), "rootless: gid mapping");
	const oci_mount *sys = find_mount(rl, "/sys");
	ok(sys && strcmp(sys->type, "none") == 0 && strcmp(sys->source, "/sys") == 0 && has_option(sys, "rbind") &&
		   has_option(sys, "ro"),
	   "rootless: /sys is a recursive bind");
	ok(!has_option(find_mount(rl, "/dev/pts"), "gid=") && has_option(find_mount(rl, "/dev/pts"), "mode=0620"),
	   "rootless: devpts without gid=");
	ok(!l->resources, "rootless: no resources");

	/* Both defaults survive a round trip. */
	char *out = NULL;
	size_t len;
	ok(oci_spec_emit(rl, true, &out, &len, &err) == 0, "rootless default emits");
	cleanup_spec oci_spec *back = NULL;
	ok(out && oci_spec_parse(out, len, "x", &back, &err) == 0 && oci_spec_equal(rl, back),
	   "rootless default round trip");
	free(out);
	ok(oci_spec_emit(s, true, &out, &len, &err) == 0 &&
		   strncmp(out, RUNC_LIKE_HEAD, sizeof(RUNC_LIKE_HEAD) - 1) == 0,
	   "default emits like runc spec (tabs, order)");
	free(out);
	cv_error_release(&err);
}

static void test_emit_errors(void)
{
	cleanup_spec oci_spec *s = NULL;
	cv_error_t err = NULL;
	ok(oci_spec_default(false, &s, &err) == 0, "default for emit errors");
	if (!s)
		return;
	free(s->hostname);
	s->hostname = strdup("bad\xff");
	char *out = NULL;
	size_t len;
	ok(oci_spec_emit(s, false, &out, &len, &err) < 0, "emit refuses a non-UTF-8 string");
	is_str(err ? err->msg : NULL, "emit JSON: a string is not valid UTF-8", "emit error message");
	cv_error_release(&err);
	free(out);

	/* validate() also guards programmatically built specs */
	free(s->hostname);
	s->hostname = NULL;
	free(s->linux_->namespaces[0].type);
	s->linux_->namespaces[0].type = strdup("ipc");
	is_str(oci_spec_validate(s, "spec", &err) < 0 ? err->msg : NULL,
	       "spec: linux.namespaces[2].type: duplicate namespace type \"ipc\"", "validate catches duplicates");
	cv_error_release(&err);
}

static void test_state(void)
{
	oci_kv cg[] = { { (char *)"memory", (char *)"/sys/fs/cgroup/memory/x" },
			{ (char *)"unified", (char *)"/sys/fs/cgroup/unified/x" } };
	oci_kv ann[] = { { (char *)"a", (char *)"1" } };
	oci_kv extra[] = { { (char *)"k", (char *)"v" } };
	oci_state st = {
		.oci_version = (char *)"1.3.0",
		.id = (char *)"c1",
		.status = (char *)"running",
		.pid = 4242,
		.pid_start = 18446744073709551615ull,
		.bundle = (char *)"/b",
		.rootfs = (char *)"/b/rootfs",
		.created = (char *)"2024-01-02T03:04:05.123456789Z",
		.owner = (char *)"root",
		.cgroup_path = (char *)"/x",
		.cgroup_paths = { cg, 2 },
		.systemd_cgroup = true,
		.rootless = true,
		.no_pivot = true,
		.no_new_keyring = true,
		.annotations = { ann, 1 },
		.extra = { extra, 1 },
	};
	char *out = NULL;
	size_t len;
	cv_error_t err = NULL;
	ok(oci_state_emit(&st, &out, &len, &err) == 0, "oci_state_emit");
	oci_state *back = NULL;
	ok(out && oci_state_parse(out, len, "state.json", &back, &err) == 0, "oci_state_parse of the emitted record");
	if (back) {
		ok(strcmp(back->oci_version, "1.3.0") == 0 && strcmp(back->id, "c1") == 0 &&
			   strcmp(back->status, "running") == 0 && back->pid == 4242 &&
			   back->pid_start == 18446744073709551615ull && strcmp(back->bundle, "/b") == 0 &&
			   strcmp(back->rootfs, "/b/rootfs") == 0 &&
			   strcmp(back->created, "2024-01-02T03:04:05.123456789Z") == 0 &&
			   strcmp(back->owner, "root") == 0 && strcmp(back->cgroup_path, "/x") == 0,
		   "state round trip: scalars");
		ok(back->cgroup_paths.len == 2 && strcmp(back->cgroup_paths.v[1].key, "unified") == 0 &&
			   strcmp(back->cgroup_paths.v[1].value, "/sys/fs/cgroup/unified/x") == 0 &&
			   back->annotations.len == 1 && strcmp(back->annotations.v[0].value, "1") == 0 &&
			   back->extra.len == 1 && strcmp(back->extra.v[0].key, "k") == 0,
		   "state round trip: maps");
		ok(back->systemd_cgroup && back->rootless && back->no_pivot && back->no_new_keyring,
		   "state round trip: flags");
	}
	oci_state_free(back);
	free(out);

	ok(oci_state_emit_public(&st, false, &out, &len, &err) == 0, "oci_state_emit_public");
	is_str(out,
	       "{\"ociVersion\":\"1.3.0\",\"id\":\"c1\",\"pid\":4242,\"status\":\"running\",\"bundle\":\"/b\","
	       "\"rootfs\":\"/b/rootfs\",\"created\":\"2024-01-02T03:04:05.123456789Z\",\"owner\":\"root\","
	       "\"annotations\":{\"a\":\"1\"}}",
	       "public state document");
	free(out);
	st.pid = 0;
	st.status = (char *)"stopped";
	st.annotations.len = 0;
	ok(oci_state_emit_public(&st, false, &out, &len, &err) == 0 &&
		   strstr(out, "\"pid\":0,\"status\":\"stopped\"") && !strstr(out, "annotations"),
	   "a stopped container shows pid 0, like runc");
	free(out);

	static const struct {
		const char *json, *want;
	} cases[] = {
		{ "{\"ociVersion\":\"1\",\"id\":\"x\",\"status\":\"created\"}",
		  "state.json: missing required property \"bundle\"" },
		{ "{\"ociVersion\":\"1\",\"id\":\"x\",\"status\":\"created\",\"bundle\":\"/b\",\"pid\":-5}",
		  "state.json: pid: -5 is out of range (0..4194304)" },
		{ "{\"ociVersion\":\"1\",\"id\":1}", "state.json: id: expected a string, got 1" },
		{ "[", "state.json: invalid JSON at byte 1: parse error: premature EOF" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		oci_state *x = NULL;
		int r = oci_state_parse(cases[i].json, strlen(cases[i].json), "state.json", &x, &err);
		is_str(r < 0 ? err->msg : NULL, cases[i].want, "state error: %s", cases[i].want);
		oci_state_free(x);
		cv_error_release(&err);
	}
}

static void test_features(void)
{
	static const char *const hooks[] = { "prestart", "poststop" };
	static const char *const ns[] = { "pid", "user" };
	static const char *const modes[] = { "MPOL_BIND" };
	static const oci_ckv ann[] = { { "org.opencontainers.runc.version", "x" } };
	oci_features f = {
		.oci_version_min = "1.0.0",
		.oci_version_max = "1.3.0",
		.hooks = OCI_CSTRV(hooks),
		.annotations = ann,
		.annotations_len = 1,
		.potentially_unsafe_config_annotations = { NULL, 0, true },
		.has_linux = true,
	};
	f.linux_.namespaces = OCI_CSTRV(ns);
	f.linux_.cgroup.present = true;
	f.linux_.cgroup.v2 = (oci_opt_bool){ true, true };
	f.linux_.cgroup.rdma = (oci_opt_bool){ true, false };
	f.linux_.seccomp.present = true;
	f.linux_.seccomp.enabled = (oci_opt_bool){ true, true };
	f.linux_.apparmor.present = true;
	f.linux_.apparmor.enabled = (oci_opt_bool){ true, false };
	f.linux_.intel_rdt.present = true;
	f.linux_.intel_rdt.enabled = (oci_opt_bool){ true, false };
	f.linux_.intel_rdt.schemata = (oci_opt_bool){ true, false };
	f.linux_.memory_policy.present = true;
	f.linux_.memory_policy.modes = OCI_CSTRV(modes);
	f.linux_.mount_extensions.present = true;
	f.linux_.mount_extensions.idmap_present = true;
	f.linux_.mount_extensions.idmap_enabled = (oci_opt_bool){ true, true };
	f.linux_.net_devices.present = true;
	f.linux_.net_devices.enabled = (oci_opt_bool){ true, false };
	char *out = NULL;
	size_t len;
	cv_error_t err = NULL;
	ok(oci_features_emit(&f, false, &out, &len, &err) == 0, "oci_features_emit");
	is_str(out,
	       "{\"ociVersionMin\":\"1.0.0\",\"ociVersionMax\":\"1.3.0\",\"hooks\":[\"prestart\",\"poststop\"],"
	       "\"linux\":{\"namespaces\":[\"pid\",\"user\"],\"cgroup\":{\"v2\":true,\"rdma\":false},"
	       "\"seccomp\":{\"enabled\":true},\"apparmor\":{\"enabled\":false},"
	       "\"intelRdt\":{\"enabled\":false,\"schemata\":false},\"memoryPolicy\":{\"modes\":[\"MPOL_BIND\"]},"
	       "\"mountExtensions\":{\"idmap\":{\"enabled\":true}},\"netDevices\":{\"enabled\":false}},"
	       "\"annotations\":{\"org.opencontainers.runc.version\":\"x\"},\"potentiallyUnsafeConfigAnnotations\":[]}",
	       "features document");
	free(out);
	f.oci_version_max = NULL;
	ok(oci_features_emit(&f, false, &out, &len, &err) < 0, "features without ociVersionMax is refused");
	cv_error_release(&err);
}

int main(void)
{
	test_valid_documents();
	test_type_errors();
	test_missing_required();
	test_semantic_errors();
	test_malformed();
	test_limits();
	test_load();
	test_process();
	test_default();
	test_emit_errors();
	test_state();
	test_features();
	return tap_done();
}
