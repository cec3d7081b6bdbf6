/* libFuzzer target: config.json parsing. Besides memory errors (ASan/UBSan),
 * it checks two properties on every input: a rejected document always comes
 * with an error message, and an accepted one survives emit -> parse
 * unchanged (pretty and compact). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "oci/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	oci_spec *s = NULL;
	cv_error_t err = NULL;
	if (oci_spec_parse((const char *)data, size, "config.json", &s, &err) < 0) {
		if (!err || !err->msg || !*err->msg)
			abort();
		cv_error_release(&err);
		return 0;
	}
	for (int pretty = 0; pretty <= 1; pretty++) {
		char *out = NULL;
		size_t len = 0;
		oci_spec *back = NULL;
		if (oci_spec_emit(s, pretty, &out, &len, &err) < 0)
			abort();
		if (oci_spec_parse(out, len, "emitted", &back, &err) < 0)
			abort();
		if (!oci_spec_equal(s, back))
			abort();
		oci_spec_free(back);
		free(out);
	}
	oci_spec_free(s);
	return 0;
}
