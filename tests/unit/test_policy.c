/* Unit tests for src/libcvisor/sandbox/policy.c: every key, sizes, ranges, exact messages. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "sandbox/policy.h"
#include "tap.h"

/* Parses TEXT; returns the policy or NULL with *msg set to the error. */
static cv_policy *parse(const char *text, char **msg)
{
	cv_error_t err = NULL;
	cv_policy *p = NULL;
	*msg = NULL;
	if (cv_policy_parse(text, strlen(text), "policy.json", &p, &err) < 0) {
		*msg = strdup(err && err->msg ? err->msg : "(no message)");
		cv_error_release(&err);
		return NULL;
	}
	return p;
}

/* The error of TEXT must be exactly WANT. */
static void fails(const char *text, const char *want)
{
	cleanup_free char *msg = NULL;
	cv_policy *p = parse(text, &msg);
	ok(p == NULL, "rejects %s", text);
	cv_policy_free(p);
	is_str(msg, want, "message for %s", text);
}

static void flag_fails(const char *key, const char *value, const char *want)
{
	cleanup_policy cv_policy *p = NULL;
	cv_error_t err = NULL;
	(void)cv_policy_new(&p, &err);
	int r = cv_policy_set(p, key, value, &err);
	ok(r < 0, "flag %s %s is rejected", key, value);
	is_str(err ? err->msg : NULL, want, "message for flag %s %s", key, value);
	cv_error_release(&err);
}

static uint64_t size_of(const char *s)
{
	uint64_t v = 0;
	return cv_policy_parse_size(s, &v) < 0 ? UINT64_MAX : v;
}

static void test_full(void)
{
	const char *doc =
		"{\n"
		" \"rootfs\": \"/srv/root\", \"workspace\": \"~/proj\",\n"
		" \"writable\": [\"/var/cache/x\", \"~/.cache\"],\n"
		" \"deny_write\": [\"~/proj/.git\"], \"deny_read\": [\"/etc/secret\"],\n"
		" \"network\": \"host\", \"allow_host_loopback\": false, \"env\": [\"EDITOR\", \"LC_*\", \"MODE=a=b\"],\n"
		" \"memory\": \"512MB\", \"cpus\": 1.5, \"cpu_seconds\": 60, \"processes\": 64,\n"
		" \"max_file_size\": \"1.5G\", \"open_files\": 256, \"timeout\": 2.5,\n"
		" \"max_output_bytes\": 4096, \"require_limits\": true, \"user\": \"1000:100\"\n"
		"}";
	cleanup_free char *msg = NULL;
	cleanup_policy cv_policy *p = parse(doc, &msg);
	if (!ok(p != NULL, "full policy parses")) {
		tap_diag("%s", msg);
		return;
	}
	is_str(p->rootfs, "/srv/root", "rootfs");
	is_str(p->workspace, "~/proj", "workspace keeps ~/ for the caller's home");
	ok(p->writable.len == 2 && !strcmp(p->writable.v[1], "~/.cache"), "writable list");
	ok(p->deny_write.len == 1 && p->deny_read.len == 1, "deny lists");
	ok(p->network_set && p->network == CV_POLICY_NET_HOST, "network host");
	ok(p->allow_host_loopback.set && !p->allow_host_loopback.v, "allow_host_loopback false");
	ok(p->env.len == 3 && !strcmp(p->env.v[2], "MODE=a=b"), "env entries");
	ok(p->memory.set && p->memory.v == 512ull << 20, "memory 512MB");
	ok(p->cpus_milli.set && p->cpus_milli.v == 1500, "cpus 1.5");
	ok(p->cpu_seconds.v == 60 && p->processes.v == 64 && p->open_files.v == 256, "counts");
	ok(p->max_file_size.v == 1610612736ull, "max_file_size 1.5G");
	ok(p->timeout_ms.set && p->timeout_ms.v == 2500, "timeout 2.5 s");
	ok(p->max_output_bytes.v == 4096, "max_output_bytes as a number of bytes");
	ok(p->require_limits.set && p->require_limits.v, "require_limits true");
	ok(p->user_set && p->uid == 1000 && p->gid == 100, "user 1000:100");

	/* emit and parse again: the same policy */
	cleanup_free char *json = NULL;
	cv_error_t err = NULL;
	ok(cv_policy_emit(p, false, &json, NULL, &err) == 0, "emit");
	cleanup_free char *msg2 = NULL;
	cleanup_policy cv_policy *q = json ? parse(json, &msg2) : NULL;
	cleanup_free char *json2 = NULL;
	ok(q && cv_policy_emit(q, false, &json2, NULL, &err) == 0, "emitted policy parses");
	is_str(json2, json, "round trip is stable");
	cv_error_release(&err);
}

static void test_defaults(void)
{
	cleanup_free char *msg = NULL;
	cleanup_policy cv_policy *p = parse("{}", &msg);
	ok(p && !p->rootfs && !p->workspace && !p->network_set && p->network == CV_POLICY_NET_NONE && !p->memory.set &&
		   !p->timeout_ms.set && !p->user_set && !p->env.set,
	   "empty policy: every default");
	cleanup_free char *msg2 = NULL;
	cleanup_policy cv_policy *q = parse("{\"memory\": null, \"writable\": []}", &msg2);
	ok(q && !q->memory.set && q->writable.set && q->writable.len == 0, "null is absent, [] is an empty list");
	cleanup_free char *msg3 = NULL;
	cleanup_policy cv_policy *u = parse("{\"user\": 1000}", &msg3);
	ok(u && u->uid == 1000 && u->gid == 1000, "user as a number: gid = uid");
}

static void test_sizes(void)
{
	ok(size_of("512MB") == 512ull << 20, "512MB");
	ok(size_of("1.5G") == 3ull << 29, "1.5G");
	ok(size_of("64k") == 65536, "64k");
	ok(size_of("2KiB") == 2048, "2KiB");
	ok(size_of("1T") == 1ull << 40, "1T");
	ok(size_of("100") == 100, "plain bytes");
	ok(size_of("100b") == 100, "100b");
	ok(size_of("0.5K") == 512, "0.5K");
	ok(size_of("1.5") == UINT64_MAX, "fraction of a byte refused");
	ok(size_of("lots") == UINT64_MAX, "lots refused");
	ok(size_of("-1M") == UINT64_MAX, "negative refused");
	ok(size_of("1 MB") == UINT64_MAX, "space refused");
	ok(size_of("1MBB") == UINT64_MAX, "unknown unit refused");
	ok(size_of("") == UINT64_MAX, "empty refused");
	ok(size_of(".5M") == UINT64_MAX, "missing integer part refused");
	ok(size_of("99999999999999999999") == UINT64_MAX, "overflow refused");
	ok(size_of("16777216T") == UINT64_MAX, "overflow after the unit refused");
}

static void test_errors(void)
{
	fails("{\"memory\": \"lots\"}",
	      "policy.json: memory: expected a size like \"512MB\" or a number of bytes, got \"lots\"");
	fails("{\"memory\": 1.5}", "policy.json: memory: expected a size like \"512MB\" or a number of bytes, got 1.5");
	fails("{\"memory\": [1]}",
	      "policy.json: memory: expected a size like \"512MB\" or a number of bytes, got an array");
	fails("{\"memory\": \"1MB\"}", "policy.json: memory: must be at least 4MB, got \"1MB\"");
	fails("{\"memory\": \"16777216T\"}", "policy.json: memory: too large, got \"16777216T\"");
	fails("{\"processes\": 4}", "policy.json: processes: must be between 8 and 4194304, got 4");
	fails("{\"processes\": \"64\"}", "policy.json: processes: expected a whole number, got \"64\"");
	fails("{\"open_files\": 8}", "policy.json: open_files: must be between 16 and 1073741816, got 8");
	fails("{\"cpu_seconds\": 0}", "policy.json: cpu_seconds: must be between 1 and 4294967296, got 0");
	fails("{\"cpu_seconds\": 1.5}", "policy.json: cpu_seconds: expected a whole number, got 1.5");
	fails("{\"cpus\": 0}", "policy.json: cpus: must be between 0.01 and 4096 cores, got 0");
	fails("{\"cpus\": -2}", "policy.json: cpus: must be between 0.01 and 4096 cores, got -2");
	fails("{\"cpus\": \"2\"}", "policy.json: cpus: expected a number of cores like 1.5, got \"2\"");
	fails("{\"timeout\": 0}", "policy.json: timeout: must be between 0.001 and 31622400 seconds, got 0");
	fails("{\"timeout\": 1e3}", "policy.json: timeout: expected a number of seconds, got 1e3");
	fails("{\"max_file_size\": 0}", "policy.json: max_file_size: must be at least 1, got 0");
	fails("{\"max_output_bytes\": \"0MB\"}", "policy.json: max_output_bytes: must be at least 1, got \"0MB\"");
	fails("{\"tmp_size\": \"512k\"}", "policy.json: tmp_size: must be at least 1MB, got \"512k\"");
	fails("{\"network\": \"full\"}",
	      "policy.json: network: expected \"none\", \"outbound\" or \"host\", got \"full\"");
	fails("{\"network\": true}", "policy.json: network: expected \"none\", \"outbound\" or \"host\", got true");
	fails("{\"allow_host_loopback\": \"yes\"}",
	      "policy.json: allow_host_loopback: expected true or false, got \"yes\"");
	fails("{\"allow_host_loopback\": 1}", "policy.json: allow_host_loopback: expected true or false, got 1");
	fails("{\"env\": [\"PATH\", \"1X\"]}", "policy.json: env[1]: expected NAME, PREFIX* or NAME=value, got \"1X\"");
	fails("{\"env\": [\"*\"]}", "policy.json: env[0]: expected NAME, PREFIX* or NAME=value, got \"*\"");
	fails("{\"env\": \"PATH\"}", "policy.json: env: expected an array of strings, got \"PATH\"");
	fails("{\"writable\": [\"/ok\", \"rel/dir\"]}",
	      "policy.json: writable[1]: expected an absolute path or one starting with \"~/\", got \"rel/dir\"");
	fails("{\"writable\": [3]}",
	      "policy.json: writable[0]: expected an absolute path or one starting with \"~/\", got 3");
	fails("{\"deny_read\": [\"/a/../etc/shadow\"]}",
	      "policy.json: deny_read[0]: \"/a/../etc/shadow\": \".\" and \"..\" are not allowed in paths");
	fails("{\"workspace\": \"~user/x\"}",
	      "policy.json: workspace: expected an absolute path or one starting with \"~/\", got \"~user/x\"");
	fails("{\"rootfs\": \"/a\\u0000b\"}", "policy.json: rootfs: contains a NUL character");
	fails("{\"user\": \"bob\"}", "policy.json: user: expected UID or \"UID:GID\" (numbers), got \"bob\"");
	fails("{\"user\": \"1:\"}", "policy.json: user: expected UID or \"UID:GID\" (numbers), got \"1:\"");
	fails("{\"user\": 4294967295}", "policy.json: user: ids must be at most 4294967294");
	fails("{\"memroy\": \"1G\"}", "policy.json: unknown key \"memroy\" (did you mean \"memory\"?)");
	fails("{\"deny-read\": []}", "policy.json: unknown key \"deny-read\" (did you mean \"deny_read\"?)");
	fails("{\"allow_everything\": true}", "policy.json: unknown key \"allow_everything\"");
	fails("{\"memory\": \"1G\", \"memory\": \"2G\"}", "policy.json: memory: given twice");
	fails("[1]", "policy.json: expected an object, got an array");
	fails("{\"memory\": \"1G\",}",
	      "policy.json: invalid JSON at byte 17: parse error: invalid object key (must be a string)");
	fails("{\"memory\": ", "policy.json: invalid JSON at byte 11: parse error: premature EOF");
}

static void test_flags(void)
{
	cleanup_policy cv_policy *p = NULL;
	cv_error_t err = NULL;
	ok(cv_policy_new(&p, &err) == 0, "new policy");
	ok(cv_policy_set(p, "memory", "1G", &err) == 0 && p->memory.v == 1ull << 30, "--memory 1G");
	ok(cv_policy_set(p, "memory", "2G", &err) == 0 && p->memory.v == 2ull << 30, "a later value overrides");
	ok(cv_policy_set(p, "max-file-size", "10MB", &err) == 0 && p->max_file_size.v == 10ull << 20,
	   "flag spelling max-file-size");
	ok(cv_policy_set(p, "cpus", "0.5", &err) == 0 && p->cpus_milli.v == 500, "--cpus 0.5");
	ok(cv_policy_set(p, "processes", "32", &err) == 0 && p->processes.v == 32, "--processes 32");
	ok(cv_policy_set(p, "timeout", "10", &err) == 0 && p->timeout_ms.v == 10000, "--timeout 10");
	ok(cv_policy_set(p, "tmp-size", "256MB", &err) == 0 && p->tmp_size.set && p->tmp_size.v == 256ull << 20,
	   "--tmp-size 256MB");
	ok(cv_policy_set(p, "writable", "/a", &err) == 0 && cv_policy_set(p, "writable", "/b", &err) == 0 &&
		   p->writable.len == 2,
	   "list flags repeat");
	ok(cv_policy_set(p, "network", "outbound", &err) == 0 && p->network == CV_POLICY_NET_OUTBOUND,
	   "--network outbound");
	ok(cv_policy_set(p, "user", "0", &err) == 0 && p->uid == 0 && p->gid == 0, "--user 0");
	ok(cv_policy_set(p, "allow-host-loopback", "true", &err) == 0 && p->allow_host_loopback.set &&
		   p->allow_host_loopback.v,
	   "--allow-host-loopback");
	ok(cv_policy_set(p, "allow_host_loopback", "false", &err) == 0 && p->allow_host_loopback.set &&
		   !p->allow_host_loopback.v,
	   "allow_host_loopback false");
	cv_error_release(&err);
	bool list = false;
	ok(cv_policy_has_key("deny-write", &list) && list, "deny-write is a list flag");
	ok(cv_policy_has_key("open_files", &list) && !list, "open_files is a scalar");
	ok(!cv_policy_has_key("policy", NULL), "policy is not a key");

	flag_fails("memory", "lots", "--memory: expected a size like \"512MB\" or a number of bytes, got \"lots\"");
	flag_fails("max_file_size", "0", "--max-file-size: must be at least 1, got \"0\"");
	flag_fails("processes", "7", "--processes: must be between 8 and 4194304, got \"7\"");
	flag_fails("processes", "-1", "--processes: expected a whole number, got \"-1\"");
	flag_fails("timeout", "soon", "--timeout: expected a number of seconds, got \"soon\"");
	flag_fails("workspace", "rel",
		   "--workspace: expected an absolute path or one starting with \"~/\", got \"rel\"");
	flag_fails("bogus", "1", "--bogus: not a policy setting");
	flag_fails("allow-host-loopback", "maybe", "--allow-host-loopback: expected true or false, got \"maybe\"");
	flag_fails("require-limits", "sometimes", "--require-limits: expected true or false, got \"sometimes\"");
}

static void test_load(void)
{
	char path[] = "/tmp/cvisor-test-policy-XXXXXX";
	int fd = mkstemp(path);
	ok(fd >= 0, "temp file");
	if (fd < 0)
		return;
	const char doc[] = "{\n  \"processes\": 2\n}\n";
	ok(write(fd, doc, sizeof(doc) - 1) == (ssize_t)(sizeof(doc) - 1), "write policy");
	close(fd);
	cv_error_t err = NULL;
	cv_policy *p = NULL;
	ok(cv_policy_load(path, &p, &err) < 0, "load checks ranges");
	cleanup_free char *want = NULL;
	ok(asprintf(&want, "%s: processes: must be between 8 and 4194304, got 2", strrchr(path, '/') + 1) > 0,
	   "format");
	is_str(err ? err->msg : NULL, want, "errors are prefixed with the file's name");
	cv_error_release(&err);
	unlink(path);
	ok(cv_policy_load(path, &p, &err) < 0 && err && err->errnum == ENOENT, "missing file: ENOENT");
	cleanup_free char *want2 = NULL;
	ok(asprintf(&want2, "open `%s`: No such file or directory", path) > 0, "format");
	is_str(err ? err->msg : NULL, want2, "missing file message");
	cv_error_release(&err);
}

int main(void)
{
	test_full();
	test_defaults();
	test_sizes();
	test_errors();
	test_flags();
	test_load();
	return tap_done();
}
