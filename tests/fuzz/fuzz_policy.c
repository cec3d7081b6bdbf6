/* libFuzzer target: the sandbox policy parser. Besides memory errors it
 * checks one invariant: a policy that parses emits JSON that parses again to
 * the same policy (emit is stable). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cv_error_t err = NULL;
	cv_policy *p = NULL;
	if (cv_policy_parse((const char *)data, size, "policy.json", &p, &err) < 0) {
		if (!err || !err->msg || strncmp(err->msg, "policy.json: ", 13) != 0)
			abort(); /* every failure has a message naming the document */
		cv_error_release(&err);
		return 0;
	}
	char *a = NULL, *b = NULL;
	cv_policy *q = NULL;
	if (cv_policy_emit(p, false, &a, NULL, &err) < 0)
		abort();
	if (cv_policy_parse(a, strlen(a), "emitted", &q, &err) < 0)
		abort();
	if (cv_policy_emit(q, false, &b, NULL, &err) < 0 || strcmp(a, b) != 0)
		abort();
	free(a);
	free(b);
	cv_policy_free(p);
	cv_policy_free(q);
	return 0;
}
