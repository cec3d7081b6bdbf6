/* A container loaded from the state store, and its live status: the
 * recorded status is only trusted while the recorded process is still the
 * same process (pid plus /proc/PID/stat start time, so a recycled pid is
 * never mistaken for the container). */
#ifndef CVISOR_STATUS_H
#define CVISOR_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroups/cgroups.h"
#include "error.h"
#include "oci/state.h"
#include "lifecycle/state-store.h"

struct cvisor_context;

struct cv_container {
	char *root;                   /* state root */
	struct cv_store_entry *entry; /* locked while loaded */
	oci_state *state;
	struct cv_cgroup *cg;         /* loaded on demand by cv_container_cgroup */
};

/* Resolves the state root of ctx (malloc'd). */
int cv_context_root(const struct cvisor_context *ctx, char **out, cv_error_t *err);
/* Opens, locks and reads the container. */
int cv_container_load(const struct cvisor_context *ctx, const char *id, struct cv_container **out,
		      cv_error_t *err);
int cv_container_cgroup(struct cv_container *c, struct cv_cgroup **out, cv_error_t *err);
/* The live status: "created", "running", "paused" or "stopped". */
int cv_container_status(struct cv_container *c, const char **status, cv_error_t *err);
void cv_container_free(struct cv_container *c);
static inline void cv_container_freep(struct cv_container **c) { cv_container_free(*c); }
#define cleanup_container __attribute__((cleanup(cv_container_freep)))

/* Field 22 of /proc/PID/stat; -ESRCH when the process is gone, or a
 * zombie unless ZOMBIE_OK (our own child, which may exit before we look). */
int cv_proc_start_time(pid_t pid, bool zombie_ok, uint64_t *out);
/* A pidfd of pid if it is still the process that started at `start`;
 * -ESRCH (no error set) when it exited or the pid was recycled. */
int cv_pidfd_open_verified(pid_t pid, uint64_t start, int *out, cv_error_t *err);
/* RFC 3339 UTC timestamp with nanoseconds (malloc'd). */
char *cv_now_rfc3339(void);

#endif
