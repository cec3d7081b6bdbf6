/* libFuzzer target: `exec --process FILE` parsing, with the same round-trip
 * property as fuzz_config. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "oci/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	oci_process *p = NULL;
	cv_error_t err = NULL;
	if (oci_process_parse((const char *)data, size, "process.json", &p, &err) < 0) {
		if (!err || !err->msg || !*err->msg)
			abort();
		cv_error_release(&err);
		return 0;
	}
	char *out = NULL;
	size_t len = 0;
	oci_process *back = NULL;
	if (oci_process_emit(p, false, &out, &len, &err) < 0)
		abort();
	if (oci_process_parse(out, len, "emitted", &back, &err) < 0)
		abort();
	if (!oci_process_equal(p, back))
		abort();
	oci_process_free(back);
	free(out);
	oci_process_free(p);
	return 0;
}
