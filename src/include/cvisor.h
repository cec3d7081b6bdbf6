/* libcvisor: the public, stable C API of the cvisor OCI runtime.
 *
 * ABI rules: option structs start with `struct_size` (set it to sizeof the
 * struct you were compiled with); new fields are only ever appended. Every
 * fallible call returns 0 on success or a negative errno-style value on
 * failure and then sets *err, which the caller releases with
 * cvisor_error_free(). Nothing here prints to the terminal. */
#ifndef CVISOR_H
#define CVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cv_error_s;
typedef struct cv_error_s cvisor_error;

const char *cvisor_error_message(const cvisor_error *err);
int cvisor_error_errno(const cvisor_error *err);
void cvisor_error_free(cvisor_error *err);

const char *cvisor_version(void);

/* Global settings, the runc global flags. */
struct cvisor_context {
	size_t struct_size;
	const char *state_root;  /* --root; NULL = /run/cvisor (root) or $XDG_RUNTIME_DIR/cvisor */
	bool systemd_cgroup;     /* --systemd-cgroup */
	int rootless;            /* --rootless: -1 auto, 0 false, 1 true */
};

struct cvisor_create_options {
	size_t struct_size;
	const char *bundle;         /* NULL = current directory */
	const char *config_path;    /* NULL = <bundle>/config.json */
	const char *pid_file;
	const char *console_socket;
	const char *pidfd_socket;
	int preserve_fds;
	bool no_pivot;
	bool no_new_keyring;
	bool keep;                  /* run: keep the container (stopped) after it exits */
};

/* create: the container process is left blocked before execve. */
int cvisor_create(const struct cvisor_context *ctx, const char *id,
		  const struct cvisor_create_options *opts, cvisor_error **err);
int cvisor_start(const struct cvisor_context *ctx, const char *id, cvisor_error **err);

/* run: create + start; unless `detach`, waits for the process and stores its
 * exit status (128+signal when killed) in *exit_status, then deletes the
 * container. Without a console socket and with process.terminal, the
 * caller's terminal is used. */
int cvisor_run(const struct cvisor_context *ctx, const char *id,
	       const struct cvisor_create_options *opts, bool detach,
	       int *exit_status, cvisor_error **err);

int cvisor_kill(const struct cvisor_context *ctx, const char *id, int signal,
		bool all, cvisor_error **err);
/* force: kill a running container first, and succeed when there is no
 * container `id` (as runc: engines delete --force on cleanup paths). */
int cvisor_delete(const struct cvisor_context *ctx, const char *id, bool force,
		  cvisor_error **err);

/* The runtime-spec state JSON of one container (malloc'd). */
int cvisor_state_json(const struct cvisor_context *ctx, const char *id,
		      char **json, cvisor_error **err);

struct cvisor_container_info {
	char *id;
	pid_t pid;
	char *status;
	char *bundle;
	char *created;
	char *owner;
};
int cvisor_list(const struct cvisor_context *ctx, struct cvisor_container_info **out,
		size_t *n, cvisor_error **err);
void cvisor_container_info_free(struct cvisor_container_info *v, size_t n);

struct cvisor_exec_options {
	size_t struct_size;
	const char *process_path;   /* --process FILE.json; else the fields below */
	char *const *args;          /* NULL-terminated */
	char *const *env;           /* added to / overriding the container's env */
	const char *cwd;
	const char *user;           /* "uid[:gid]" */
	const gid_t *additional_gids;
	size_t additional_gids_len;
	char *const *caps;          /* added to bounding, effective, permitted, ambient */
	bool tty;
	bool no_new_privs;
	bool detach;
	const char *console_socket;
	const char *pidfd_socket;
	const char *pid_file;
	int preserve_fds;
	const char *apparmor;
	const char *process_label;
};
int cvisor_exec(const struct cvisor_context *ctx, const char *id,
		const struct cvisor_exec_options *opts, int *exit_status,
		cvisor_error **err);

int cvisor_pause(const struct cvisor_context *ctx, const char *id, cvisor_error **err);
int cvisor_resume(const struct cvisor_context *ctx, const char *id, cvisor_error **err);
/* Host pids of every process in the container's cgroup (malloc'd). */
int cvisor_pids(const struct cvisor_context *ctx, const char *id, pid_t **pids,
		size_t *n, cvisor_error **err);

/* update: applies a runtime-spec linux.resources JSON object (what
 * `runc update --resources` and containerd send) to the container's cgroup.
 * Only the values present change. */
struct cvisor_update_options {
	size_t struct_size;
	const char *resources_json;
	size_t resources_json_len;
	const char *resources_name; /* names the source in errors; NULL = "resources" */
	/* runc's update flags, used when resources_json is NULL: the text as
	 * given (NULL = unchanged). Memory sizes take runc's forms ("128m",
	 * "1g", "-1" for unlimited). */
	const char *memory, *memory_swap, *memory_reservation, *kernel_memory, *kernel_memory_tcp;
	const char *cpu_shares, *cpu_quota, *cpu_period, *cpu_rt_period, *cpu_rt_runtime;
	const char *cpuset_cpus, *cpuset_mems;
	const char *pids_limit, *blkio_weight;
};
int cvisor_update(const struct cvisor_context *ctx, const char *id,
		  const struct cvisor_update_options *opts, cvisor_error **err);

/* One statistics event in runc's schema (malloc'd, no trailing newline):
 * {"type":"stats","id":ID,"data":{"cpu":...,"memory":...,"pids":...,
 * "blkio":...,"hugetlb":...}}. */
int cvisor_stats(const struct cvisor_context *ctx, const char *id, char **json,
		 cvisor_error **err);

/* events: calls `cb` with one JSON event line at a time (a stats event every
 * interval, an {"type":"oom","id":ID} event per OOM) until the container
 * stops (returns 0) or cb returns < 0 (returns that value). The container is
 * not locked meanwhile. */
typedef int (*cvisor_event_cb)(const char *json, void *userdata);
struct cvisor_events_options {
	size_t struct_size;
	uint64_t interval_ms; /* 0 = 5000 */
};
int cvisor_events(const struct cvisor_context *ctx, const char *id,
		  const struct cvisor_events_options *opts, cvisor_event_cb cb,
		  void *userdata, cvisor_error **err);

#ifdef __cplusplus
}
#endif
#endif
