/* Shared between the cgroup modules only (cgroups*.c and their tests). */
#ifndef CVISOR_CGROUPS_INTERNAL_H
#define CVISOR_CGROUPS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroups/cgroups.h"

/* One hierarchy's directory for the container. */
struct cv_cg_dir {
	char *key;     /* "memory", "cpu,cpuacct", "name=systemd", or "unified" */
	char *path;    /* absolute directory */
	char *created; /* topmost directory cvisor made on the way to `path`, or NULL */
	int fd;        /* O_RDONLY|O_DIRECTORY, opened lazily; -1 when closed */
	bool unified;  /* a cgroup2 directory */
};

struct cv_cgroup {
	enum cv_cgroup_layout layout;
	struct cv_cg_dir *dirs;
	size_t n;
	bool rootless;
	/* rootless, and a hierarchy was left out: not delegated to the caller */
	bool rootless_skipped;
	/* CV_CGROUP_ANNOTATION_CONTROLLERS's value when the container joined
	 * only some hierarchies (saved and loaded with the paths), for messages
	 * about a missing one; NULL otherwise. */
	char *filter;
	/* During create only: linux.devices, allowed in the device cgroup. */
	const oci_device *node_devices;
	size_t n_node_devices;
	/* systemd driver: the scope unit (stopped on destroy), on the user bus
	 * when sd_user, and during create the process that holds the scope
	 * until the container joins it (killed by cv_cgroup_free). */
	char *sd_unit;
	bool sd_user;
	pid_t sd_holder;
	/* cv_cgroup_config.v1_after_clone: the v1 directories are still to
	 * make (cv_cgroup_create_v1); the controllers list parsed, and the
	 * hierarchies found so far */
	bool v1_pending;
	uint32_t mask;
	size_t chosen;
};
/* The device rules for linux.devices nodes (c/b/u; fifos need none): *out is
 * malloc'd, its strings static. */
int cv_cg_node_device_rules(const oci_device *d, size_t n, oci_device_cgroup **out, size_t *nout, cv_error_t *err);

/* Whether linux.resources.memory / blockIO set anything (an empty object, or
 * memory's checkBeforeUpdate alone, needs no hierarchy). */
bool cv_cg_memory_set(const oci_memory *m);
bool cv_cg_blkio_set(const oci_block_io *b);

/* ---- cgroups.c: file access relative to a directory ---- */
int cv_cg_dir_fd(struct cv_cg_dir *d, cv_error_t *err);
/* The directory of the hierarchy holding `controller` ("memory", "unified",
 * "name=systemd"); NULL when there is none. */
struct cv_cg_dir *cv_cg_find(struct cv_cgroup *cg, const char *controller);
/* Writes value to d/file; errors read `write FILE "VALUE": strerror`. */
int cv_cg_write(struct cv_cg_dir *d, const char *file, const char *value, cv_error_t *err);
/* cpuset.cpus and cpuset.mems from linux.resources.cpu (same files in v1 and v2). */
int cv_cg_write_cpuset(struct cv_cg_dir *d, const oci_cpu *c, cv_error_t *err);
int cv_cg_writef(struct cv_cg_dir *d, const char *file, cv_error_t *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Reads d/file into buf (NUL-terminated, trailing newline kept); returns the length. */
ssize_t cv_cg_read(struct cv_cg_dir *d, const char *file, char *buf, size_t size, cv_error_t *err);
bool cv_cg_has_file(struct cv_cg_dir *d, const char *file);

/* Resolves the path of the container's cgroup relative to a hierarchy root:
 * an absolute cgroupsPath is used as given, a relative one and the default
 * (the id) nest under `own` (the caller's cgroup in that hierarchy, from
 * /proc/self/cgroup). "." / ".." components and the root itself are refused. */
int cv_cg_resolve_path(const char *own, const char *cgroups_path, const char *id, char **out, cv_error_t *err);

/* ---- cgroups-convert.c: pure value conversions ---- */
/* cpu.shares (2..262144) -> cpu.weight (1..10000), runc's linear mapping;
 * 0 stays 0 (unset). */
uint64_t cv_cg_shares_to_weight(uint64_t shares);
/* blkio.weight (10..1000) -> io.weight (1..10000), runc's linear mapping;
 * 0 stays 0 (unset). */
uint64_t cv_cg_blkio_to_io_weight(uint64_t weight);
/* memory.swap in OCI terms (memory+swap, -1 unlimited) to cgroup v2's
 * memory.swap.max (swap alone, -1 = "max"). `limit` is 0 when unset. */
int cv_cg_swap_to_v2(int64_t swap, int64_t limit, int64_t *out, cv_error_t *err);
/* "max" for negative values, the decimal number otherwise. */
void cv_cg_fmt_max(int64_t v, char *buf, size_t size);
/* pids.max: "max" for limit <= 0. */
void cv_cg_fmt_pids(int64_t limit, char *buf, size_t size);
/* cpu.max from quota/period; a missing quota keeps `cur_quota` ("max" when NULL);
 * a missing period is 100000 unless cur_period is given. */
void cv_cg_fmt_cpu_max(bool quota_set, int64_t quota, bool period_set, uint64_t period, const char *cur_quota,
		       uint64_t cur_period, char *buf, size_t size);
/* A v1 devices.allow/deny line: "c 1:3 rwm", '*' for a missing major/minor. */
int cv_cg_fmt_device_rule(const oci_device_cgroup *r, char *buf, size_t size, cv_error_t *err);
/* rdma.max line "DEV hca_handle=N hca_object=M" (only the fields set). */
int cv_cg_fmt_rdma(const oci_rdma *r, char *buf, size_t size, cv_error_t *err);
/* A hugetlb page size as the kernel names it: digits then KB, MB or GB. */
bool cv_cg_valid_page_size(const char *s);
/* A linux.resources.unified key: one file name of the directory. */
bool cv_cg_valid_unified_key(const char *k);

/* ---- cgroups-v1.c / cgroups-v2.c ---- */
int cv_cg_v1_apply(struct cv_cgroup *cg, const oci_resources *r, bool update, cv_error_t *err);
int cv_cg_v1_copy_cpuset(int parentfd, int childfd, cv_error_t *err);
int cv_cg_v2_apply(struct cv_cgroup *cg, struct cv_cg_dir *d, const oci_resources *r, bool update, cv_error_t *err);
/* Enables the controllers of `parentfd` in its cgroup.subtree_control
 * (only `only` when non-NULL, e.g. "hugetlb"). */
int cv_cg_v2_enable(int parentfd, const char *only, cv_error_t *err);
int cv_cg_v2_hugetlb(struct cv_cg_dir *d, const oci_resources *r, cv_error_t *err);
int cv_cg_v2_write_unified(struct cv_cg_dir *d, const oci_kv_list *u, cv_error_t *err);

/* ---- cgroups-devices-bpf.c ---- */
/* Builds the device program from the rules (deny by default; later rules win,
 * as with the v1 lists; `extra_allow` are appended allow rules). */
struct cv_bpf_insn_buf {
	void *insns; /* struct bpf_insn[] */
	size_t n;
};
int cv_cg_devices_bpf_build(const oci_device_cgroup *rules, size_t n, const oci_device_cgroup *extra, size_t n_extra,
			    struct cv_bpf_insn_buf *out, cv_error_t *err);
/* Loads the program and attaches it to the cgroup2 directory `dirfd` with
 * BPF_F_ALLOW_MULTI. */
int cv_cg_devices_bpf_attach(int dirfd, const oci_device_cgroup *rules, size_t n, const oci_device_cgroup *extra,
			     size_t n_extra, cv_error_t *err);

/* The device rules every container gets after its own: the nodes the runtime
 * creates (null zero full random urandom tty ptmx pts console) and mknod. */
extern const oci_device_cgroup cv_cg_default_device_rules[];
extern const size_t cv_cg_default_device_rules_len;

/* ---- cgroups-systemd.c ---- */
struct cv_cg_systemd_path {
	char *slice; /* "system.slice" when empty */
	char *prefix;
	char *name;
	char *unit; /* "PREFIX-NAME.scope", or NAME when it already ends in .slice/.scope */
};
int cv_cg_systemd_parse(const char *cgroups_path, const char *id, struct cv_cg_systemd_path *out, cv_error_t *err);
void cv_cg_systemd_path_clear(struct cv_cg_systemd_path *p);
/* Fails with a clear message unless systemd is PID 1. */
int cv_cg_systemd_check(cv_error_t *err);
/* cv_cgroup_create for --systemd-cgroup: the scope unit over D-Bus, then the
 * cgroupfs code on the scope's directories. */
int cv_cg_systemd_create(const struct cv_cgroup_config *cfg, struct cv_cgroup **out, cv_error_t *err);
/* Stops the scope (destroy) / ends the holder process (free). */
int cv_cg_systemd_destroy(struct cv_cgroup *cg, cv_error_t *err);
void cv_cg_systemd_release(struct cv_cgroup *cg);
/* state keys for the unit (cv_cgroup_save / cv_cgroup_load) */
#define CV_CG_SYSTEMD_UNIT_KEY "systemd:unit"
#define CV_CG_SYSTEMD_USER_UNIT_KEY "systemd:user-unit"
/* state key for the annotation's value (cv_cgroup_save / cv_cgroup_load) */
#define CV_CG_CONTROLLERS_KEY "cvisor:controllers"

/* "the memory cgroup controller is not mounted on this host", or, when the
 * annotation left it out, that the container has no such cgroup: the end of
 * an error message about a missing hierarchy. */
const char *cv_cg_missing_why(const struct cv_cgroup *cg, const char *controller, char *buf, size_t size);

#endif
