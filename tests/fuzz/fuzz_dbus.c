/* libFuzzer target: the D-Bus message reader (src/libcvisor/cgroups/dbus.c), which
 * takes whatever the bus sends to the systemd cgroup driver, plus the
 * signature checker. Invariants: a refused input comes with a
 * message; an accepted message's header strings and read arguments lie
 * inside it, NUL-terminated; a message built from an accepted one's header
 * parses again to the same header. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups/dbus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void refused(cv_error_t *err)
{
	if (!*err || !(*err)->msg || !*(*err)->msg)
		abort();
	cv_error_release(err);
}

static void inside(const struct cv_dbus_message *m, const char *s)
{
	if (!s)
		return;
	const uint8_t *p = (const uint8_t *)s;
	if (p < m->raw || p >= m->raw + m->len || !memchr(p, '\0', (size_t)(m->raw + m->len - p)))
		abort();
}

static bool same(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

static void reader(const uint8_t *data, size_t size)
{
	cv_error_t err = NULL;
	size_t total = 0;
	if (size < 16)
		return;
	if (cv_dbus_message_size(data, size, &total, &err) < 0) {
		refused(&err);
		return;
	}
	if (total > size || total > CV_DBUS_MAX_MESSAGE)
		return;
	uint8_t *raw = malloc(total ? total : 1);
	if (!raw)
		return;
	memcpy(raw, data, total);
	struct cv_dbus_message m = { 0 };
	if (cv_dbus_parse(raw, total, &m, &err) < 0) {
		refused(&err);
		cv_dbus_message_clear(&m);
		return;
	}
	const struct cv_dbus_header *h = &m.h;
	const char *strs[] = {
		h->path, h->interface, h->member, h->error_name, h->destination, h->sender, h->signature
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		inside(&m, strs[i]);

	/* the leading arguments, as the driver reads them */
	static const char *const sigs[] = { "o", "s", "uoss", "u", "y", "t", "g", "b", "ss" };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		const char *s[4] = { 0 };
		uint32_t u = 0;
		uint64_t t = 0;
		uint8_t y = 0;
		bool b = false;
		int r;
		switch (i) {
		case 0:
			r = cv_dbus_read(&m, sigs[i], &err, &s[0]);
			break;
		case 1:
			r = cv_dbus_read(&m, sigs[i], &err, &s[0]);
			break;
		case 2:
			r = cv_dbus_read(&m, sigs[i], &err, &u, &s[0], &s[1], &s[2]);
			break;
		case 3:
			r = cv_dbus_read(&m, sigs[i], &err, &u);
			break;
		case 4:
			r = cv_dbus_read(&m, sigs[i], &err, &y);
			break;
		case 5:
			r = cv_dbus_read(&m, sigs[i], &err, &t);
			break;
		case 6:
			r = cv_dbus_read(&m, sigs[i], &err, &s[0]);
			break;
		case 7:
			r = cv_dbus_read(&m, sigs[i], &err, &b);
			break;
		default:
			r = cv_dbus_read(&m, sigs[i], &err, &s[0], &s[1]);
			break;
		}
		if (r < 0) {
			refused(&err);
			continue;
		}
		for (size_t k = 0; k < 4; k++)
			inside(&m, s[k]);
	}

	/* the header, written again (no body), reads back the same */
	struct cv_dbus_header again = *h;
	again.signature = NULL;
	struct cv_dbus_writer out = { 0 };
	if (cv_dbus_build(&again, NULL, &out, &err) == 0) {
		struct cv_dbus_message m2 = { 0 };
		size_t t2 = 0;
		if (cv_dbus_message_size(out.buf, out.len, &t2, &err) < 0 || t2 != out.len)
			abort();
		uint8_t *copy = malloc(out.len);
		if (!copy)
			abort();
		memcpy(copy, out.buf, out.len);
		if (cv_dbus_parse(copy, out.len, &m2, &err) < 0)
			abort();
		if (m2.h.type != h->type || m2.h.serial != h->serial || m2.h.reply_serial != h->reply_serial ||
		    !same(m2.h.path, h->path) || !same(m2.h.interface, h->interface) || !same(m2.h.member, h->member) ||
		    !same(m2.h.error_name, h->error_name) || !same(m2.h.destination, h->destination) ||
		    !same(m2.h.sender, h->sender))
			abort();
		cv_dbus_message_clear(&m2);
	} else {
		refused(&err);
	}
	cv_dbus_writer_clear(&out);
	cv_dbus_message_clear(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader(data, size);
	/* the same bytes as a NUL-terminated signature */
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)cv_dbus_signature_is_single(s);
	free(s);
	return 0;
}
