/* Internal to oci/: config.json's own linux.resources routines, exported by
 * spec-parse.c, spec-validate.c and spec-free.c for oci/resources.c, so a
 * standalone resources object goes through exactly the same code. */
#ifndef CVISOR_OCI_RESOURCES_INTERNAL_H
#define CVISOR_OCI_RESOURCES_INTERNAL_H

#include "json.h"
#include "spec.h"

int oci_resources_parse_obj_(jr_ctx *c, const jt_node *n, oci_resources *res);
int oci_resources_validate_(const char *name, cv_error_t *err, const oci_resources *res);
void oci_resources_free_(oci_resources *res);

#endif
