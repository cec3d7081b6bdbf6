/* A tiny TAP producer for the C unit tests: `ok(cond, name...)`,
 * `is_str(got, want, name...)`, and `return tap_done();` at the end of main,
 * which prints the plan ("1..N") and makes the exit status reflect failures. */
#ifndef CVISOR_TESTS_TAP_H
#define CVISOR_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failures;

static inline __attribute__((format(printf, 4, 0))) bool tap_vok(bool pass, const char *file, int line, const char *fmt,
								 va_list ap)
{
	tap_count++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	printf("\n");
	if (!pass) {
		tap_failures++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

static inline __attribute__((format(printf, 4, 5))) bool tap_ok(bool pass, const char *file, int line, const char *fmt,
								...)
{
	va_list ap;
	va_start(ap, fmt);
	bool r = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	return r;
}

static inline __attribute__((format(printf, 5, 6))) bool tap_is_str(const char *got, const char *want, const char *file,
								    int line, const char *fmt, ...)
{
	bool pass = got && want && strcmp(got, want) == 0; /* NULL never matches */
	va_list ap;
	va_start(ap, fmt);
	bool r = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass) {
		printf("#        got: %s\n", got ? got : "(null)");
		printf("#   expected: %s\n", want ? want : "(null)");
	}
	return r;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

static inline void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}

#endif
