/* Typed model of the OCI runtime-spec v1.3 config.json (Linux parts).
 *
 * Conventions:
 *  - strings are heap-allocated, NULL when the property is absent;
 *  - arrays are a pointer plus a length (oci_strv for string arrays);
 *  - optional numbers and booleans carry a `set` flag (oci_opt_*);
 *  - optional objects are pointers, NULL when absent.
 * Only oci/ reads or writes JSON; everything else works on these structs. */
#ifndef CVISOR_OCI_SPEC_H
#define CVISOR_OCI_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "error.h"

#define OCI_VERSION "1.3.0"
/* The largest JSON document cvisor reads (config.json, process.json, state). */
#define OCI_JSON_MAX_SIZE (16u * 1024 * 1024)

typedef struct {
	bool set;
	int64_t v;
} oci_opt_i64;
typedef struct {
	bool set;
	uint64_t v;
} oci_opt_u64;
typedef struct {
	bool set;
	uint32_t v;
} oci_opt_u32;
typedef struct {
	bool set;
	bool v;
} oci_opt_bool;

typedef struct {
	char **v; /* NULL-terminated when len > 0 or when `set`; may be NULL when absent */
	size_t len;
	bool set; /* the property was present (possibly empty) */
} oci_strv;

typedef struct {
	char *key;
	char *value;
} oci_kv;

typedef struct {
	oci_kv *v;
	size_t len;
} oci_kv_list;

/* The value of KEY (the last one when repeated, as a JSON reader keeps the
 * last duplicate), or NULL. */
static inline const char *oci_kv_get(const oci_kv_list *kv, const char *key)
{
	const char *v = NULL;
	for (size_t i = 0; i < kv->len; i++)
		if (kv->v[i].key && strcmp(kv->v[i].key, key) == 0)
			v = kv->v[i].value;
	return v;
}

typedef struct {
	uint32_t container_id;
	uint32_t host_id;
	uint32_t size;
} oci_id_mapping;

typedef struct {
	oci_id_mapping *v;
	size_t len;
} oci_id_mappings;

/* ---- root, mounts ---- */
typedef struct {
	char *path; /* required */
	bool readonly;
} oci_root;

typedef struct {
	char *destination; /* required, absolute */
	char *type;
	char *source;
	oci_strv options;
	oci_id_mappings uid_mappings;
	oci_id_mappings gid_mappings;
} oci_mount;

/* ---- process ---- */
typedef struct {
	uint32_t uid;
	uint32_t gid;
	oci_opt_u32 umask;
	uint32_t *additional_gids;
	size_t additional_gids_len;
	char *username; /* Windows only; kept for round trips */
} oci_user;

typedef struct {
	oci_strv bounding, effective, inheritable, permitted, ambient;
} oci_capabilities;

typedef struct {
	char *type; /* RLIMIT_* */
	uint64_t hard;
	uint64_t soft;
} oci_rlimit;

typedef struct {
	char *policy; /* SCHED_* */
	oci_opt_i64 nice;
	oci_opt_i64 priority;
	oci_strv flags;
	oci_opt_u64 runtime;
	oci_opt_u64 deadline;
	oci_opt_u64 period;
} oci_scheduler;

typedef struct {
	char *class_; /* IOPRIO_CLASS_RT | IOPRIO_CLASS_BE | IOPRIO_CLASS_IDLE */
	int64_t priority;
} oci_io_priority;

typedef struct {
	char *initial;
	char *final;
} oci_cpu_affinity;

typedef struct {
	bool terminal;
	bool has_console_size;
	uint32_t console_height;
	uint32_t console_width;
	oci_user user;
	oci_strv args;
	char *command_line; /* Windows only; ignored */
	oci_strv env;
	char *cwd; /* required, absolute */
	oci_capabilities *capabilities;
	oci_rlimit *rlimits;
	size_t rlimits_len;
	bool no_new_privileges;
	char *apparmor_profile;
	oci_opt_i64 oom_score_adj;
	oci_scheduler *scheduler;
	char *selinux_label;
	oci_io_priority *io_priority;
	oci_cpu_affinity *exec_cpu_affinity;
} oci_process;

/* ---- hooks ---- */
typedef struct {
	char *path; /* required, absolute */
	oci_strv args;
	oci_strv env;
	oci_opt_i64 timeout; /* seconds, > 0 */
} oci_hook;

typedef struct {
	oci_hook *v;
	size_t len;
} oci_hook_list;

typedef struct {
	oci_hook_list prestart;
	oci_hook_list create_runtime;
	oci_hook_list create_container;
	oci_hook_list start_container;
	oci_hook_list poststart;
	oci_hook_list poststop;
} oci_hooks;

/* ---- linux ---- */
typedef struct {
	char *type; /* pid network mount ipc uts user cgroup time */
	char *path;
} oci_namespace;

typedef struct {
	char *clock; /* "monotonic" or "boottime" (the JSON key) */
	int64_t secs;
	uint32_t nanosecs;
} oci_time_offset;

typedef struct {
	char *type; /* c b u p */
	char *path; /* required, absolute */
	int64_t major;
	int64_t minor;
	oci_opt_u32 file_mode;
	oci_opt_u32 uid;
	oci_opt_u32 gid;
} oci_device;

typedef struct {
	bool allow;
	char *type; /* a c b, NULL = all */
	oci_opt_i64 major;
	oci_opt_i64 minor;
	char *access; /* rwm subset */
} oci_device_cgroup;

typedef struct {
	oci_opt_i64 limit;
	oci_opt_i64 reservation;
	oci_opt_i64 swap;
	oci_opt_i64 kernel;
	oci_opt_i64 kernel_tcp;
	oci_opt_u64 swappiness;
	oci_opt_bool disable_oom_killer;
	oci_opt_bool use_hierarchy;
	oci_opt_bool check_before_update;
} oci_memory;

typedef struct {
	oci_opt_u64 shares;
	oci_opt_i64 quota;
	oci_opt_u64 burst;
	oci_opt_u64 period;
	oci_opt_i64 realtime_runtime;
	oci_opt_u64 realtime_period;
	char *cpus;
	char *mems;
	oci_opt_i64 idle;
} oci_cpu;

typedef struct {
	int64_t major;
	int64_t minor;
	oci_opt_u32 weight;      /* u16 range */
	oci_opt_u32 leaf_weight; /* u16 range */
} oci_weight_device;

typedef struct {
	int64_t major;
	int64_t minor;
	uint64_t rate;
} oci_throttle_device;

typedef struct {
	oci_throttle_device *v;
	size_t len;
} oci_throttle_list;

typedef struct {
	oci_opt_u32 weight;      /* u16 range */
	oci_opt_u32 leaf_weight; /* u16 range */
	oci_weight_device *weight_device;
	size_t weight_device_len;
	oci_throttle_list throttle_read_bps;
	oci_throttle_list throttle_write_bps;
	oci_throttle_list throttle_read_iops;
	oci_throttle_list throttle_write_iops;
} oci_block_io;

typedef struct {
	char *page_size;
	uint64_t limit;
} oci_hugepage_limit;

typedef struct {
	char *name;
	uint32_t priority;
} oci_net_priority;

typedef struct {
	oci_opt_u32 class_id;
	oci_net_priority *priorities;
	size_t priorities_len;
} oci_network;

typedef struct {
	char *device; /* the key */
	oci_opt_u32 hca_handles;
	oci_opt_u32 hca_objects;
} oci_rdma;

typedef struct {
	oci_device_cgroup *devices;
	size_t devices_len;
	oci_memory *memory;
	oci_cpu *cpu;
	oci_opt_i64 pids_limit; /* linux.resources.pids.limit */
	bool has_pids;
	oci_block_io *block_io;
	oci_hugepage_limit *hugepage_limits;
	size_t hugepage_limits_len;
	oci_network *network;
	oci_rdma *rdma;
	size_t rdma_len;
	oci_kv_list unified;
} oci_resources;

typedef struct {
	char *clos_id;
	char *l3_cache_schema;
	char *mem_bw_schema;
	oci_strv schemata;
	oci_opt_bool enable_monitoring;
} oci_intel_rdt;

typedef struct {
	uint32_t index;
	uint64_t value;
	oci_opt_u64 value_two;
	char *op; /* SCMP_CMP_* */
} oci_seccomp_arg;

typedef struct {
	oci_strv names;
	char *action; /* SCMP_ACT_* */
	oci_opt_u32 errno_ret;
	oci_seccomp_arg *args;
	size_t args_len;
} oci_seccomp_syscall;

typedef struct {
	char *default_action; /* required */
	oci_opt_u32 default_errno_ret;
	oci_strv architectures;
	oci_strv flags;
	char *listener_path;
	char *listener_metadata;
	oci_seccomp_syscall *syscalls;
	size_t syscalls_len;
} oci_seccomp;

typedef struct {
	char *domain; /* LINUX | LINUX32 */
	oci_strv flags;
} oci_personality;

typedef struct {
	char *host_name; /* the key */
	char *name;      /* name inside the container (optional) */
} oci_net_device;

typedef struct {
	char *mode; /* MPOL_* */
	char *nodes;
	oci_strv flags;
} oci_memory_policy;

/* The runtime-spec's linux.memoryPolicy modes and flags, NULL-terminated:
 * what validation accepts and `features` lists (process/mempolicy.c maps
 * them to the kernel's values). */
#define OCI_MPOL_MODES_LEN 7
#define OCI_MPOL_FLAGS_LEN 3
extern const char *const oci_mpol_modes[OCI_MPOL_MODES_LEN + 1];
extern const char *const oci_mpol_flags[OCI_MPOL_FLAGS_LEN + 1];

typedef struct {
	oci_namespace *namespaces;
	size_t namespaces_len;
	oci_id_mappings uid_mappings;
	oci_id_mappings gid_mappings;
	oci_time_offset *time_offsets;
	size_t time_offsets_len;
	oci_device *devices;
	size_t devices_len;
	char *cgroups_path;
	oci_resources *resources;
	oci_intel_rdt *intel_rdt;
	oci_kv_list sysctl;
	oci_seccomp *seccomp;
	char *rootfs_propagation;
	oci_strv masked_paths;
	oci_strv readonly_paths;
	char *mount_label;
	oci_personality *personality;
	oci_net_device *net_devices;
	size_t net_devices_len;
	oci_memory_policy *memory_policy;
} oci_linux;

typedef struct {
	char *oci_version; /* required, major 1 */
	oci_root *root;
	oci_mount *mounts;
	size_t mounts_len;
	oci_process *process;
	char *hostname;
	char *domainname;
	oci_hooks *hooks;
	oci_kv_list annotations;
	oci_linux *linux_; /* `linux` is a predefined macro in GNU C */
} oci_spec;

/* Parses and validates a config.json document held in memory. `name` is the
 * prefix of error messages ("config.json"). Errors name the JSON path and the
 * problem, e.g. `config.json: process.user.uid: expected a non-negative
 * integer, got "root"`, or the byte offset for malformed JSON. */
int oci_spec_parse(const char *data, size_t len, const char *name, oci_spec **out, cv_error_t *err);
/* Reads and parses PATH (errors are prefixed with the path's basename). */
int oci_spec_load(const char *path, oci_spec **out, cv_error_t *err);
/* Validation only (already run by oci_spec_parse): ranges, enums, paths. */
int oci_spec_validate(const oci_spec *spec, const char *name, cv_error_t *err);
/* The checks of oci_spec_validate for a process object alone; PREFIX is
 * the JSON path of the object in error messages ("process", or "" for a
 * process.json). */
int oci_process_validate(const oci_process *p, const char *name, const char *prefix, cv_error_t *err);
/* Structural equality of every field (used by the round-trip tests). */
bool oci_spec_equal(const oci_spec *a, const oci_spec *b);
bool oci_process_equal(const oci_process *a, const oci_process *b);
/* Emits the spec as JSON (pretty when `pretty`); *out is malloc'd, NUL-terminated. */
int oci_spec_emit(const oci_spec *spec, bool pretty, char **out, size_t *out_len, cv_error_t *err);
void oci_spec_free(oci_spec *spec);

/* Process objects alone (exec --process FILE): same rules as config.json's
 * "process". */
int oci_process_parse(const char *data, size_t len, const char *name, oci_process **out, cv_error_t *err);
int oci_process_emit(const oci_process *p, bool pretty, char **out, size_t *out_len, cv_error_t *err);
void oci_process_free(oci_process *p);

/* The default config `cvisor spec` writes (like `runc spec`); rootless adds a
 * user namespace mapping the caller's uid/gid. */
int oci_spec_default(bool rootless, oci_spec **out, cv_error_t *err);

static inline void oci_spec_freep(oci_spec **s)
{
	oci_spec_free(*s);
}
#define cleanup_spec __attribute__((cleanup(oci_spec_freep)))

#endif
