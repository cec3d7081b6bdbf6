/* create / start / run: the parent side of the container process. */
#ifndef CVISOR_CREATE_H
#define CVISOR_CREATE_H

#include <stdbool.h>

#include "error.h"
#include "status.h"

/* Removes every trace of a container whose process is gone or killed:
 * poststop hooks (warnings), cgroup, state directory. Consumes c's entry. */
int cv_container_destroy(struct cv_container *c, cv_error_t *err);
/* Kills every process (cgroup, then the init through a verified pidfd) and
 * waits, bounded, for the init to exit. */
int cv_container_kill_wait(struct cv_container *c, cv_error_t *err);

/* The config.json copy kept in the state directory at create. */
int cv_container_spec(struct cv_container *c, oci_spec **out, cv_error_t *err);

#endif
