/* Unit tests for the state's timestamps (cv_rfc3339_utc in
 * src/libcvisor/lifecycle/status.c), computed without the C library's
 * time zone code: checked against gmtime_r on edges and random instants. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lifecycle/status.h"
#include "tap.h"

static char *reference(int64_t secs, long nsecs)
{
	time_t t = (time_t)secs;
	struct tm tm;
	char *out = NULL;
	/* the fields, not strftime: its %Y has no leading zeros before 1000 */
	if (!gmtime_r(&t, &tm))
		return NULL;
	if (asprintf(&out, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		     tm.tm_hour, tm.tm_min, tm.tm_sec, nsecs) < 0)
		return NULL;
	return out;
}

static bool same(int64_t secs, long nsecs)
{
	char *got = cv_rfc3339_utc(secs, nsecs), *want = reference(secs, nsecs);
	bool ok = got && want && strcmp(got, want) == 0;
	if (!ok)
		printf("# %lld: got %s, want %s\n", (long long)secs, got ? got : "(null)", want ? want : "(null)");
	free(got);
	free(want);
	return ok;
}

static void is_stamp(int64_t secs, long nsecs, const char *want, const char *name)
{
	char *got = cv_rfc3339_utc(secs, nsecs);
	is_str(got, want, "%s", name);
	free(got);
}

int main(void)
{
	is_stamp(0, 0, "1970-01-01T00:00:00.000000000Z", "the epoch");
	is_stamp(-1, 999999999, "1969-12-31T23:59:59.999999999Z", "a second before the epoch");
	is_stamp(951782400, 5, "2000-02-29T00:00:00.000000005Z", "a leap day of a 400th year");
	is_stamp(4107542400, 0, "2100-03-01T00:00:00.000000000Z", "2100 has no leap day");
	is_stamp(253402300799, 0, "9999-12-31T23:59:59.000000000Z", "the last second of 9999");

	static const int64_t edges[] = { 0,         -1,        86399,      86400,      68169600,    951868799,
					 951868800, 978307199, 4102444799, 4107542399, -2208988800, -62135596800 };
	bool all = true;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		all &= same(edges[i], 123456789);
	ok(all, "year, month and day boundaries match gmtime_r");

	srand(20261204);
	all = true;
	for (int i = 0; i < 200000 && all; i++) {
		int64_t secs = ((int64_t)rand() << 16 ^ rand()) % 200000000000LL - 100000000000LL;
		all &= same(secs, rand() % 1000000000);
	}
	ok(all, "200000 random instants from -1200 to 5100 match gmtime_r");
	return tap_done();
}
