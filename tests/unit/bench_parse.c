/* Not a test: prints how long parsing (and emitting) a config takes.
 *   tests/unit/bench_parse [config.json ...]
 * Without arguments it measures the default config (`cvisor spec`, the
 * same content as `runc spec`) and runc spec's own output. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>

#include "io.h"
#include "oci/spec.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench(const char *what, const char *json, size_t len)
{
	const int rounds = 20000;
	cv_error_t err = NULL;
	oci_spec *s = NULL;
	if (oci_spec_parse(json, len, what, &s, &err) < 0) {
		fprintf(stderr, "%s\n", err->msg);
		cv_error_release(&err);
		return 1;
	}
	oci_spec_free(s);
	double t0 = now();
	for (int i = 0; i < rounds; i++) {
		if (oci_spec_parse(json, len, what, &s, &err) < 0)
			return 1;
		oci_spec_free(s);
	}
	double parse_us = (now() - t0) / rounds * 1e6;
	(void)oci_spec_parse(json, len, what, &s, &err);
	t0 = now();
	for (int i = 0; i < rounds; i++) {
		char *out = NULL;
		size_t olen;
		if (oci_spec_emit(s, true, &out, &olen, &err) < 0)
			return 1;
		free(out);
	}
	double emit_us = (now() - t0) / rounds * 1e6;
	oci_spec_free(s);
	printf("%s (%zu bytes): parse+validate+free %.1f us, emit %.1f us\n", what, len, parse_us, emit_us);
	return 0;
}

int main(int argc, char **argv)
{
	cv_error_t err = NULL;
	int rc = 0;
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			char *data = NULL;
			size_t len;
			if (cv_read_file_at(AT_FDCWD, argv[i], OCI_JSON_MAX_SIZE, CV_READ_REGULAR, &data, &len, &err) <
			    0) {
				fprintf(stderr, "%s\n", err->msg);
				return 1;
			}
			rc |= bench(argv[i], data, len);
			free(data);
		}
		return rc;
	}
	oci_spec *def = NULL;
	char *json = NULL;
	size_t len;
	if (oci_spec_default(false, &def, &err) < 0 || oci_spec_emit(def, true, &json, &len, &err) < 0) {
		fprintf(stderr, "%s\n", err->msg);
		return 1;
	}
	rc |= bench("default config (cvisor spec)", json, len);
	free(json);
	oci_spec_free(def);
#ifdef TEST_DATA_DIR
	char *data = NULL;
	if (cv_read_file_at(AT_FDCWD, TEST_DATA_DIR "/runc-spec.json", OCI_JSON_MAX_SIZE, CV_READ_REGULAR, &data, &len,
			    &err) == 0) {
		rc |= bench("runc spec output", data, len);
		free(data);
	}
	if (cv_read_file_at(AT_FDCWD, TEST_DATA_DIR "/full.json", OCI_JSON_MAX_SIZE, CV_READ_REGULAR, &data, &len,
			    &err) == 0) {
		rc |= bench("full fixture", data, len);
		free(data);
	}
#endif
	cv_error_release(&err);
	return rc;
}
