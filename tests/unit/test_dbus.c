/* cvisor's D-Bus client (dbus.c) without a bus: the marshaller against
 * hand-encoded bytes, the reader refusing truncated and lying messages (and
 * surviving every one-byte corruption of a valid one), bus addresses, and
 * the connection's failures (refused authentication, a silent server, an
 * unsupported transport). The client against a real dbus-daemon is
 * test_cgroups_systemd_bus. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroups/dbus.h"
#include "tap.h"

static bool bytes_eq(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len, const char *what)
{
	if (got_len == want_len && memcmp(got, want, want_len) == 0)
		return true;
	tap_diag("%s: %zu bytes, expected %zu", what, got_len, want_len);
	for (size_t i = 0; i < got_len || i < want_len; i++)
		if (i >= got_len || i >= want_len || got[i] != want[i]) {
			tap_diag("first difference at %zu: got %02x, expected %02x", i, i < got_len ? got[i] : 0,
				 i < want_len ? want[i] : 0);
			break;
		}
	return false;
}

/* Parses a copy of buf[0..len) (the parser takes the buffer over). */
static int parse_copy(const uint8_t *buf, size_t len, struct cv_dbus_message *m, cv_error_t *err)
{
	uint8_t *raw = malloc(len ? len : 1);
	if (!raw)
		return -1;
	memcpy(raw, buf, len);
	return cv_dbus_parse(raw, len, m, err);
}

static void test_marshal_call(void)
{
	/* method call, serial 1, path "/o", member "M", body s:"hi" */
	static const uint8_t want[] = {
		'l',
		1,
		0,
		1,
		7,
		0,
		0,
		0,
		1,
		0,
		0,
		0,
		39,
		0,
		0,
		0,
		/* PATH: code, signature "o", then u32 length, "/o\0" */
		1,
		1,
		'o',
		0,
		2,
		0,
		0,
		0,
		'/',
		'o',
		0,
		0,
		0,
		0,
		0,
		0, /* to 8 */
		/* MEMBER "M" */
		3,
		1,
		's',
		0,
		1,
		0,
		0,
		0,
		'M',
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		/* SIGNATURE "s": a signature's length is one byte */
		8,
		1,
		'g',
		0,
		1,
		's',
		0,
		0, /* the body starts on 8 */
		2,
		0,
		0,
		0,
		'h',
		'i',
		0,
	};
	struct cv_dbus_header h = { .type = CV_DBUS_METHOD_CALL,
				    .serial = 1,
				    .path = "/o",
				    .member = "M",
				    .signature = "s" };
	struct cv_dbus_writer body = { 0 }, out = { 0 };
	struct cv_dbus_message m;
	cv_error_t err = NULL;
	const char *s = NULL;

	cv_dbus_put_string(&body, "hi");
	ok(cv_dbus_build(&h, &body, &out, &err) == 0 && bytes_eq(out.buf, out.len, want, sizeof(want), "call"),
	   "a method call is encoded byte for byte");
	ok(parse_copy(out.buf, out.len, &m, &err) == 0 && m.h.type == CV_DBUS_METHOD_CALL && m.h.serial == 1 &&
		   strcmp(m.h.path, "/o") == 0 && strcmp(m.h.member, "M") == 0 && !m.h.interface &&
		   cv_dbus_read(&m, "s", &err, &s) == 0 && strcmp(s, "hi") == 0,
	   "and parses back: %s", err ? err->msg : "");
	cv_dbus_message_clear(&m);
	cv_error_release(&err);
	cv_dbus_writer_clear(&body);
	cv_dbus_writer_clear(&out);
}

static void test_marshal_alignment(void)
{
	/* a(sv) of {"A": t 42, "B": b true}: each struct on 8, the u64 after
	 * the "t" variant's signature padded to 8, the array length counting
	 * from the first element (after its own padding) */
	static const uint8_t want_asv[] = {
		40, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 'A', 0, 1, 't', 0, 0, 0, 0, 0, 0, 0, 0,
		42, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 'B', 0, 1, 'b', 0, 0, 0, 0, 1, 0, 0, 0,
	};
	/* "x" then an empty a(sa(sv)): the length, and the padding to the
	 * struct's 8 even with no element */
	static const uint8_t want_empty[] = {
		1, 0, 0, 0, 'x', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	/* au [1234] and ay [2] in variants (StartTransientUnit's PIDs and
	 * AllowedCPUs) */
	static const uint8_t want_arrays[] = {
		2, 'a', 'u', 0, 4, 0, 0, 0, 0xd2, 0x04, 0, 0, 2, 'a', 'y', 0, 1, 0, 0, 0, 2,
	};
	struct cv_dbus_writer w = { 0 };
	struct cv_dbus_array a, in;

	a = cv_dbus_array_begin(&w, "(sv)");
	cv_dbus_struct_begin(&w);
	cv_dbus_put_string(&w, "A");
	cv_dbus_variant_begin(&w, "t");
	cv_dbus_put_u64(&w, 42);
	cv_dbus_struct_begin(&w);
	cv_dbus_put_string(&w, "B");
	cv_dbus_variant_begin(&w, "b");
	cv_dbus_put_bool(&w, true);
	cv_dbus_array_end(&w, a);
	ok(!w.error && bytes_eq(w.buf, w.len, want_asv, sizeof(want_asv), "a(sv)"),
	   "a(sv) with a t after an s: structs and u64 on 8");
	cv_dbus_writer_clear(&w);

	cv_dbus_put_string(&w, "x");
	cv_dbus_array_end(&w, cv_dbus_array_begin(&w, "(sa(sv))"));
	ok(!w.error && bytes_eq(w.buf, w.len, want_empty, sizeof(want_empty), "empty array"),
	   "an empty array of structs keeps the padding to its first element");
	cv_dbus_writer_clear(&w);

	cv_dbus_variant_begin(&w, "au");
	in = cv_dbus_array_begin(&w, "u");
	cv_dbus_put_u32(&w, 1234);
	cv_dbus_array_end(&w, in);
	cv_dbus_variant_begin(&w, "ay");
	in = cv_dbus_array_begin(&w, "y");
	cv_dbus_put_byte(&w, 2);
	cv_dbus_array_end(&w, in);
	ok(!w.error && bytes_eq(w.buf, w.len, want_arrays, sizeof(want_arrays), "au/ay"), "au and ay in variants");
	cv_dbus_writer_clear(&w);
}

static void test_writer_refuses(void)
{
	struct cv_dbus_writer w = { 0 }, out = { 0 };
	struct cv_dbus_header h = { .type = CV_DBUS_METHOD_CALL,
				    .serial = 1,
				    .path = "/o",
				    .member = "M",
				    .signature = "s" };
	cv_error_t err = NULL;

	cv_dbus_put_string(&w, "bad \xc3\x28 utf-8");
	cv_dbus_put_string(&w, "later puts are no-ops");
	ok(w.error == EINVAL && w.len == 0 && cv_dbus_build(&h, &w, &out, &err) < 0 && strstr(err->msg, "UTF-8"),
	   "invalid UTF-8 fails the message: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_writer_clear(&w);

	cv_dbus_put_string(&w, "\xed\xa0\x80"); /* a UTF-16 surrogate */
	ok(w.error == EINVAL, "a surrogate is not UTF-8");
	cv_dbus_writer_clear(&w);
	cv_dbus_put_string(&w, "\xc0\xaf"); /* overlong "/" */
	ok(w.error == EINVAL, "an overlong form is not UTF-8");
	cv_dbus_writer_clear(&w);
	cv_dbus_put_string(&w, "caf\xc3\xa9 \xf0\x9f\x90\xb3");
	ok(w.error == 0, "valid multi-byte UTF-8 is taken");
	cv_dbus_writer_clear(&w);

	cv_dbus_put_path(&w, "/a//b");
	ok(w.error == EINVAL, "an object path with an empty element is refused");
	cv_dbus_writer_clear(&w);
	cv_dbus_put_path(&w, "/org/freedesktop/systemd1/job/42");
	ok(w.error == 0, "a valid object path is taken");
	cv_dbus_writer_clear(&w);
	cv_dbus_variant_begin(&w, "ss");
	ok(w.error == EINVAL, "a variant holds exactly one complete type");
	cv_dbus_writer_clear(&w);
	cv_dbus_variant_begin(&w, "a{sv");
	ok(w.error == EINVAL, "an unterminated dict entry is not a signature");
	cv_dbus_writer_clear(&w);

	h.path = "not/a/path";
	cv_dbus_put_string(&w, "x");
	ok(cv_dbus_build(&h, &w, &out, &err) < 0 && out.len == 0, "an invalid header path fails the message: %s",
	   err ? err->msg : "");
	cv_error_release(&err);
	h.path = "/o";
	h.signature = NULL;
	ok(cv_dbus_build(&h, &w, &out, &err) < 0, "a body without a signature fails: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_writer_clear(&w);
}

/* A JobRemoved signal as systemd sends it. */
static void build_job_removed(struct cv_dbus_writer *out)
{
	struct cv_dbus_header h = {
		.type = CV_DBUS_SIGNAL,
		.serial = 9,
		.path = "/org/freedesktop/systemd1",
		.interface = "org.freedesktop.systemd1.Manager",
		.member = "JobRemoved",
		.sender = ":1.1",
		.signature = "uoss",
	};
	struct cv_dbus_writer body = { 0 };

	cv_dbus_put_u32(&body, 7);
	cv_dbus_put_path(&body, "/org/freedesktop/systemd1/job/7");
	cv_dbus_put_string(&body, "x.scope");
	cv_dbus_put_string(&body, "done");
	cv_dbus_build(&h, &body, out, NULL);
	cv_dbus_writer_clear(&body);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Offset of the first occurrence of a byte string in a message. */
static size_t find(const uint8_t *buf, size_t len, const char *s)
{
	const uint8_t *p = memmem(buf, len, s, strlen(s));
	return p ? (size_t)(p - buf) : 0;
}

static void test_reader(void)
{
	struct cv_dbus_writer w = { 0 };
	struct cv_dbus_message m;
	cv_error_t err = NULL;
	uint32_t id = 0;
	const char *job = NULL, *unit = NULL, *result = NULL;
	uint8_t *c;
	size_t len, at, total;
	int bad;

	build_job_removed(&w);
	len = w.len;
	ok(len > 0 && parse_copy(w.buf, len, &m, &err) == 0 &&
		   cv_dbus_read(&m, "uoss", &err, &id, &job, &unit, &result) == 0 && id == 7 &&
		   strcmp(job, "/org/freedesktop/systemd1/job/7") == 0 && strcmp(unit, "x.scope") == 0 &&
		   strcmp(result, "done") == 0 && strcmp(m.h.sender, ":1.1") == 0,
	   "JobRemoved parses: %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_dbus_read(&m, "uos", &err, &id, &job, &unit) == 0, "a leading part of the body reads");
	ok(cv_dbus_read(&m, "u", &err, &id) == 0 && cv_dbus_read(&m, "s", &err, &job) < 0,
	   "a type the body does not start with is refused: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_message_clear(&m);

	c = malloc(len);
	/* every truncation */
	bad = 0;
	for (size_t n = 0; n < len; n++)
		if (parse_copy(w.buf, n, &m, NULL) == 0) {
			bad++;
			cv_dbus_message_clear(&m);
		}
	ok(bad == 0, "no truncation of a message parses (%d did)", bad);

	/* the body length runs past the buffer */
	memcpy(c, w.buf, len);
	put_le32(c + 4, get_le32(c + 4) + 8);
	ok(cv_dbus_message_size(c, len, &total, &err) == 0 && total > len && parse_copy(c, len, &m, &err) < 0,
	   "a body length past the buffer: %s", err ? err->msg : "");
	cv_error_release(&err);

	/* a body length claiming more than the limit */
	put_le32(c + 4, 0xfffffff0u);
	ok(cv_dbus_message_size(c, len, &total, &err) < 0 && err->errnum == EMSGSIZE,
	   "a message over 16 MiB is refused before it is read: %s", err ? err->msg : "");
	cv_error_release(&err);

	/* the header field array's length runs past the header */
	memcpy(c, w.buf, len);
	put_le32(c + 12, get_le32(c + 12) + 8);
	ok(parse_copy(c, len, &m, &err) < 0, "a header array length past its end: %s", err ? err->msg : "");
	cv_error_release(&err);

	/* the unit name loses its NUL: the body string runs into the next one */
	memcpy(c, w.buf, len);
	at = find(c, len, "x.scope");
	c[at + 7] = 'X';
	ok(at && parse_copy(c, len, &m, &err) == 0 && cv_dbus_read(&m, "uoss", &err, &id, &job, &unit, &result) < 0,
	   "a body string without its NUL: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_message_clear(&m);

	/* a header string without its NUL */
	memcpy(c, w.buf, len);
	at = find(c, len, "JobRemoved");
	c[at + 10] = 'X';
	ok(at && parse_copy(c, len, &m, &err) < 0, "a header string without its NUL: %s", err ? err->msg : "");
	cv_error_release(&err);

	/* a string length past the body's end, by one and by a lot */
	memcpy(c, w.buf, len);
	at = find(c, len, "done");
	put_le32(c + at - 4, 5);
	ok(at && parse_copy(c, len, &m, &err) == 0 && cv_dbus_read(&m, "uoss", &err, &id, &job, &unit, &result) < 0,
	   "a string one byte longer than the body: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_message_clear(&m);
	put_le32(c + at - 4, 0xfffffffeu);
	ok(parse_copy(c, len, &m, &err) == 0 && cv_dbus_read(&m, "uoss", &err, &id, &job, &unit, &result) < 0,
	   "a string length near 4 GiB: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_message_clear(&m);

	/* a string with a NUL inside */
	memcpy(c, w.buf, len);
	at = find(c, len, "x.scope");
	c[at + 1] = 0;
	ok(parse_copy(c, len, &m, &err) == 0 && cv_dbus_read(&m, "uoss", &err, &id, &job, &unit, &result) < 0,
	   "a string with a NUL inside: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_message_clear(&m);

	/* an object path that is not one */
	memcpy(c, w.buf, len);
	at = find(c, len, "/org/freedesktop/systemd1/job/7");
	c[at + 1] = '-';
	ok(parse_copy(c, len, &m, &err) == 0 && cv_dbus_read(&m, "uo", &err, &id, &job) < 0,
	   "an invalid object path in the body: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_message_clear(&m);

	/* nonzero padding between header fields */
	memcpy(c, w.buf, len);
	at = find(c, len, "/org/freedesktop/systemd1") + strlen("/org/freedesktop/systemd1") + 1;
	c[at] = 0xff;
	ok(parse_copy(c, len, &m, &err) < 0, "nonzero padding: %s", err ? err->msg : "");
	cv_error_release(&err);

	/* a header field of the wrong type (MEMBER as a signature) */
	memcpy(c, w.buf, len);
	at = find(c, len, "JobRemoved");
	ok(c[at - 6] == 's', "MEMBER's variant signature found");
	c[at - 6] = 'o';
	ok(parse_copy(c, len, &m, &err) < 0, "a header field of the wrong type: %s", err ? err->msg : "");
	cv_error_release(&err);

	/* byte order, version */
	memcpy(c, w.buf, len);
	c[0] = 'x';
	ok(parse_copy(c, len, &m, &err) < 0, "an unknown byte order: %s", err ? err->msg : "");
	cv_error_release(&err);
	memcpy(c, w.buf, len);
	c[3] = 2;
	ok(parse_copy(c, len, &m, &err) < 0, "protocol version 2: %s", err ? err->msg : "");
	cv_error_release(&err);

	/* every single-byte corruption either fails or parses into a message
	 * whose body reads within bounds (run under the sanitizers in CI) */
	bad = 0;
	for (size_t i = 0; i < len; i++)
		for (int v = 0; v < 256; v += 17) {
			memcpy(c, w.buf, len);
			c[i] ^= (uint8_t)(v | 1);
			if (parse_copy(c, len, &m, NULL) == 0) {
				if (cv_dbus_read(&m, "uoss", NULL, &id, &job, &unit, &result) == 0 &&
				    (strlen(job) > len || strlen(unit) > len || strlen(result) > len))
					bad++;
				cv_dbus_message_clear(&m);
			}
		}
	ok(bad == 0, "single-byte corruptions stay within the message");
	free(c);
	cv_dbus_writer_clear(&w);
}

static void test_reader_unknown_field(void)
{
	/* a method return with an unknown header field 0x50 holding ay [1 2 3],
	 * built by hand: unknown fields are skipped by their type */
	struct cv_dbus_writer w = { 0 };
	struct cv_dbus_array fields, ay;
	struct cv_dbus_message m;
	cv_error_t err = NULL;
	const char *job = NULL;
	size_t len_at;

	cv_dbus_put_byte(&w, 'l');
	cv_dbus_put_byte(&w, CV_DBUS_METHOD_RETURN);
	cv_dbus_put_byte(&w, 0);
	cv_dbus_put_byte(&w, 1);
	cv_dbus_put_u32(&w, 7);
	cv_dbus_put_u32(&w, 3);
	fields = cv_dbus_array_begin(&w, "(yv)");
	cv_dbus_struct_begin(&w);
	cv_dbus_put_byte(&w, 0x50);
	cv_dbus_variant_begin(&w, "ay");
	ay = cv_dbus_array_begin(&w, "y");
	len_at = ay.len_at;
	cv_dbus_put_byte(&w, 1);
	cv_dbus_put_byte(&w, 2);
	cv_dbus_put_byte(&w, 3);
	cv_dbus_array_end(&w, ay);
	cv_dbus_struct_begin(&w);
	cv_dbus_put_byte(&w, 5);
	cv_dbus_variant_begin(&w, "u");
	cv_dbus_put_u32(&w, 2);
	cv_dbus_struct_begin(&w);
	cv_dbus_put_byte(&w, 8);
	cv_dbus_variant_begin(&w, "g");
	cv_dbus_put_signature(&w, "o");
	cv_dbus_array_end(&w, fields);
	cv_dbus_struct_begin(&w);
	cv_dbus_put_path(&w, "/j");
	ok(!w.error && parse_copy(w.buf, w.len, &m, &err) == 0 && m.h.reply_serial == 2 &&
		   cv_dbus_read(&m, "o", &err, &job) == 0 && strcmp(job, "/j") == 0,
	   "an unknown header field is skipped: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_message_clear(&m);

	/* that array's length now runs past the header */
	put_le32(w.buf + len_at, 200);
	ok(parse_copy(w.buf, w.len, &m, &err) < 0, "an array length past its end: %s", err ? err->msg : "");
	cv_error_release(&err);
	/* or stops inside an element */
	put_le32(w.buf + len_at, 0xffffffffu);
	ok(parse_copy(w.buf, w.len, &m, &err) < 0, "an array length near 4 GiB: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_writer_clear(&w);
}

static void test_reader_big_endian(void)
{
	/* a method return to serial 5 with body o "/j", big-endian by hand */
	static const uint8_t be[] = {
		'B', 2, 0, 1, 0, 0, 0,   7, 0, 0,   0, 7, 0, 0, 0, 15, 5,   1,   'u', 0,
		0,   0, 0, 5, 8, 1, 'g', 0, 1, 'o', 0, 0, 0, 0, 0, 2,  '/', 'j', 0,
	};
	static const uint8_t err_msg[] = {
		/* an ERROR to serial 3: name "e.X", body s "no" (little-endian) */
		'l', 3, 0, 1, 7, 0, 0,   0, 4, 0, 0, 0, 31, 0, 0,   0, 4, 1,   's', 0, 3, 0, 0, 0, 'e', '.', 'X', 0,
		0,   0, 0, 0, 5, 1, 'u', 0, 3, 0, 0, 0, 8,  1, 'g', 0, 1, 's', 0,   0, 2, 0, 0, 0, 'n', 'o', 0,
	};
	struct cv_dbus_message m;
	cv_error_t err = NULL;
	const char *job = NULL;
	char buf[64];

	ok(parse_copy(be, sizeof(be), &m, &err) == 0 && m.big_endian && m.h.reply_serial == 5 && m.h.serial == 7 &&
		   cv_dbus_read(&m, "o", &err, &job) == 0 && strcmp(job, "/j") == 0,
	   "a big-endian reply: %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_dbus_message_clear(&m);
	ok(parse_copy(err_msg, sizeof(err_msg), &m, &err) == 0 && m.h.type == CV_DBUS_ERROR,
	   "an error reply parses: %s", err ? err->msg : "");
	is_str(cv_dbus_error_message(&m, buf, sizeof(buf)), "e.X: no", "its name and message");
	cv_error_release(&err);
	cv_dbus_message_clear(&m);
	{
		uint8_t c[sizeof(err_msg)];
		memcpy(c, err_msg, sizeof(c));
		c[16] = 9; /* ERROR_NAME becomes UNIX_FDS... as a string */
		ok(parse_copy(c, sizeof(c), &m, &err) < 0, "a known field with the wrong type: %s",
		   err ? err->msg : "");
		cv_error_release(&err);
		memcpy(c, err_msg, sizeof(c));
		c[32] = 0x60; /* REPLY_SERIAL becomes an unknown field */
		ok(parse_copy(c, sizeof(c), &m, &err) < 0, "an error without its reply serial: %s",
		   err ? err->msg : "");
		cv_error_release(&err);
	}
}

static void test_address(void)
{
	char *a = NULL;
	cv_error_t err = NULL;

	unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
	ok(cv_dbus_address(NULL, false, &a, &err) == 0 && strcmp(a, "unix:path=/run/dbus/system_bus_socket") == 0,
	   "the system bus by default: %s", a ? a : "");
	free(a);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/x", 1);
	ok(cv_dbus_address(NULL, false, &a, &err) == 0 && strcmp(a, "unix:path=/x") == 0, "DBUS_SYSTEM_BUS_ADDRESS");
	free(a);
	ok(cv_dbus_address("unix:path=/given", true, &a, &err) == 0 && strcmp(a, "unix:path=/given") == 0,
	   "an explicit address wins");
	free(a);
	unsetenv("DBUS_SESSION_BUS_ADDRESS");
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	ok(cv_dbus_address(NULL, true, &a, &err) == 0 && strcmp(a, "unix:path=/run/user/1000/bus") == 0,
	   "the user bus in XDG_RUNTIME_DIR");
	free(a);
	setenv("DBUS_SESSION_BUS_ADDRESS", "unix:abstract=u", 1);
	ok(cv_dbus_address(NULL, true, &a, &err) == 0 && strcmp(a, "unix:abstract=u") == 0,
	   "DBUS_SESSION_BUS_ADDRESS first");
	free(a);
	unsetenv("DBUS_SESSION_BUS_ADDRESS");
	unsetenv("XDG_RUNTIME_DIR");
	ok(cv_dbus_address(NULL, true, &a, &err) < 0 && strstr(err->msg, "XDG_RUNTIME_DIR"), "no user bus known: %s",
	   err ? err->msg : "");
	cv_error_release(&err);
}

static int listen_abstract(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t n = strlen(name);

	memcpy(sa.sun_path + 1, name, n);
	if (fd < 0 ||
	    bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0 ||
	    listen(fd, 4) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void test_connection(void)
{
	char name[64], addr[128];
	struct cv_dbus *c = NULL;
	cv_error_t err = NULL;
	int lfd;
	pid_t pid;
	uint64_t t0;

	ok(cv_dbus_open("tcp:host=localhost,port=1", cv_dbus_now_usec() + 1000000, &c, &err) < 0 &&
		   strstr(err->msg, "only unix:"),
	   "an unsupported transport: %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_dbus_open("unix:path=/nonexistent/bus", cv_dbus_now_usec() + 1000000, &c, &err) < 0 &&
		   err->errnum == ENOENT,
	   "no socket: %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_dbus_open("unix:path=/nonexistent/bus;unix:path=%2fnonexistent%2fother", cv_dbus_now_usec() + 1000000, &c,
			&err) < 0 &&
		   strstr(err->msg, "/nonexistent/other"),
	   "each entry tried, escapes decoded: %s", err ? err->msg : "");
	cv_error_release(&err);

	/* a server that never answers: the deadline ends the wait */
	snprintf(name, sizeof(name), "cvisor-test-dbus-%d", (int)getpid());
	snprintf(addr, sizeof(addr), "unix:abstract=%s", name);
	lfd = listen_abstract(name);
	ok(lfd >= 0, "abstract test socket");
	t0 = cv_dbus_now_usec();
	ok(cv_dbus_open(addr, t0 + 200000, &c, &err) < 0 && err->errnum == ETIMEDOUT &&
		   cv_dbus_now_usec() - t0 < 5000000,
	   "a silent server times out at the deadline: %s", err ? err->msg : "");
	cv_error_release(&err);

	/* a server that refuses EXTERNAL (after the silent test's connection
	 * is taken off the queue) */
	{
		int stale = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (stale >= 0)
			close(stale);
	}
	pid = fork();
	if (pid == 0) {
		char buf[256];
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
		/* the NUL byte, then the AUTH line with the euid in hex */
		if (n < 2 || buf[0] != 0 || strncmp(buf + 1, "AUTH EXTERNAL ", 14) != 0)
			_exit(1);
		if (write(fd, "REJECTED EXTERNAL\r\n", 19) != 19)
			_exit(1);
		_exit(0);
	}
	ok(pid > 0 && cv_dbus_open(addr, cv_dbus_now_usec() + 5000000, &c, &err) < 0 && err->errnum == EACCES &&
		   strstr(err->msg, "REJECTED EXTERNAL"),
	   "refused authentication: %s", err ? err->msg : "");
	cv_error_release(&err);
	if (pid > 0) {
		int st = 0;
		waitpid(pid, &st, 0);
		ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the client sent a NUL and AUTH EXTERNAL");
	}
	close(lfd);
}

int main(void)
{
	test_marshal_call();
	test_marshal_alignment();
	test_writer_refuses();
	test_reader();
	test_reader_unknown_field();
	test_reader_big_endian();
	test_address();
	test_connection();
	return tap_done();
}
