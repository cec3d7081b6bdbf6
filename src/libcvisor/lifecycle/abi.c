/* struct_size of the public options structs: smaller than the struct's
 * first version is a caller's bug; larger is a caller built against a newer
 * header, fine as long as it sets nothing this library does not know. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "lifecycle/abi.h"

#define END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
#define PADDED(n, type) (((n) + _Alignof(type) - 1) / _Alignof(type) * _Alignof(type))
/* Larger is scanned for non-zero bytes; beyond this it is garbage. */
#define MAX_STRUCT_SIZE 65536

/* Where each struct's first published version ended. A field appended later
 * must start past that version's padding, or an old caller's padding bytes
 * would be read as the new field. */
#define CONTEXT_V0 END(struct cvisor_context, rootless)
#define CREATE_V0 END(struct cvisor_create_options, keep)
#define EXEC_V0 END(struct cvisor_exec_options, process_label)
#define UPDATE_V0 END(struct cvisor_update_options, resources_json_len)
#define EVENTS_V0 END(struct cvisor_events_options, interval_ms)
#define SPEC_V0 END(struct cvisor_spec_options, policy_path)
#define DO_V0 END(struct cvisor_do_options, report_path)
#define RUN_V0 END(struct cvisor_run_options, max_output_bytes)
_Static_assert(offsetof(struct cvisor_context, helper_path) >= PADDED(CONTEXT_V0, struct cvisor_context),
	       "helper_path overlaps the first cvisor_context's padding");
_Static_assert(offsetof(struct cvisor_create_options, cancel_fd) >= PADDED(CREATE_V0, struct cvisor_create_options),
	       "cancel_fd overlaps the first cvisor_create_options's padding");
_Static_assert(offsetof(struct cvisor_exec_options, cancel_fd) >= PADDED(EXEC_V0, struct cvisor_exec_options),
	       "cancel_fd overlaps the first cvisor_exec_options's padding");
_Static_assert(offsetof(struct cvisor_update_options, resources_name) >=
		       PADDED(UPDATE_V0, struct cvisor_update_options),
	       "resources_name overlaps the first cvisor_update_options's padding");
_Static_assert(offsetof(struct cvisor_events_options, cancel_fd) >= PADDED(EVENTS_V0, struct cvisor_events_options),
	       "cancel_fd overlaps the first cvisor_events_options's padding");

/* Copies IN (NULL: all zero) into OUT of SIZE bytes, struct_size first in
 * both. */
static int copy_struct(const void *in, void *out, size_t size, size_t first, const char *name, cv_error_t *err)
{
	size_t given;

	memset(out, 0, size);
	if (!in) {
		memcpy(out, &size, sizeof(size));
		return 0;
	}
	memcpy(&given, in, sizeof(given));
	if (given < first)
		return cv_error_plain(
			err, EINVAL,
			"struct %s: struct_size %zu is smaller than the struct's first version (%zu bytes): "
			"set it to sizeof(struct %s)",
			name, given, first, name);
	if (given > MAX_STRUCT_SIZE)
		return cv_error_plain(err, E2BIG, "struct %s: struct_size %zu is not a size of this struct", name,
				      given);
	for (size_t i = size; i < given; i++)
		if (((const unsigned char *)in)[i])
			return cv_error_plain(
				err, E2BIG,
				"struct %s: struct_size %zu sets fields past the %zu bytes this libcvisor "
				"(%s) knows",
				name, given, size, PACKAGE_VERSION);
	memcpy(out, in, given < size ? given : size);
	memcpy(out, &size, sizeof(size));
	return 0;
}

int cv_abi_context(const struct cvisor_context *in, struct cvisor_context *out, cv_error_t *err)
{
	return copy_struct(in, out, sizeof(*out), CONTEXT_V0, "cvisor_context", err);
}

int cv_abi_create_options(const struct cvisor_create_options *in, struct cvisor_create_options *out, cv_error_t *err)
{
	return copy_struct(in, out, sizeof(*out), CREATE_V0, "cvisor_create_options", err);
}

int cv_abi_exec_options(const struct cvisor_exec_options *in, struct cvisor_exec_options *out, cv_error_t *err)
{
	return copy_struct(in, out, sizeof(*out), EXEC_V0, "cvisor_exec_options", err);
}

int cv_abi_update_options(const struct cvisor_update_options *in, struct cvisor_update_options *out, cv_error_t *err)
{
	return copy_struct(in, out, sizeof(*out), UPDATE_V0, "cvisor_update_options", err);
}

int cv_abi_events_options(const struct cvisor_events_options *in, struct cvisor_events_options *out, cv_error_t *err)
{
	return copy_struct(in, out, sizeof(*out), EVENTS_V0, "cvisor_events_options", err);
}

int cv_abi_spec_options(const struct cvisor_spec_options *in, struct cvisor_spec_options *out, cv_error_t *err)
{
	return copy_struct(in, out, sizeof(*out), SPEC_V0, "cvisor_spec_options", err);
}

int cv_abi_do_options(const struct cvisor_do_options *in, struct cvisor_do_options *out, cv_error_t *err)
{
	return copy_struct(in, out, sizeof(*out), DO_V0, "cvisor_do_options", err);
}

int cv_abi_run_options(const struct cvisor_run_options *in, struct cvisor_run_options *out, cv_error_t *err)
{
	return copy_struct(in, out, sizeof(*out), RUN_V0, "cvisor_run_options", err);
}
