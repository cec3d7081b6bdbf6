/* The ABI checks of the public entry points (see the top of cvisor.h): every
 * options struct a caller passes is copied into one of the size this
 * library was built with, so the code behind reads every field without
 * looking at struct_size again. */
#ifndef CVISOR_ABI_H
#define CVISOR_ABI_H

#include "cvisor.h"
#include "error.h"

int cv_abi_context(const struct cvisor_context *in, struct cvisor_context *out, cv_error_t *err);
int cv_abi_create_options(const struct cvisor_create_options *in, struct cvisor_create_options *out, cv_error_t *err);
int cv_abi_exec_options(const struct cvisor_exec_options *in, struct cvisor_exec_options *out, cv_error_t *err);
int cv_abi_update_options(const struct cvisor_update_options *in, struct cvisor_update_options *out, cv_error_t *err);
int cv_abi_events_options(const struct cvisor_events_options *in, struct cvisor_events_options *out, cv_error_t *err);
int cv_abi_spec_options(const struct cvisor_spec_options *in, struct cvisor_spec_options *out, cv_error_t *err);
int cv_abi_run_options(const struct cvisor_run_options *in, struct cvisor_run_options *out, cv_error_t *err);
int cv_abi_do_options(const struct cvisor_do_options *in, struct cvisor_do_options *out, cv_error_t *err);

#endif
