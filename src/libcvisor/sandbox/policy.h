/* The sandbox policy of `cvisor do` and `cvisor spec --policy`: one flat JSON
 * object whose keys are also `cvisor do` flags. This module only parses and
 * validates; sandbox.c turns a policy into an oci_spec.
 *
 *   {
 *     "rootfs": "/srv/rootfs",          host root when absent; always read-only
 *     "workspace": "/home/me/project",  writable, the cwd; a private tmpfs when absent
 *     "writable": ["/home/me/.cache"],
 *     "deny_write": ["/home/me/project/.git"],
 *     "deny_read": ["~/secrets"],        added to the default credential list
 *     "network": "none",                 none | outbound | host
 *     "allow_host_loopback": false,      outbound: host's 127.0.0.1 at 10.0.2.2
 *     "env": ["EDITOR", "LC_*", "MODE=test"],  added to the default allowlist
 *     "memory": "512MB", "cpus": 1.5, "cpu_seconds": 60, "processes": 64,
 *     "max_file_size": "1G", "open_files": 256, "timeout": 30,
 *     "max_output_bytes": "10MB", "tmp_size": "256MB", "require_limits": false,
 *     "deny_listen": false, "user": "1000:1000"
 *   }
 *
 * Sizes are a number of bytes or a string like "512MB", "1.5G", "64k"
 * (powers of 1024). Paths are absolute or start with "~/" (the caller's
 * home). Unknown and duplicate keys are errors. */
#ifndef CVISOR_SANDBOX_POLICY_H
#define CVISOR_SANDBOX_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "oci/spec.h"

enum cv_policy_network {
	CV_POLICY_NET_NONE = 0, /* new network namespace with loopback only */
	CV_POLICY_NET_OUTBOUND, /* new network namespace + slirp4netns */
	CV_POLICY_NET_HOST,     /* the caller's network namespace */
};

/* Limits of the values (the error messages quote them too). */
#define CV_POLICY_MIN_MEMORY (4ull << 20)
#define CV_POLICY_MIN_CPUS_MILLI 10ull /* 0.01 core: the kernel's 1 ms quota */
#define CV_POLICY_MAX_CPUS_MILLI (4096ull * 1000)
#define CV_POLICY_MAX_CPU_SECONDS (1ull << 32)
#define CV_POLICY_MIN_PROCESSES 8ull
#define CV_POLICY_MAX_PROCESSES 4194304ull /* PID_MAX_LIMIT */
#define CV_POLICY_MIN_OPEN_FILES 16ull
#define CV_POLICY_MAX_OPEN_FILES 1073741816ull /* the kernel's NR_OPEN ceiling */
#define CV_POLICY_MAX_TIMEOUT_MS (366ull * 24 * 3600 * 1000)
#define CV_POLICY_MIN_TMP_SIZE (1ull << 20)

typedef struct {
	char *rootfs;    /* NULL: the host's root */
	char *workspace; /* NULL: a private one, gone when the run ends */
	oci_strv writable;
	oci_strv deny_write;
	oci_strv deny_read;
	oci_strv env; /* "NAME", "PREFIX*" (allowlist) or "NAME=value" */
	bool network_set;
	enum cv_policy_network network;
	oci_opt_bool allow_host_loopback; /* "outbound": the host's 127.0.0.1 at 10.0.2.2 */
	oci_opt_u64 memory;               /* bytes */
	oci_opt_u64 cpus_milli;           /* thousandths of a core */
	oci_opt_u64 cpu_seconds;
	oci_opt_u64 processes;
	oci_opt_u64 max_file_size; /* bytes */
	oci_opt_u64 open_files;
	oci_opt_u64 timeout_ms;
	oci_opt_u64 max_output_bytes;
	oci_opt_u64 tmp_size; /* bytes, each of /tmp and the private workspace */
	/* refuse to run when memory, cpus or processes cannot be enforced
	 * (a non-root caller without a delegated cgroup) */
	oci_opt_bool require_limits;
	/* listen(2) fails with EPERM, on every kind of socket */
	oci_opt_bool deny_listen;
	bool user_set;
	uint32_t uid, gid;
	/* Set only by libcvisor's sandbox keeper (sandbox/keeper.h), never by
	 * a policy document: the root is a copy-on-write overlay of the
	 * keeper's, mounted read-write; no private workspace is made, and the
	 * program starts in run_cwd (absolute, inside), else the workspace,
	 * else CV_SANDBOX_PERSISTENT_WORKSPACE. */
	bool persistent_root;
	char *run_cwd;
	/* Set only by the keeper too: with network "outbound", the program
	 * joins this network namespace, the sandbox's own, given slirp4netns
	 * once for all its runs, instead of a new one per run. */
	char *netns_path;
	/* and that namespace's sysfs, mounted by the keeper (a run, in a user
	 * namespace of its own, may not mount it): bound read-only on /sys */
	char *netns_sysfs;
} cv_policy;

/* Parses a policy document held in memory. `name` prefixes error messages:
 * `policy.json: memory: expected a size like "512MB" or a number of bytes,
 * got "lots"`, or the byte offset of malformed JSON. */
int cv_policy_parse(const char *data, size_t len, const char *name, cv_policy **out, cv_error_t *err);
/* Reads and parses PATH (errors are prefixed with the path's basename). */
int cv_policy_load(const char *path, cv_policy **out, cv_error_t *err);
/* An empty policy (every default). */
int cv_policy_new(cv_policy **out, cv_error_t *err);

/* Sets one key from a command-line string, with the same checks as the JSON
 * reader: `key` is the policy key ("max_file_size") or its flag spelling
 * ("max-file-size"); list keys append. Errors are "--max-file-size: ...".
 * A flag given after --policy overrides the file. */
int cv_policy_set(cv_policy *p, const char *key, const char *value, cv_error_t *err);
/* True when `key` (either spelling) names a policy key; *is_list tells
 * whether it repeats. */
bool cv_policy_has_key(const char *key, bool *is_list);

/* "512MB", "1.5G", "64k", "100" -> bytes (powers of 1024). */
int cv_policy_parse_size(const char *s, uint64_t *out);
/* The policy as JSON (every key that is set); *out is malloc'd. */
int cv_policy_emit(const cv_policy *p, bool pretty, char **out, size_t *out_len, cv_error_t *err);
const char *cv_policy_network_name(enum cv_policy_network n);

/* The result of one `cvisor do` run (`--report FILE`). */
typedef struct {
	int exit_code; /* the program's, 128+n when killed by signal n */
	int signal;    /* 0 when it exited */
	bool timed_out;
	bool cancelled;                          /* ended through the kill fd (a library's cancel) */
	bool limit_memory;                       /* the OOM killer acted (memory.oom_kill counter) */
	bool limit_processes;                    /* fork failed at the pids limit (pids.events max) */
	bool limit_cpu_seconds;                  /* SIGXCPU, or SIGKILL after the RLIMIT_CPU soft limit */
	bool limit_max_file_size;                /* SIGXFSZ */
	bool stdout_truncated, stderr_truncated; /* max_output_bytes */
	/* limits of the policy that this run could not enforce (no delegated
	 * cgroup for a non-root caller): "not_enforced": ["memory", ...] */
	bool unenforced_memory, unenforced_cpus, unenforced_processes;
	uint64_t wall_ms;
	bool cpu_known;
	uint64_t cpu_ms;
	/* time its CPU limit held it back (cpu.stat throttled_usec, v1
	 * throttled_time): a share enforced, whatever the clock did */
	bool cpu_throttled_known;
	uint64_t cpu_throttled_ms;
	bool peak_memory_known;
	uint64_t peak_memory; /* bytes */
	/* bytes in use at the end of the run in /tmp and in the private
	 * workspace (tmpfs of the sandbox's own; unknown: not measured) */
	bool tmp_used_known, workspace_used_known;
	uint64_t tmp_used, workspace_used;
} cv_sandbox_report;

int cv_sandbox_report_emit(const cv_sandbox_report *r, char **out, size_t *out_len, cv_error_t *err);

void cv_policy_free(cv_policy *p);
static inline void cv_policy_freep(cv_policy **p)
{
	cv_policy_free(*p);
}
#define cleanup_policy __attribute__((cleanup(cv_policy_freep)))

#endif
