/* Capability sets of the container process (libcap). */
#ifndef CVISOR_CAPS_H
#define CVISOR_CAPS_H

#include "error.h"
#include "oci/spec.h"

/* Name ("CAP_SYS_ADMIN") -> number; -1 when unknown. */
int cv_cap_from_name(const char *name);
/* Checks every name; the error names the field and the capability. */
int cv_caps_validate(const oci_capabilities *caps, cv_error_t *err);
/* Drops the bounding set to `caps->bounding` (needs CAP_SETPCAP: call it
 * before switching to a non-root uid). NULL caps drops all. */
int cv_caps_drop_bounding(const oci_capabilities *caps, cv_error_t *err);
/* Sets effective, permitted and inheritable, then raises ambient. */
int cv_caps_set(const oci_capabilities *caps, cv_error_t *err);

#endif
