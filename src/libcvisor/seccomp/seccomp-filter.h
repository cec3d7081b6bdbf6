/* OCI seccomp profile -> BPF filter. Compiled in the runtime before the
 * container process is cloned (so errors reach the caller early and the
 * work is done once), loaded by the container process right before execve. */
/* Named seccomp-filter.h so it never shadows libseccomp's <seccomp.h>. */

#ifndef CVISOR_SECCOMP_H
#define CVISOR_SECCOMP_H

#include <stdbool.h>

#include "error.h"
#include "oci/spec.h"

struct cv_seccomp; /* a compiled filter plus its load flags */

int cv_seccomp_compile(const oci_seccomp *profile, struct cv_seccomp **out, cv_error_t *err);
/* True when the profile uses SCMP_ACT_NOTIFY: load returns a listener fd. */
bool cv_seccomp_has_notify(const struct cv_seccomp *f);
/* Installs the filter in the calling process (async-signal-safe enough to run
 * in the cloned child: no allocation). *notify_fd receives the listener fd or
 * -1. */
int cv_seccomp_load(const struct cv_seccomp *f, int *notify_fd, cv_error_t *err);
/* Sends the listener fd with the container's PID, its state (STATE_JSON,
 * the public state document) and listenerMetadata to the agent socket at
 * listener_path, in runc's seccomp agent format. */
int cv_seccomp_send_listener(const char *listener_path, int notify_fd, int pid, const char *state_json,
			     const char *metadata, cv_error_t *err);
/* The listener fd of a container process's notify filter: taken from it
 * (pidfd_getfd of CHILD_FD, the number it sent, see load_seccomp in finish.c) and
 * handed to the agent at the profile's listenerPath with STATE_JSON. */
int cv_seccomp_take_listener(int pidfd, int child_fd, const oci_seccomp *profile, int pid, const char *state_json,
			     cv_error_t *err);
void cv_seccomp_free(struct cv_seccomp *f);

/* Compiled programs are cached (keyed by the whole profile, the libseccomp
 * and kernel versions) in a private 0700 directory: by default
 * /run/cvisor/seccomp-cache for root, or $CVISOR_SECCOMP_CACHE. DIR NULL or
 * "" disables the cache. Returns -ENOMEM on failure. */
int cv_seccomp_set_cache_dir(const char *dir);

#endif
