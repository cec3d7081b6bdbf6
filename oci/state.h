/* The container record cvisor keeps in <root>/<id>/state.json, and the
 * runtime-spec "state" document derived from it. The record is a superset of
 * the spec's state: everything later commands need to act on the container
 * without re-reading the bundle. */
#ifndef CVISOR_OCI_STATE_H
#define CVISOR_OCI_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "spec.h"

typedef struct {
	char *oci_version;
	char *id;
	char *status;             /* creating | created | running | stopped (spec) ; paused (runc) */
	int pid;                  /* 0 when not running */
	uint64_t pid_start;       /* /proc/PID/stat starttime: tells a recycled pid apart */
	char *bundle;             /* absolute */
	char *rootfs;             /* absolute */
	char *created;            /* RFC 3339, UTC, nanoseconds */
	char *owner;              /* user name or uid that created it */
	char *cgroup_path;        /* resolved cgroupsPath, relative to each hierarchy root */
	oci_kv_list cgroup_paths; /* controller (or "unified") -> absolute directory */
	bool systemd_cgroup;
	bool rootless;
	bool no_pivot;
	bool no_new_keyring;
	oci_kv_list annotations;
	oci_kv_list extra; /* forward-compatible key/value data (string values) */
} oci_state;

/* The internal record (all fields). */
int oci_state_emit(const oci_state *st, char **out, size_t *out_len, cv_error_t *err);
int oci_state_parse(const char *data, size_t len, const char *name, oci_state **out, cv_error_t *err);
/* The runtime-spec state JSON (ociVersion, id, status, pid, bundle,
 * annotations), as `cvisor state` prints it and hooks read it on stdin;
 * `created` and `owner` are added as runc does. */
int oci_state_emit_public(const oci_state *st, bool pretty, char **out, size_t *out_len, cv_error_t *err);
/* The runtime-spec "containerProcessState" a seccomp agent receives on
 * linux.seccomp.listenerPath, with the listener fd: {"ociVersion", "fds":
 * ["seccompFd"], "pid", "metadata", "state"}, where STATE_JSON (as
 * oci_state_emit_public writes it) is the "state" member as it is. */
int oci_seccomp_agent_message(int pid, const char *metadata, const char *state_json, char **out, size_t *out_len,
			      cv_error_t *err);
void oci_state_free(oci_state *st);

static inline void oci_state_freep(oci_state **s)
{
	oci_state_free(*s);
}
#define cleanup_state __attribute__((cleanup(oci_state_freep)))

#endif
