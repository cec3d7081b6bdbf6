/* libcvisor: the public, stable C API of the cvisor OCI runtime.
 *
 * Results: every fallible call returns 0 on success or a negative errno-style
 * value on failure and then sets *err (when err is not NULL), which the
 * caller releases with cvisor_error_free(). Strings and arrays the library
 * returns are released with cvisor_free(). Nothing here prints to the
 * terminal: diagnostics go to the sink of cvisor_set_log_sink().
 *
 * Options structs (cvisor_context and every cvisor_*_options) start with
 * `struct_size`: set it to sizeof(the) struct you were compiled with. New
 * fields are only ever appended, so a program built against an older header
 * keeps working (the fields it does not know read as zero). A struct_size
 * smaller than the first published version of the struct (0 included) is
 * EINVAL; one larger than this library knows is accepted only when the bytes
 * it does not know are all zero, else E2BIG (an option this library cannot
 * honour is never silently dropped). A NULL options pointer means every
 * field zero; a NULL context means the defaults below.
 *
 * Programs embedding the library. create, run and exec put a process of the
 * runtime inside the container until it executes the container's program,
 * so the runtime's image must be one no container can write
 * (CVE-2019-5736). The cvisor binary re-executes itself from a sealed or
 * read-only image; a program that merely loads libcvisor (python3, whose
 * binary is writable, for one) cannot. So in any process other than the
 * cvisor binary these three calls run the cvisor binary, the *helper*, with
 * the equivalent command line: the helper protects itself as the command
 * does, and the calling program is never visible from a container. The
 * helper is, in this order: cvisor_context.helper_path, the environment
 * variable CVISOR_HELPER (ignored in set-uid programs), or the cvisor
 * installed next to this library (`$(bindir)/cvisor` of the build). Its
 * errors come back as if the call had failed in-process (the same errno and
 * message), its warnings through the log sink, and run's and exec's exit
 * status as *exit_status. The helper inherits the caller's stdio (the
 * container's program does, as with the command), working directory and
 * environment, minus LISTEN_FDS, LISTEN_PID and LISTEN_FDNAMES (socket
 * activation meant for the caller, not a container); the fds 3 .. 3+N-1 of
 * preserve_fds = N are passed on even when they are close-on-exec in the
 * caller. Every other call runs in-process.
 *
 * The calling process is not changed: no signal handler, signal mask,
 * dumpable, subreaper or other prctl setting, environment variable or fd of
 * the caller is altered or left behind, and the library never waits for a
 * child it did not start. The helper is not even the caller's child: a
 * short-lived intermediate (exit signal 0, reaped at once) starts it and
 * leaves it to init, and the library follows it through a pidfd, so a
 * SIGCHLD handler or a waitpid(-1) loop of the caller never sees it. (A
 * caller that made itself a child subreaper inherits it, as it inherits the
 * container processes `create` leaves, and reaps it like them.)
 *
 * Threads: every call may be made from several threads at once, on different
 * containers or on the same one (commands on one container take its lock in
 * turn, as concurrent cvisor commands do; the lock is an open file
 * description lock, so threads of one process exclude each other too).
 * Errors are per call. cvisor_set_log_sink() may be called at any time; see
 * there.
 *
 * Cancellation: create, run, exec and events take a `cancel_fd` (> 0; 0,
 * the zeroed default, means none): an fd the caller makes readable (an
 * eventfd written to, a pipe written to or closed) to cancel the call from
 * another thread. The call then kills what it started, removes what it made
 * and returns -ECANCELED (see each call). In the cvisor binary, where these
 * calls run in-process, a cancel_fd is refused (EINVAL). */
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
/* What the library is built on, one "NAME: VERSION" line each (cvisor_free):
 * the runtime-spec version, yajl's, libseccomp's (when it tells) and
 * libcap's (the build's: libcap has no run-time version call). */
int cvisor_versions(char **text, cvisor_error **err);

/* Releases a string or array the library returned (state JSON, stats JSON,
 * pids). NULL is ignored. */
void cvisor_free(void *ptr);

/* Diagnostics: warnings (a poststop hook that failed, a cgroup that could
 * not be removed ...), and debug lines when max_level is CVISOR_LOG_DEBUG.
 * `sink` gets every line of a level <= max_level, one line a call, without
 * a trailing newline; it is called from the thread making the library call
 * that logs (several at once when several threads make calls), and must not
 * call cvisor_set_log_sink(). Once cvisor_set_log_sink() returns, the
 * previous sink is not running and is not called again, so its userdata may
 * be freed. NULL (the default) drops everything. Errors are not logged:
 * they are returned. */
enum cvisor_log_level {
	CVISOR_LOG_ERROR = 0,
	CVISOR_LOG_WARNING = 1,
	CVISOR_LOG_INFO = 2,
	CVISOR_LOG_DEBUG = 3,
};
typedef void (*cvisor_log_fn)(int level, const char *message, void *userdata);
void cvisor_set_log_sink(cvisor_log_fn sink, void *userdata, int max_level);

/* Global settings, the runc global flags. */
struct cvisor_context {
	size_t struct_size;
	const char *state_root; /* --root; NULL = /run/cvisor (root) or $XDG_RUNTIME_DIR/cvisor */
	bool systemd_cgroup;    /* --systemd-cgroup */
	int rootless;           /* --rootless: -1 auto, 0 false, 1 true */
	/* appended in 0.1.0: */
	const char *helper_path; /* the cvisor binary that create/run/exec run
				  * in a program embedding the library (see
				  * above); NULL = $CVISOR_HELPER, else the
				  * installed one. Unused in the cvisor binary. */
};

struct cvisor_create_options {
	size_t struct_size;
	const char *bundle;      /* NULL = current directory */
	const char *config_path; /* NULL = <bundle>/config.json */
	const char *pid_file;
	const char *console_socket;
	const char *pidfd_socket;
	int preserve_fds;
	bool no_pivot;
	bool no_new_keyring;
	bool keep; /* run: keep the container (stopped) after it exits */
	/* appended in 0.1.0: */
	int cancel_fd; /* > 0: cancels create or run (see the top) */
};

/* create: the container process is left blocked before execve. Cancelled
 * (cancel_fd), the container is deleted once its creation finished. */
int cvisor_create(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts,
		  cvisor_error **err);
int cvisor_start(const struct cvisor_context *ctx, const char *id, cvisor_error **err);

/* run (`cvisor run`): create + start; unless `detach`, waits for the
 * process and stores its exit status (128+signal when killed) in
 * *exit_status, then deletes the container (unless opts->keep). Without a
 * console socket and with process.terminal, the caller's terminal is used.
 * Cancelled (cancel_fd), the container's process is killed as soon as it
 * exists and the container deleted, keep or not. */
int cvisor_container_run(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts,
			 bool detach, int *exit_status, cvisor_error **err);

int cvisor_kill(const struct cvisor_context *ctx, const char *id, int signal, bool all, cvisor_error **err);
/* force: kill a running container first, and succeed when there is no
 * container `id` (as runc: engines delete --force on cleanup paths). */
int cvisor_delete(const struct cvisor_context *ctx, const char *id, bool force, cvisor_error **err);

/* The runtime-spec state JSON of one container (cvisor_free). */
int cvisor_state_json(const struct cvisor_context *ctx, const char *id, char **json, cvisor_error **err);

struct cvisor_container_info {
	char *id;
	pid_t pid;
	char *status;
	char *bundle;
	char *created;
	char *owner;
};
int cvisor_list(const struct cvisor_context *ctx, struct cvisor_container_info **out, size_t *n, cvisor_error **err);
void cvisor_container_info_free(struct cvisor_container_info *v, size_t n);
/* `cvisor list --format json`: a JSON array of the containers' state
 * documents (those of cvisor_state_json; cvisor_free, no trailing newline).
 * A container deleted while they are read is left out. */
int cvisor_list_json(const struct cvisor_context *ctx, char **json, cvisor_error **err);

struct cvisor_exec_options {
	size_t struct_size;
	const char *process_path; /* --process FILE.json; else the fields below */
	char *const *args;        /* NULL-terminated */
	char *const *env;         /* added to / overriding the container's env */
	const char *cwd;
	const char *user; /* "uid[:gid]" */
	const gid_t *additional_gids;
	size_t additional_gids_len;
	char *const *caps; /* added to bounding, effective, permitted, ambient */
	bool tty;
	bool no_new_privs;
	bool detach;
	const char *console_socket;
	const char *pidfd_socket;
	const char *pid_file;
	int preserve_fds;
	const char *apparmor;
	const char *process_label;
	/* appended in 0.1.0: */
	int cancel_fd; /* > 0: cancels the exec (see the top) */
};
/* exec (`cvisor exec`): unless opts->detach, waits for the process and
 * stores its exit status in *exit_status. Cancelled (cancel_fd), the
 * process is killed as soon as it exists (the container goes on). */
int cvisor_exec(const struct cvisor_context *ctx, const char *id, const struct cvisor_exec_options *opts,
		int *exit_status, cvisor_error **err);

int cvisor_pause(const struct cvisor_context *ctx, const char *id, cvisor_error **err);
int cvisor_resume(const struct cvisor_context *ctx, const char *id, cvisor_error **err);
/* Host pids of every process in the container's cgroup (cvisor_free). */
int cvisor_pids(const struct cvisor_context *ctx, const char *id, pid_t **pids, size_t *n, cvisor_error **err);

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
int cvisor_update(const struct cvisor_context *ctx, const char *id, const struct cvisor_update_options *opts,
		  cvisor_error **err);

/* One statistics event in runc's schema (cvisor_free; no trailing newline):
 * {"type":"stats","id":ID,"data":{"cpu":...,"memory":...,"pids":...,
 * "blkio":...,"hugetlb":...}}. */
int cvisor_stats(const struct cvisor_context *ctx, const char *id, char **json, cvisor_error **err);

/* events: calls `cb` with one JSON event line at a time (a stats event every
 * interval, an {"type":"oom","id":ID} event per OOM) until the container
 * stops (returns 0), cb returns < 0 (returns that value) or the call is
 * cancelled (-ECANCELED). The container is not locked meanwhile. */
typedef int (*cvisor_event_cb)(const char *json, void *userdata);
struct cvisor_events_options {
	size_t struct_size;
	uint64_t interval_ms; /* 0 = 5000 */
	/* appended in 0.1.0: */
	int cancel_fd; /* > 0: cancels the call (see the top) */
};
int cvisor_events(const struct cvisor_context *ctx, const char *id, const struct cvisor_events_options *opts,
		  cvisor_event_cb cb, void *userdata, cvisor_error **err);

/* The runtime-spec version of the config.json this library reads and writes
 * (tests/unit/test_copies checks it against the library's own). */
#define CVISOR_OCI_VERSION "1.3.0"

/* spec (`cvisor spec`): writes <bundle>/config.json, never over an existing
 * one (EEXIST), nor half-written. Without a policy it is the default config
 * (`sh` from ./rootfs with a terminal; rootless: a user namespace mapping
 * the caller's uid and gid, nothing that needs real root). With policy_path
 * it is the config the sandbox of cvisor_do() would run `sh` in (rootless
 * must then be false: a policy follows the caller's uid, EINVAL); unless
 * do_only is NULL, *do_only (cvisor_free) then gets the policy's keys that
 * only cvisor_do() enforces, comma-separated ("" for none; NULL without a
 * policy), which the config records as annotations that `cvisor run` does
 * not act on. *do_only is set once the config is made, even when writing
 * the file then fails. */
struct cvisor_spec_options {
	size_t struct_size;
	const char *bundle; /* NULL = current directory */
	bool rootless;
	const char *policy_path; /* a sandbox policy (see cvisor_do), or NULL */
};
int cvisor_spec(const struct cvisor_spec_options *opts, char **do_only, cvisor_error **err);

/* The runtime-spec features document (`cvisor features`, cvisor_free): the
 * hooks, mount options, namespaces, capabilities and seccomp features this
 * library implements. build_features, when not NULL, becomes the
 * org.cvisor.features annotation (the cvisor binary's "+SECCOMP ..."). */
int cvisor_features_json(const char *build_features, char **json, cvisor_error **err);

/* do (`cvisor do`, see cvisor-do(1)): runs args (NULL-terminated) in a
 * sandbox made from a policy: the file policy_path (NULL: the defaults),
 * then policy_keys[i] set to policy_values[i] in order, as the command's
 * flags do (a key of the policy file, "max_file_size", or its flag
 * spelling, "max-file-size"; the value as on the command line, "true" for
 * a boolean; a list key adds to its list; errors name the key as a flag,
 * "--max-file-size: ..."). Waits for the program and
 * stores its exit status (128+N when killed by signal N) in *exit_status.
 * report_path, when not NULL, gets a JSON report of the run; its directory
 * is opened before the program runs (errors name it `--report`). Only the
 * cvisor binary runs a sandbox: in a program embedding the library this is
 * ENOTSUP (run the `cvisor do` command). */
struct cvisor_do_options {
	size_t struct_size;
	const char *policy_path;
	const char *const *policy_keys;
	const char *const *policy_values;
	size_t policy_len;
	const char *report_path;
};
int cvisor_do(const struct cvisor_context *ctx, char *const *args, const struct cvisor_do_options *opts,
	      int *exit_status, cvisor_error **err);
/* `cvisor do --check`: how each limit is enforced on this machine, one line
 * each (cvisor_free), found by trying (a probe cgroup is made and removed). */
int cvisor_do_check(const struct cvisor_context *ctx, char **text, cvisor_error **err);
/* `cvisor gc`: removes the cgroup directories of cvisor_do() runs whose
 * supervisor and watcher were both killed, and the mount point directories
 * of sandbox keepers that were killed; *removed counts them. */
int cvisor_do_gc(const struct cvisor_context *ctx, unsigned *removed, cvisor_error **err);

/* ---- sandboxes (cvisor-sandbox(3)) ----
 *
 * A CvisorSandbox is `cvisor do` that persists: each run sees the host's
 * root through a copy-on-write overlay whose upper layer belongs to the
 * sandbox, so what one run (or write_file, copy_into) writes is there for
 * the next, and never reaches the host; two sandboxes never see each
 * other's writes. /proc, /dev, /sys, /run and /tmp are each run's own. The
 * program's workspace and working directory is /workspace, in the overlay.
 * Every run has what `cvisor do` gives (cvisor-do(1)): its own pid, ipc,
 * uts, mount, user and network namespaces, a minimal init as PID 1, no
 * capabilities, noNewPrivileges, the seccomp profile, the credential stores
 * masked, the environment allowlist plus set_env, HOME=/workspace unless
 * set_env sets it, and the limits of set_limits as cgroup limits. As root,
 * the program runs as an unprivileged host identity (root inside).
 *
 * The sandbox is held by a keeper process of the cvisor binary (the helper,
 * see the top of this file), started at the first use; each run is its
 * child. free() ends every run and the keeper, and with it the overlay; so
 * does the end of the calling process, SIGKILL included (nothing is left
 * but, after a SIGKILL of the keeper itself, an empty directory that
 * `cvisor gc` removes). As another user, the keeper mounts in a user
 * namespace of its own and the program runs as the caller: see
 * cvisor-sandbox(3), UNPRIVILEGED CALLERS, for what that allows.
 *
 * Conventions (fixed by the SDKs in the field): int results are 0 or a
 * negative errno; byte buffers are malloc'd copies released with
 * cvisor_bytes_free(); every failure sets cvisor_last_error(). Calls on one
 * sandbox may come from several threads at once; the calling process is not
 * changed (no signal handler, mask or prctl setting, no child it would
 * see). */
typedef struct CvisorSandbox CvisorSandbox;
typedef struct CvisorOutput CvisorOutput;
typedef struct CvisorSession CvisorSession;

/* The message of this thread's last failed sandbox call ("" when none);
 * valid until this thread's next sandbox call. */
const char *cvisor_last_error(void);
/* The errno of this thread's last failed sandbox call (ENOENT, EINVAL...;
 * 0 when none), for a caller that maps failures to its own errors. */
int cvisor_last_errno(void);

/* A sandbox with the defaults: outbound network, no listening, no limits.
 * NULL only when out of memory. Nothing runs until its first use. */
CvisorSandbox *cvisor_sandbox_new(void);
/* Kills what still runs in it (its sessions' programs too: the session
 * objects stay the caller's to free, and wait reports 137), ends its keeper
 * and removes its overlay; waits for that. NULL is ignored. */
void cvisor_sandbox_free(CvisorSandbox *sb);
/* The state root and the helper (struct cvisor_context above; NULL: the
 * defaults) of this sandbox's keeper and runs; before its first use (EBUSY
 * after). */
int cvisor_sandbox_set_context(CvisorSandbox *sb, const struct cvisor_context *ctx);
/* 1: the sandbox's diagnostics (the keeper's and its runs' debug lines) go
 * to stderr; 0 (default): quiet. Takes effect at the keeper's start. */
void cvisor_sandbox_set_log_level(CvisorSandbox *sb, int level);
/* 1 (default): outbound INET/INET6 through slirp4netns (`do --network
 * outbound`); 0: loopback only. */
void cvisor_sandbox_set_allow_network(CvisorSandbox *sb, int allow);
/* 0 (default): listen(2) fails with EPERM, on every kind of socket, UNIX
 * ones included (`do --deny-listen`); 1: servers may listen. */
void cvisor_sandbox_set_allow_listen(CvisorSandbox *sb, int allow);
/* Sets KEY=VALUE for the runs that follow (replacing an earlier value). */
void cvisor_sandbox_set_env(CvisorSandbox *sb, const char *key, const char *value);
/* Memory (bytes), processes and CPU share (percent of one core: 50 = half)
 * of each run; 0 = unset. A value the policy refuses fails the next run,
 * with its message. */
void cvisor_sandbox_set_limits(CvisorSandbox *sb, uint64_t memory_max_bytes, uint64_t pids_max, uint32_t cpu_percent);
/* Any key of the policy of `cvisor do` (cvisor-do(1)), in either spelling,
 * with its value as the command line takes it ("cpu_seconds", "30";
 * "deny-read", "~/secrets"; "network", "none"; a list key adds to its
 * list): workspace, writable, deny_read, deny_write, cpu_seconds,
 * max_file_size, open_files, max_output_bytes, network, env, memory, cpus,
 * processes, timeout, tmp_size, deny_listen, require_limits. rootfs and
 * user are refused (EINVAL): a sandbox runs on the host's root as the
 * caller. */
int cvisor_sandbox_set_option(CvisorSandbox *sb, const char *key, const char *value);
/* Replaces the whole policy with a policy document (JSON, cvisor-do(1)). */
int cvisor_sandbox_set_policy_json(CvisorSandbox *sb, const char *json);

/* Files, at paths as the program sees them (resolved inside the sandbox,
 * by a run of the agent, `cvisor-agent`: a symlink the program planted leads
 * where it would lead the program, a masked path stays unreadable).
 * write_file: creates or replaces PATH (0644); a path under /tmp, /run,
 * /dev, /proc or /sys is EXDEV (nothing there is kept). read_file: the
 * whole file; an empty one is NULL with *len = 0, a failure NULL with
 * *len = its errno (non-zero: ENOENT, EISDIR, EACCES...). copy_into: a
 * host file or directory to GUEST_PATH (a directory as a tree, without
 * what its .gitignore files and root .dockerignore exclude, git's rules);
 * copy_out: a guest file or directory to HOST_PATH (a file created or
 * replaced, a directory made or merged into, by the calling process; the
 * tree from the sandbox is unpacked refusing any entry that would leave
 * HOST_PATH). */
int cvisor_sandbox_write_file(CvisorSandbox *sb, const char *path, const uint8_t *data, size_t len);
uint8_t *cvisor_sandbox_read_file(CvisorSandbox *sb, const char *path, size_t *len);
int cvisor_sandbox_copy_into(CvisorSandbox *sb, const char *host_path, const char *guest_path);
int cvisor_sandbox_copy_out(CvisorSandbox *sb, const char *guest_path, const char *host_path);

/* Caches: cache_save archives the guest directory SANDBOX_PATH (what its
 * .gitignore files and root .dockerignore exclude left out) under KEY in
 * BACKEND ("" or "disk": a per-user cache directory, $XDG_CACHE_HOME/cvisor
 * or ~/.cache/cvisor, /var/cache/cvisor for root; "disk:/path";
 * "s3://bucket/prefix?region=..&endpoint=.." with SigV4, credentials from
 * AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), in FORMAT ("gzip", the
 * default for "" or NULL; "none", a plain tar; "zstd"; "estargz" is
 * EOPNOTSUPP). cache_restore unpacks it into SANDBOX_PATH (the overlay,
 * made when missing), inside the sandbox as the program, refusing entries
 * that would leave it (absolute, `..`, through a symlink, hard links out,
 * devices) and archives beyond 4 GiB or a million entries. Keys: a safe
 * character set, no `.` or `..` component, no leading `/`. */
int cvisor_cache_save(CvisorSandbox *sb, const char *sandbox_path, const char *key, const char *backend,
		      const char *format);
int cvisor_cache_restore(CvisorSandbox *sb, const char *sandbox_path, const char *key, const char *backend,
			 const char *format);

/* `/bin/sh -c COMMAND`, stdin empty, both streams captured (each capped at
 * max_output_bytes, 64 MiB unless set; the excess is dropped and the
 * report says so). The timeout (ms; 0 = the policy's) kills every process
 * of the run: exit code 137, the report's "timed_out". NULL only when the
 * run could not be started. */
CvisorOutput *cvisor_run(CvisorSandbox *sb, const char *command);
CvisorOutput *cvisor_run_timeout(CvisorSandbox *sb, const char *command, uint64_t timeout_ms);
/* ARGV (NULL-terminated) run directly, nothing parsed; CWD inside (NULL:
 * the workspace); INPUT (INPUT_LEN bytes, may be NULL) fed to its stdin. */
CvisorOutput *cvisor_run_argv(CvisorSandbox *sb, const char *const *argv, const char *cwd, const uint8_t *input,
			      size_t input_len, uint64_t timeout_ms);
/* A run with every setting (struct_size: see the top). argv is required;
 * env's "NAME=value" entries (NULL-terminated, may be NULL) are added for
 * this run over the sandbox's; max_output_bytes caps each stream of this
 * run (0: the sandbox's). */
struct cvisor_run_options {
	size_t struct_size;
	const char *const *argv;
	const char *const *env;
	const char *cwd;
	const uint8_t *input;
	size_t input_len;
	uint64_t timeout_ms;
	uint64_t max_output_bytes;
};
CvisorOutput *cvisor_run_with(CvisorSandbox *sb, const struct cvisor_run_options *opts);
/* Ends, now, every run and session of SB in flight, from any thread: each
 * ends like a killed one (exit code 137; a run's report says
 * "cancelled"). What starts after it is not affected. 0, or -errno. */
int cvisor_sandbox_cancel(CvisorSandbox *sb);
void cvisor_output_free(CvisorOutput *out);
/* The exit status: 128+N when signal N ended it, 137 after the timeout. */
int cvisor_output_exit_code(CvisorOutput *out);
/* Copies of the captured streams (cvisor_bytes_free); NULL, *len = 0 when
 * empty. */
uint8_t *cvisor_output_stdout(CvisorOutput *out, size_t *len);
uint8_t *cvisor_output_stderr(CvisorOutput *out, size_t *len);
/* The run's report, the JSON of `cvisor do --report` (exit_code,
 * timed_out, limits_hit, peak memory, CPU time, truncation...), owned by
 * OUT. */
const char *cvisor_output_report_json(CvisorOutput *out);
void cvisor_bytes_free(uint8_t *ptr, size_t len);

/* A program that runs while the caller talks to it: `/bin/sh -c COMMAND`,
 * or with COMMAND NULL an interactive `/bin/sh -i`. PTY 1: under a
 * terminal of the sandbox's own (stdout and stderr merged into stdout,
 * stdin written with write_stdin, its size set by resize, 24x80 at first);
 * PTY 0: stdout and stderr apart, stdin empty (write_stdin: -EPIPE). Reads
 * never block: they return what arrived since the last read (NULL, *len = 0
 * when nothing). try_wait: *done = 1 and the exit status once it ended,
 * else *done = 0 (returns 0); wait blocks for the exit status (the output
 * meanwhile is kept for the reads); kill ends every process of the session
 * (exit status 137); free kills it if it still runs, and waits for it. */
CvisorSession *cvisor_session_start(CvisorSandbox *sb, const char *command, int pty);
uint8_t *cvisor_session_read_stdout(CvisorSession *s, size_t *len);
uint8_t *cvisor_session_read_stderr(CvisorSession *s, size_t *len);
long cvisor_session_write_stdin(CvisorSession *s, const uint8_t *data, size_t len);
void cvisor_session_resize(CvisorSession *s, uint16_t rows, uint16_t cols);
int cvisor_session_try_wait(CvisorSession *s, int *done);
int cvisor_session_wait(CvisorSession *s);
void cvisor_session_kill(CvisorSession *s);
void cvisor_session_free(CvisorSession *s);

#ifdef __cplusplus
}
#endif
#endif
