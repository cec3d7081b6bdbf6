/* A standalone linux.resources object: what `update --resources FILE`
 * receives from containerd (the runtime-spec LinuxResources JSON). Parsed
 * and validated by the same code as config.json's linux.resources. */
#ifndef CVISOR_OCI_RESOURCES_H
#define CVISOR_OCI_RESOURCES_H

#include <stddef.h>

#include "error.h"
#include "spec.h"

/* Errors name NAME and the JSON path under linux.resources, e.g.
 * `resources.json: linux.resources.memory.limit: expected an integer, got "x"`. */
int oci_resources_parse(const char *data, size_t len, const char *name, oci_resources **out, cv_error_t *err);
/* The checks config.json's linux.resources gets (ranges, device rules). */
int oci_resources_validate(const oci_resources *r, const char *name, cv_error_t *err);
void oci_resources_free(oci_resources *r);
static inline void oci_resources_freep(oci_resources **r)
{
	oci_resources_free(*r);
}
#define cleanup_oci_resources __attribute__((cleanup(oci_resources_freep)))

#endif
