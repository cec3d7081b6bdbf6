/* The lifecycle's own interface, shared by its files (create.c, exec.c,
 * container.c, status.c, container-cgroups.c) and the sandbox supervisor:
 * the container record loaded from the state store, its live status, and
 * the steps of create / start / run / delete that more than one verb uses. */
#ifndef CVISOR_CREATE_H
#define CVISOR_CREATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cvisor.h"
#include "error.h"
#include "cgroups/cgroups.h"
#include "lifecycle/state-store.h"
#include "oci/spec.h"
#include "oci/state.h"

/* A container loaded from the state store, locked until freed. Its
 * recorded status is trusted only while its process is the same one
 * (see status.h). */
struct cv_container {
	char *root;                   /* state root */
	struct cv_store_entry *entry; /* locked while loaded */
	oci_state *state;
	struct cv_cgroup *cg; /* loaded on demand by cv_container_cgroup */
};

/* Resolves the state root of ctx (malloc'd). */
int cv_context_root(const struct cvisor_context *ctx, char **out, cv_error_t *err);
/* Opens, locks and reads the container. */
int cv_container_load(const struct cvisor_context *ctx, const char *id, struct cv_container **out, cv_error_t *err);
int cv_container_cgroup(struct cv_container *c, struct cv_cgroup **out, cv_error_t *err);
/* The live status: "created", "running", "paused" or "stopped". */
int cv_container_status(struct cv_container *c, const char **status, cv_error_t *err);
void cv_container_free(struct cv_container *c);
static inline void cv_container_freep(struct cv_container **c)
{
	cv_container_free(*c);
}
#define cleanup_container __attribute__((cleanup(cv_container_freep)))

/* The in-process create, run and exec behind the public calls (entry.c),
 * for the cvisor binary; options already checked (abi.h). */
int cv_create(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts,
	      cv_error_t *err);
int cv_run(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts, bool detach,
	   int *exit_status, cv_error_t *err);
int cv_exec(const struct cvisor_context *ctx, const char *id, const struct cvisor_exec_options *opts, int *exit_status,
	    cv_error_t *err);

/* Removes every trace of a container whose process is gone or killed:
 * poststop hooks (warnings), cgroup, state directory (consumes c's entry).
 * SPEC is the container's config when the caller has it, else NULL to read
 * the copy in the state directory. */
int cv_container_destroy(struct cv_container *c, const oci_spec *spec, cv_error_t *err);
/* Kills every process (cgroup, then the init through a verified pidfd) and
 * waits, bounded, for the init to exit. */
int cv_container_kill_wait(struct cv_container *c, cv_error_t *err);

/* cvisor do's launch: create and start at once, without a record in the
 * state store (nothing is written to disk, `list` does not show it), the
 * container process dying with this one (PR_SET_PDEATHSIG, set after its
 * credentials) and going from its set-up to execve without waiting for a
 * start. GIVEN (may be NULL: read opts' config_path) is the config already
 * in memory, taken over whatever the outcome. WHILE_EXEC (may be NULL) is
 * called once the container process is complete and on its way to execve,
 * before waiting for that: work to overlap with it (c and spec are the
 * container's; on a later failure the container is destroyed). Returns once
 * the program runs, with T's outputs filled. */
#define CV_STDIO_PTY (-2)
struct cv_transient {
	/* in: what becomes the program's fd 0, 1 and 2: an fd (taken over:
	 * closed, whatever the outcome, before WHILE_EXEC runs), -1 for ours,
	 * or CV_STDIO_PTY for the pty of process.terminal (set in the config) */
	int stdio[3];
	/* in: no cgroup at all (cv_cgroup_config.none); the spec sets no
	 * linux.resources */
	bool no_cgroup;
	/* in, may be NULL: a prepared run. The container process waits, set up
	 * but for its program, until this returns the program's arguments
	 * ("ARG\0" each, malloc'd, taken over) and its stdin (an fd, taken
	 * over, or -1 for the one it has); an error (nothing to run after
	 * all) ends the container, and cv_run_transient fails with it. */
	int (*await_start)(void *arg, char **args, size_t *args_len, int *stdin_fd, cv_error_t *err);
	void *await_arg;
	/* in: the program starts only once WHILE_EXEC has returned (without,
	 * it may have ended, and the init with it, before WHILE_EXEC looks at
	 * the container). A prepared run's always does. */
	bool start_after_while_exec;
	/* in: cv_child_config.keyring_as_caller; for a config whose seccomp
	 * filter refuses every keyring call (nothing inside could tell the
	 * keyring's owner), and whose uid mapping many containers share:
	 * every sandbox of a root caller maps root to nobody, whose quota
	 * (kernel.keys.maxkeys, 200 by default) would cap how many run at once */
	bool keyring_as_caller;
	/* in, may be NULL: called for work of the caller's that the container
	 * does not wait for, once the container process is ready and goes on
	 * to execve (while it sets itself up when hooks or a seccomp agent
	 * take the state); SPEC is the whole config */
	void (*while_setup)(const oci_spec *spec, void *arg);
	void *while_setup_arg;
	/* out */
	struct cv_container *c; /* the caller kills and destroys it */
	oci_spec *spec;         /* its config */
	int pidfd;              /* its process: the init, with one */
	int console_master;     /* process.terminal: the pty's master; else -1 */
	/* with an init (CV_INIT_ANNOTATION): an eventfd (non-blocking) the init
	 * writes the program's wait status to before it exits
	 * (cv_init_status_word: 8 bytes, the status + 1); else -1 */
	int init_status;
	/* and before that status it has left the container's cgroup, when it
	 * could be given the way out (cv_cgroup_leave_open): the cgroup can
	 * go then without waiting for its exit */
	bool init_leaves;
};
int cv_run_transient(const struct cvisor_context *ctx, const char *id, const struct cvisor_create_options *opts,
		     oci_spec *given, void (*while_exec)(struct cv_container *c, const oci_spec *spec, void *arg),
		     void *arg, struct cv_transient *t, cv_error_t *err);

/* The config.json copy kept in the state directory at create. */
int cv_container_spec(struct cv_container *c, oci_spec **out, cv_error_t *err);

int cv_write_pid_file(const char *path, pid_t pid, cv_error_t *err);

#endif
