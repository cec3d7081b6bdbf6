/* libFuzzer target: state.json parsing (the record under --root, which a
 * later command trusts), plus emit -> parse of what was accepted. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oci/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	oci_state *st = NULL;
	cv_error_t err = NULL;
	if (oci_state_parse((const char *)data, size, "state.json", &st, &err) < 0) {
		if (!err || !err->msg || !*err->msg)
			abort();
		cv_error_release(&err);
		return 0;
	}
	char *out = NULL;
	size_t len = 0;
	oci_state *back = NULL;
	if (oci_state_emit(st, &out, &len, &err) < 0)
		abort();
	if (oci_state_parse(out, len, "emitted", &back, &err) < 0)
		abort();
	if (!same(st->id, back->id) || !same(st->status, back->status) || !same(st->bundle, back->bundle) ||
	    !same(st->rootfs, back->rootfs) || !same(st->cgroup_path, back->cgroup_path) || st->pid != back->pid ||
	    st->pid_start != back->pid_start || st->annotations.len != back->annotations.len ||
	    st->cgroup_paths.len != back->cgroup_paths.len || st->rootless != back->rootless)
		abort();
	free(out);
	if (oci_state_emit_public(st, true, &out, &len, &err) < 0)
		abort();
	free(out);
	oci_state_free(back);
	oci_state_free(st);
	return 0;
}
