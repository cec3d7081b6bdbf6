/* A minimal D-Bus client (see dbus.h): marshalling, a bounds-checked reader,
 * unix-socket addresses, SASL EXTERNAL and a poll-bounded receive loop. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "cgroups/dbus.h"

/* The spec's limits. */
#define MAX_ARRAY (64u << 20)
#define MAX_DEPTH 32
/* An auth reply line longer than this is not from a D-Bus server. */
#define MAX_AUTH_LINE 512

enum {
	F_PATH = 1,
	F_INTERFACE = 2,
	F_MEMBER = 3,
	F_ERROR_NAME = 4,
	F_REPLY_SERIAL = 5,
	F_DESTINATION = 6,
	F_SENDER = 7,
	F_SIGNATURE = 8,
	F_UNIX_FDS = 9,
};

/* ---- validation shared by writer and reader ---- */

static bool utf8_valid(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		uint32_t cp;
		size_t k;

		if (c < 0x80) {
			if (c == 0)
				return false;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			k = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3;
			cp = c & 0x07;
		} else
			return false;
		if (n - i - 1 < k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		/* overlong forms, UTF-16 surrogates, beyond Unicode */
		if ((k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
		    cp > 0x10ffff)
			return false;
		i += k + 1;
	}
	return true;
}

static bool path_valid(const char *s, size_t n)
{
	if (n == 0 || s[0] != '/')
		return false;
	if (n == 1)
		return true;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (c == '/') {
			if (s[i - 1] == '/')
				return false;
		} else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return s[n - 1] != '/';
}

static bool is_basic(char c)
{
	return c && strchr("ybnqiuxtdhsog", c);
}

/* Length of the complete type at s, 0 when invalid. `elem` allows a dict
 * entry (only an array's element may be one). */
static size_t sig_type_len(const char *s, unsigned arrays, unsigned structs, bool elem)
{
	size_t i, n;

	if (is_basic(*s) || *s == 'v')
		return 1;
	switch (*s) {
	case 'a':
		if (arrays >= MAX_DEPTH)
			return 0;
		n = sig_type_len(s + 1, arrays + 1, structs, true);
		return n ? n + 1 : 0;
	case '(':
	case '{':
		if (structs >= MAX_DEPTH || (*s == '{' && !elem))
			return 0;
		if (*s == '{' && !is_basic(s[1]))
			return 0;
		for (i = 1, n = 0; s[i] && s[i] != (*s == '(' ? ')' : '}'); n++) {
			size_t k = sig_type_len(s + i, arrays, structs + 1, false);
			if (!k)
				return 0;
			i += k;
		}
		if (!s[i] || n == 0 || (*s == '{' && n != 2))
			return 0;
		return i + 1;
	default:
		return 0;
	}
}

static bool sig_valid(const char *s, size_t n)
{
	size_t i = 0;

	if (n > 255 || memchr(s, 0, n))
		return false;
	while (i < n) {
		size_t k = sig_type_len(s + i, 0, 0, false);
		if (!k || i + k > n)
			return false;
		i += k;
	}
	return true;
}

bool cv_dbus_signature_is_single(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && sig_valid(s, n) && sig_type_len(s, 0, 0, false) == n;
}

static size_t align_of(char c)
{
	switch (c) {
	case 'n':
	case 'q':
		return 2;
	case 'b':
	case 'i':
	case 'u':
	case 'h':
	case 's':
	case 'o':
	case 'a':
		return 4;
	case 'x':
	case 't':
	case 'd':
	case '(':
	case '{':
		return 8;
	default: /* y g v */
		return 1;
	}
}

/* ---- writer ---- */

void cv_dbus_writer_clear(struct cv_dbus_writer *w)
{
	free(w->buf);
	*w = (struct cv_dbus_writer){ 0 };
}

static void w_fail(struct cv_dbus_writer *w, int error, const char *why)
{
	if (!w->error) {
		w->error = error;
		w->why = why;
	}
}

static bool w_reserve(struct cv_dbus_writer *w, size_t n)
{
	if (w->error)
		return false;
	if (n > CV_DBUS_MAX_MESSAGE || w->len > CV_DBUS_MAX_MESSAGE - n) {
		w_fail(w, E2BIG, "message too large");
		return false;
	}
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		uint8_t *b;
		while (cap < w->len + n)
			cap *= 2;
		b = realloc(w->buf, cap);
		if (!b) {
			w_fail(w, ENOMEM, "out of memory");
			return false;
		}
		w->buf = b;
		w->cap = cap;
	}
	return true;
}

static void w_bytes(struct cv_dbus_writer *w, const void *p, size_t n)
{
	if (!n || !w_reserve(w, n))
		return;
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void w_pad(struct cv_dbus_writer *w, size_t a)
{
	size_t n = (a - w->len % a) % a;
	if (!n || !w_reserve(w, n))
		return;
	memset(w->buf + w->len, 0, n);
	w->len += n;
}

static void w_le(struct cv_dbus_writer *w, uint64_t v, size_t n)
{
	uint8_t b[8];
	w_pad(w, n);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	w_bytes(w, b, n);
}

void cv_dbus_put_byte(struct cv_dbus_writer *w, uint8_t v)
{
	w_bytes(w, &v, 1);
}

void cv_dbus_put_bool(struct cv_dbus_writer *w, bool v)
{
	w_le(w, v ? 1 : 0, 4);
}

void cv_dbus_put_u32(struct cv_dbus_writer *w, uint32_t v)
{
	w_le(w, v, 4);
}

void cv_dbus_put_u64(struct cv_dbus_writer *w, uint64_t v)
{
	w_le(w, v, 8);
}

static void w_string(struct cv_dbus_writer *w, const char *s, char type)
{
	size_t n = s ? strlen(s) : 0;

	if (!s || (type == 's' && !utf8_valid((const uint8_t *)s, n)))
		return w_fail(w, EINVAL, "a string is not valid UTF-8");
	if (type == 'o' && !path_valid(s, n))
		return w_fail(w, EINVAL, "invalid object path");
	if (n > CV_DBUS_MAX_MESSAGE)
		return w_fail(w, E2BIG, "string too long");
	w_le(w, n, 4);
	w_bytes(w, s, n + 1);
}

void cv_dbus_put_string(struct cv_dbus_writer *w, const char *s)
{
	w_string(w, s, 's');
}

void cv_dbus_put_path(struct cv_dbus_writer *w, const char *s)
{
	w_string(w, s, 'o');
}

void cv_dbus_put_signature(struct cv_dbus_writer *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!s || !sig_valid(s, n))
		return w_fail(w, EINVAL, "invalid signature");
	cv_dbus_put_byte(w, (uint8_t)n);
	w_bytes(w, s, n + 1);
}

struct cv_dbus_array cv_dbus_array_begin(struct cv_dbus_writer *w, const char *elem)
{
	struct cv_dbus_array a;

	w_pad(w, 4);
	a.len_at = w->len;
	cv_dbus_put_u32(w, 0);
	w_pad(w, align_of(elem ? elem[0] : 'y'));
	a.start = w->len;
	return a;
}

void cv_dbus_array_end(struct cv_dbus_writer *w, struct cv_dbus_array a)
{
	size_t n;

	if (w->error)
		return;
	n = w->len - a.start;
	if (n > MAX_ARRAY)
		return w_fail(w, E2BIG, "array too long");
	for (size_t i = 0; i < 4; i++)
		w->buf[a.len_at + i] = (uint8_t)(n >> (8 * i));
}

void cv_dbus_struct_begin(struct cv_dbus_writer *w)
{
	w_pad(w, 8);
}

void cv_dbus_variant_begin(struct cv_dbus_writer *w, const char *sig)
{
	if (!sig || !cv_dbus_signature_is_single(sig))
		return w_fail(w, EINVAL, "invalid variant signature");
	cv_dbus_put_signature(w, sig);
}

static void w_field(struct cv_dbus_writer *w, uint8_t code, char type, const char *s)
{
	char sig[2] = { type, 0 };

	if (!s)
		return;
	cv_dbus_struct_begin(w);
	cv_dbus_put_byte(w, code);
	cv_dbus_variant_begin(w, sig);
	if (type == 'g')
		cv_dbus_put_signature(w, s);
	else
		w_string(w, s, type);
}

int cv_dbus_build(const struct cv_dbus_header *h, const struct cv_dbus_writer *body, struct cv_dbus_writer *out,
		  cv_error_t *err)
{
	size_t body_len = body ? body->len : 0;
	struct cv_dbus_array fields;

	cv_dbus_writer_clear(out);
	if (body && body->error)
		return cv_error_plain(err, body->error, "D-Bus message %s: %s", h->member ? h->member : "", body->why);
	if (body_len && (!h->signature || !*h->signature))
		return cv_error_plain(err, EINVAL, "D-Bus message %s: a body without a signature",
				      h->member ? h->member : "");
	cv_dbus_put_byte(out, 'l');
	cv_dbus_put_byte(out, h->type);
	cv_dbus_put_byte(out, h->flags);
	cv_dbus_put_byte(out, 1);
	cv_dbus_put_u32(out, (uint32_t)body_len);
	cv_dbus_put_u32(out, h->serial);
	fields = cv_dbus_array_begin(out, "(yv)");
	w_field(out, F_PATH, 'o', h->path);
	w_field(out, F_INTERFACE, 's', h->interface);
	w_field(out, F_MEMBER, 's', h->member);
	w_field(out, F_ERROR_NAME, 's', h->error_name);
	if (h->reply_serial) {
		cv_dbus_struct_begin(out);
		cv_dbus_put_byte(out, F_REPLY_SERIAL);
		cv_dbus_variant_begin(out, "u");
		cv_dbus_put_u32(out, h->reply_serial);
	}
	w_field(out, F_DESTINATION, 's', h->destination);
	w_field(out, F_SENDER, 's', h->sender);
	if (h->signature && *h->signature)
		w_field(out, F_SIGNATURE, 'g', h->signature);
	cv_dbus_array_end(out, fields);
	w_pad(out, 8);
	if (body_len)
		w_bytes(out, body->buf, body_len);
	if (out->error) {
		int r = cv_error_plain(err, out->error, "D-Bus message %s: %s", h->member ? h->member : "", out->why);
		cv_dbus_writer_clear(out);
		return r;
	}
	return 0;
}

/* ---- reader ---- */

struct rd {
	const uint8_t *p;
	size_t pos, limit;
	bool be;
};

static bool r_align(struct rd *r, size_t a)
{
	size_t n = (a - r->pos % a) % a;
	if (n > r->limit - r->pos)
		return false;
	/* padding must be zero */
	for (size_t i = 0; i < n; i++)
		if (r->p[r->pos + i])
			return false;
	r->pos += n;
	return true;
}

static bool r_uint(struct rd *r, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!r_align(r, n) || n > r->limit - r->pos)
		return false;
	for (size_t i = 0; i < n; i++)
		x |= (uint64_t)r->p[r->pos + i] << (8 * (r->be ? n - 1 - i : i));
	r->pos += n;
	*v = x;
	return true;
}

static bool r_u32(struct rd *r, uint32_t *v)
{
	uint64_t x;
	if (!r_uint(r, 4, &x))
		return false;
	*v = (uint32_t)x;
	return true;
}

/* s, o (u32 length) or g (byte length): NUL-terminated in the message, no
 * NUL inside, valid for its type. *out points into the message. */
static bool r_string(struct rd *r, char type, const char **out)
{
	uint64_t n;
	const char *s;

	if (!r_uint(r, type == 'g' ? 1 : 4, &n))
		return false;
	if (r->limit - r->pos < 1 || n > r->limit - r->pos - 1)
		return false;
	s = (const char *)r->p + r->pos;
	if (s[n] != '\0')
		return false;
	if (type == 'g' ? !sig_valid(s, n) : type == 'o' ? !path_valid(s, n) : !utf8_valid((const uint8_t *)s, n))
		return false;
	r->pos += n + 1;
	if (out)
		*out = s;
	return true;
}

/* Skips one value of the (validated) complete type at *sig. */
static bool r_skip(struct rd *r, const char **sig, unsigned depth)
{
	char c = *(*sig)++;
	uint64_t v;

	if (depth > 2 * MAX_DEPTH)
		return false;
	switch (c) {
	case 'y':
		return r_uint(r, 1, &v);
	case 'n':
	case 'q':
		return r_uint(r, 2, &v);
	case 'b':
		return r_uint(r, 4, &v) && v <= 1;
	case 'i':
	case 'u':
	case 'h':
		return r_uint(r, 4, &v);
	case 'x':
	case 't':
	case 'd':
		return r_uint(r, 8, &v);
	case 's':
	case 'o':
	case 'g':
		return r_string(r, c, NULL);
	case 'v': {
		const char *vs;
		if (!r_string(r, 'g', &vs) || !cv_dbus_signature_is_single(vs))
			return false;
		return r_skip(r, &vs, depth + 1);
	}
	case 'a': {
		const char *elem = *sig;
		size_t saved = r->limit, end;
		uint32_t n;

		if (!r_u32(r, &n) || n > MAX_ARRAY || !r_align(r, align_of(*elem)) || n > r->limit - r->pos)
			return false;
		end = r->pos + n;
		r->limit = end;
		while (r->pos < end) {
			const char *e = elem;
			if (!r_skip(r, &e, depth + 1))
				return false;
		}
		r->limit = saved;
		*sig = elem + sig_type_len(elem, 0, 0, true);
		return true;
	}
	case '(':
	case '{':
		if (!r_align(r, 8))
			return false;
		while (**sig != ')' && **sig != '}')
			if (!r_skip(r, sig, depth + 1))
				return false;
		(*sig)++;
		return true;
	default:
		return false;
	}
}

void cv_dbus_message_clear(struct cv_dbus_message *m)
{
	free(m->raw);
	*m = (struct cv_dbus_message){ 0 };
}

/* The fixed 16 bytes: endianness, type, flags, version, body length,
 * serial, header field array length. */
static int fixed_header(const uint8_t *buf, size_t len, bool *be, uint32_t *body_len, uint32_t *fields_len,
			size_t *total, cv_error_t *err)
{
	struct rd r = { .p = buf, .limit = len };
	uint64_t t;
	uint32_t serial = 0;

	if (len < 16)
		return cv_error_plain(err, EBADMSG, "D-Bus message: truncated header");
	if (buf[0] != 'l' && buf[0] != 'B')
		return cv_error_plain(err, EBADMSG, "D-Bus message: bad byte order 0x%02x", buf[0]);
	if (buf[3] != 1)
		return cv_error_plain(err, EBADMSG, "D-Bus message: protocol version %u", buf[3]);
	if (buf[1] == 0)
		return cv_error_plain(err, EBADMSG, "D-Bus message: invalid type 0");
	r.be = *be = buf[0] == 'B';
	r.pos = 4;
	if (!r_u32(&r, body_len) || !r_u32(&r, &serial) || !r_u32(&r, fields_len))
		return cv_error_plain(err, EBADMSG, "D-Bus message: truncated header");
	if (serial == 0)
		return cv_error_plain(err, EBADMSG, "D-Bus message: serial 0");
	t = 16 + (uint64_t)*fields_len;
	t = (t + 7) / 8 * 8 + *body_len;
	if (t > CV_DBUS_MAX_MESSAGE)
		return cv_error_plain(err, EMSGSIZE, "D-Bus message of %llu bytes: larger than the %u accepted",
				      (unsigned long long)t, CV_DBUS_MAX_MESSAGE);
	*total = (size_t)t;
	return 0;
}

int cv_dbus_message_size(const uint8_t *buf, size_t len, size_t *total, cv_error_t *err)
{
	uint32_t body_len, fields_len;
	bool be;
	return fixed_header(buf, len, &be, &body_len, &fields_len, total, err);
}

static int bad(struct cv_dbus_message *m, cv_error_t *err, const char *what)
{
	cv_dbus_message_clear(m);
	return cv_error_plain(err, EBADMSG, "D-Bus message: %s", what);
}

int cv_dbus_parse(uint8_t *raw, size_t len, struct cv_dbus_message *m, cv_error_t *err)
{
	uint32_t body_len, fields_len;
	size_t total;
	struct rd r;
	struct cv_dbus_header *h = &m->h;
	uint32_t seen = 0;

	*m = (struct cv_dbus_message){ .raw = raw, .len = len };
	if (fixed_header(raw, len, &m->big_endian, &body_len, &fields_len, &total, err) < 0) {
		cv_dbus_message_clear(m);
		return -1;
	}
	if (total != len)
		return bad(m, err, total > len ? "truncated" : "trailing bytes");
	h->type = raw[1];
	h->flags = raw[2];
	r = (struct rd){ .p = raw, .pos = 8, .limit = 16 + (size_t)fields_len, .be = m->big_endian };
	r_u32(&r, &h->serial);
	r.pos = 16;
	while (r.pos < r.limit) {
		uint64_t code;
		const char *sig;
		const char **field = NULL;
		char want = 0;

		if (!r_align(&r, 8) || !r_uint(&r, 1, &code) || !r_string(&r, 'g', &sig) ||
		    !cv_dbus_signature_is_single(sig))
			return bad(m, err, "malformed header field");
		switch (code) {
		case F_PATH:
			field = &h->path, want = 'o';
			break;
		case F_INTERFACE:
			field = &h->interface, want = 's';
			break;
		case F_MEMBER:
			field = &h->member, want = 's';
			break;
		case F_ERROR_NAME:
			field = &h->error_name, want = 's';
			break;
		case F_DESTINATION:
			field = &h->destination, want = 's';
			break;
		case F_SENDER:
			field = &h->sender, want = 's';
			break;
		case F_SIGNATURE:
			field = &h->signature, want = 'g';
			break;
		case F_REPLY_SERIAL:
		case F_UNIX_FDS:
			want = 'u';
			break;
		case 0:
			return bad(m, err, "header field 0");
		}
		if (want && (sig[0] != want || sig[1]))
			return bad(m, err, "header field with the wrong type");
		if (want && code < 32) {
			if (seen & (1u << code))
				return bad(m, err, "repeated header field");
			seen |= 1u << code;
		}
		if (field) {
			if (!r_string(&r, want, field))
				return bad(m, err, "malformed header field");
		} else if (code == F_REPLY_SERIAL || code == F_UNIX_FDS) {
			uint32_t v;
			if (!r_u32(&r, &v))
				return bad(m, err, "malformed header field");
			if (code == F_REPLY_SERIAL) {
				if (v == 0)
					return bad(m, err, "reply serial 0");
				h->reply_serial = v;
			} else if (v)
				return bad(m, err, "unix fds were not negotiated");
		} else if (!r_skip(&r, &sig, 0)) /* unknown fields are ignored */
			return bad(m, err, "malformed header field");
	}
	r.limit = len - body_len;
	if (!r_align(&r, 8) || r.pos != r.limit)
		return bad(m, err, "bad header padding");
	m->body_at = r.pos;
	m->body_len = body_len;
	if (body_len && (!h->signature || !*h->signature))
		return bad(m, err, "a body without a signature");
	switch (h->type) {
	case CV_DBUS_METHOD_CALL:
		if (!h->path || !h->member)
			return bad(m, err, "method call without path or member");
		break;
	case CV_DBUS_METHOD_RETURN:
		if (!h->reply_serial)
			return bad(m, err, "method return without reply serial");
		break;
	case CV_DBUS_ERROR:
		if (!h->reply_serial || !h->error_name)
			return bad(m, err, "error without reply serial or name");
		break;
	case CV_DBUS_SIGNAL:
		if (!h->path || !h->interface || !h->member)
			return bad(m, err, "signal without path, interface or member");
		break;
	default: /* unknown types are to be ignored, not refused */
		break;
	}
	return 0;
}

int cv_dbus_read(const struct cv_dbus_message *m, const char *sig, cv_error_t *err, ...)
{
	struct rd reader = { .p = m->raw + m->body_at, .limit = m->body_len, .be = m->big_endian };
	const char *have = m->h.signature ? m->h.signature : "";
	size_t n = strlen(sig);
	va_list ap;
	int r = 0;

	if (strncmp(have, sig, n) != 0)
		return cv_error_plain(err, EBADMSG, "D-Bus %s: body \"%s\" where \"%s\" was expected",
				      m->h.member ? m->h.member : "reply", have, sig);
	va_start(ap, err);
	for (const char *s = sig; *s && r == 0; s++) {
		uint64_t v;
		bool ok;
		switch (*s) {
		case 'y':
			ok = r_uint(&reader, 1, &v);
			if (ok)
				*va_arg(ap, uint8_t *) = (uint8_t)v;
			break;
		case 'b':
			ok = r_uint(&reader, 4, &v) && v <= 1;
			if (ok)
				*va_arg(ap, bool *) = v;
			break;
		case 'u':
			ok = r_uint(&reader, 4, &v);
			if (ok)
				*va_arg(ap, uint32_t *) = (uint32_t)v;
			break;
		case 't':
			ok = r_uint(&reader, 8, &v);
			if (ok)
				*va_arg(ap, uint64_t *) = v;
			break;
		case 's':
		case 'o':
		case 'g':
			ok = r_string(&reader, *s, va_arg(ap, const char **));
			break;
		default:
			ok = false;
			r = cv_error(err, EINVAL, "cv_dbus_read: unsupported type '%c'", *s);
			break;
		}
		if (!ok && r == 0)
			r = cv_error_plain(err, EBADMSG, "D-Bus %s: malformed body",
					   m->h.member ? m->h.member : "reply");
	}
	va_end(ap);
	return r;
}

/* ---- connection ---- */

struct cv_dbus {
	int fd;
	uint32_t serial;
	uint32_t hello_serial; /* Hello's reply not read yet */
	uint8_t *in;
	size_t in_len, in_cap;
};

uint64_t cv_dbus_now_usec(void)
{
	return cv_now_ns() / 1000;
}

void cv_dbus_close(struct cv_dbus *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c);
}

int cv_dbus_address(const char *address, bool user, char **out, cv_error_t *err)
{
	const char *env;

	*out = NULL;
	if (address)
		*out = strdup(address);
	else if (!user)
		*out = strdup((env = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS")) && *env
				      ? env
				      : "unix:path=/run/dbus/system_bus_socket");
	else if ((env = secure_getenv("DBUS_SESSION_BUS_ADDRESS")) && *env)
		*out = strdup(env);
	else if ((env = secure_getenv("XDG_RUNTIME_DIR")) && *env) {
		if (asprintf(out, "unix:path=%s/bus", env) < 0)
			*out = NULL;
	} else
		return cv_error_plain(err, ENOENT, "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set");
	return *out ? 0 : cv_error(err, ENOMEM, "bus address");
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* Unescapes an address value (%XX) in place; false if malformed. */
static bool unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (*s == '%') {
			int a = hexval(s[1]), b = a < 0 ? -1 : hexval(s[2]);
			if (b < 0 || (a == 0 && b == 0))
				return false;
			*o++ = (char)(a * 16 + b);
			s += 2;
		} else
			*o++ = *s;
	}
	*o = '\0';
	return true;
}

/* Connects to one "unix:key=value,..." entry; 1 = not a transport we
 * speak (try the next entry). */
static int connect_entry(char *entry, int *fd_out, cv_error_t *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = NULL, *abstract = NULL;
	cleanup_close int fd = -1;
	socklen_t salen;
	size_t n;

	if (strncmp(entry, "unix:", 5) != 0)
		return 1;
	for (char *kv = entry + 5, *next; kv && *kv; kv = next) {
		char *eq;
		next = strchr(kv, ',');
		if (next)
			*next++ = '\0';
		eq = strchr(kv, '=');
		if (!eq)
			return cv_error_plain(err, EINVAL, "D-Bus address \"%s\": \"%s\" has no value", entry, kv);
		*eq = '\0';
		if (!unescape(eq + 1))
			return cv_error_plain(err, EINVAL, "D-Bus address: bad escape in %s", kv);
		if (strcmp(kv, "path") == 0)
			path = eq + 1;
		else if (strcmp(kv, "abstract") == 0)
			abstract = eq + 1;
	}
	if (!path && !abstract)
		return 1;
	n = strlen(path ? path : abstract);
	if (path ? n >= sizeof(sa.sun_path) : n + 1 > sizeof(sa.sun_path))
		return cv_error(err, ENAMETOOLONG, "D-Bus socket %s", path ? path : abstract);
	if (path)
		memcpy(sa.sun_path, path, n + 1);
	else
		memcpy(sa.sun_path + 1, abstract, n); /* leading NUL: abstract namespace */
	/* a path ends with its NUL; an abstract name starts with one */
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cv_error_errno(err, "socket");
	/* blocking: a unix connect completes at once (or fails) */
	while (connect(fd, (struct sockaddr *)&sa, salen) < 0)
		if (errno != EINTR)
			return cv_error_errno(err, "socket %s%s", path ? "" : "@", path ? path : abstract);
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		return cv_error_errno(err, "D-Bus socket: O_NONBLOCK");
	*fd_out = steal_fd(&fd);
	return 0;
}

static int wait_fd(struct cv_dbus *c, short events, uint64_t deadline, cv_error_t *err)
{
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = events };
		uint64_t now = cv_dbus_now_usec();
		int r;

		if (now >= deadline)
			return cv_error(err, ETIMEDOUT, "D-Bus: no answer from the bus");
		r = poll(&p, 1, (int)((deadline - now + 999) / 1000));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return cv_error_errno(err, "D-Bus: poll");
	}
}

static int send_all(struct cv_dbus *c, const void *buf, size_t len, uint64_t deadline, cv_error_t *err)
{
	const uint8_t *p = buf;

	while (len) {
		/* MSG_NOSIGNAL: a bus that went away is an error, not SIGPIPE */
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return cv_error_errno(err, "D-Bus: send");
			if (wait_fd(c, POLLOUT, deadline, err) < 0)
				return -1;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads what is there into c->in (growing it to at least `want` bytes
 * of room), waiting for something until deadline. */
static int fill(struct cv_dbus *c, size_t want, uint64_t deadline, cv_error_t *err)
{
	ssize_t n;

	if (want < c->in_len + 4096)
		want = c->in_len + 4096;
	if (want > c->in_cap) {
		uint8_t *b = realloc(c->in, want);
		if (!b)
			return cv_error(err, ENOMEM, "D-Bus receive buffer");
		c->in = b;
		c->in_cap = want;
	}
	for (;;) {
		n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_CMSG_CLOEXEC);
		if (n > 0) {
			c->in_len += (size_t)n;
			return 0;
		}
		if (n == 0)
			return cv_error_plain(err, ECONNRESET, "D-Bus: the bus closed the connection");
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return cv_error_errno(err, "D-Bus: recv");
		if (wait_fd(c, POLLIN, deadline, err) < 0)
			return -1;
	}
}

static void consume(struct cv_dbus *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

/* SASL: "\0AUTH EXTERNAL <hex of the decimal euid>\r\n", expect "OK <guid>".
 * BEGIN is sent with Hello. */
static int authenticate(struct cv_dbus *c, uint64_t deadline, cv_error_t *err)
{
	char uid[16], line[96];
	int n = snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
	size_t len;
	const uint8_t *crlf;

	len = 1 + (size_t)snprintf(line + 1, sizeof(line) - 1, "AUTH EXTERNAL ");
	line[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%02x", (unsigned char)uid[i]);
	len += (size_t)snprintf(line + len, sizeof(line) - len, "\r\n");
	if (send_all(c, line, len, deadline, err) < 0)
		return -1;
	while (!(crlf = c->in_len ? memmem(c->in, c->in_len, "\r\n", 2) : NULL)) {
		if (c->in_len >= MAX_AUTH_LINE)
			return cv_error_plain(err, EPROTO, "D-Bus authentication: overlong reply");
		if (fill(c, MAX_AUTH_LINE, deadline, err) < 0)
			return cv_error_prefix(err, "D-Bus authentication");
	}
	len = (size_t)(crlf - c->in);
	if (len < 3 || memcmp(c->in, "OK ", 3) != 0) {
		int shown = (int)(len > 80 ? 80 : len);
		for (int i = 0; i < shown; i++)
			if (c->in[i] < 0x20 || c->in[i] > 0x7e)
				c->in[i] = '?';
		return cv_error_plain(err, EACCES, "D-Bus authentication as uid %s refused: %.*s", uid, shown,
				      (const char *)c->in);
	}
	consume(c, len + 2);
	return 0;
}

static const struct cv_dbus_header bus_call = {
	.type = CV_DBUS_METHOD_CALL,
	.destination = "org.freedesktop.DBus",
	.path = "/org/freedesktop/DBus",
	.interface = "org.freedesktop.DBus",
};

static int send_msg(struct cv_dbus *c, struct cv_dbus_header *h, const struct cv_dbus_writer *body, const char *prefix,
		    uint64_t deadline, cv_error_t *err)
{
	struct cv_dbus_writer w = { 0 };
	struct cv_dbus_writer all = { 0 };
	int r;

	h->serial = ++c->serial;
	if (cv_dbus_build(h, body, &w, err) < 0)
		return -1;
	if (prefix) {
		w_bytes(&all, prefix, strlen(prefix));
		w_bytes(&all, w.buf, w.len);
		if (all.error) {
			r = cv_error_plain(err, all.error, "D-Bus: %s", all.why);
			cv_dbus_writer_clear(&w);
			cv_dbus_writer_clear(&all);
			return r;
		}
	}
	r = prefix ? send_all(c, all.buf, all.len, deadline, err) : send_all(c, w.buf, w.len, deadline, err);
	cv_dbus_writer_clear(&w);
	cv_dbus_writer_clear(&all);
	return r;
}

int cv_dbus_open(const char *address, uint64_t deadline, struct cv_dbus **out, cv_error_t *err)
{
	cleanup_free char *list = strdup(address);
	cleanup_dbus struct cv_dbus *c = NULL;
	struct cv_dbus_header hello = bus_call;
	cv_error_t last = NULL;
	int fd = -1;

	*out = NULL;
	if (!list)
		return cv_error(err, ENOMEM, "bus address");
	for (char *entry = list, *next; entry && *entry && fd < 0; entry = next) {
		int r;
		next = strchr(entry, ';');
		if (next)
			*next++ = '\0';
		cv_error_release(&last);
		r = connect_entry(entry, &fd, &last);
		if (r > 0)
			cv_error_plain(&last, EAFNOSUPPORT,
				       "D-Bus address \"%s\": only unix:path= and unix:abstract= are supported", entry);
	}
	if (fd < 0) {
		if (!last)
			cv_error_plain(&last, EINVAL, "D-Bus address \"%s\": empty", address);
		cv_error_move(err, &last);
		return cv_error_ret(*err);
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return cv_error(err, ENOMEM, "D-Bus connection");
	}
	c->fd = fd;
	if (authenticate(c, deadline, err) < 0)
		return -1;
	hello.member = "Hello";
	if (send_msg(c, &hello, NULL, "BEGIN\r\n", deadline, err) < 0)
		return -1;
	c->hello_serial = hello.serial;
	*out = steal_pointer(&c);
	return 0;
}

int cv_dbus_send(struct cv_dbus *c, struct cv_dbus_header *h, const struct cv_dbus_writer *body, cv_error_t *err)
{
	/* a socket that cannot take a message within this is stuck */
	return send_msg(c, h, body, NULL, cv_dbus_now_usec() + 30 * 1000000ULL, err);
}

const char *cv_dbus_error_message(const struct cv_dbus_message *m, char *buf, size_t size)
{
	const char *text = NULL;

	if (!m->h.signature || m->h.signature[0] != 's' || cv_dbus_read(m, "s", NULL, &text) < 0)
		text = NULL;
	snprintf(buf, size, "%s%s%s", m->h.error_name ? m->h.error_name : "unknown error", text ? ": " : "",
		 text ? text : "");
	return buf;
}

int cv_dbus_recv(struct cv_dbus *c, uint64_t deadline, struct cv_dbus_message *m, cv_error_t *err)
{
	for (;;) {
		size_t total;
		uint8_t *raw;

		while (c->in_len < 16)
			if (fill(c, 16, deadline, err) < 0)
				return -1;
		/* the size is known (and bounded) before the rest is read */
		if (cv_dbus_message_size(c->in, c->in_len, &total, err) < 0)
			return -1;
		while (c->in_len < total)
			if (fill(c, total, deadline, err) < 0)
				return -1;
		raw = malloc(total);
		if (!raw)
			return cv_error(err, ENOMEM, "D-Bus message");
		memcpy(raw, c->in, total);
		consume(c, total);
		if (cv_dbus_parse(raw, total, m, err) < 0)
			return -1;
		if (c->hello_serial && m->h.reply_serial == c->hello_serial &&
		    (m->h.type == CV_DBUS_METHOD_RETURN || m->h.type == CV_DBUS_ERROR)) {
			char buf[256];
			c->hello_serial = 0;
			if (m->h.type == CV_DBUS_ERROR) {
				cv_dbus_error_message(m, buf, sizeof(buf));
				cv_dbus_message_clear(m);
				return cv_error_plain(err, EPROTO, "D-Bus Hello: %s", buf);
			}
			cv_dbus_message_clear(m);
			continue;
		}
		return 0;
	}
}

int cv_dbus_wait_reply(struct cv_dbus *c, uint32_t serial, uint64_t deadline,
		       void (*other)(const struct cv_dbus_message *m, void *data), void *data,
		       struct cv_dbus_message *reply, cv_error_t *err)
{
	for (;;) {
		struct cv_dbus_message m;
		if (cv_dbus_recv(c, deadline, &m, err) < 0)
			return -1;
		if (m.h.reply_serial == serial && (m.h.type == CV_DBUS_METHOD_RETURN || m.h.type == CV_DBUS_ERROR)) {
			*reply = m;
			return 0;
		}
		if (other)
			other(&m, data);
		cv_dbus_message_clear(&m);
	}
}

int cv_dbus_add_match(struct cv_dbus *c, const char *rule, uint64_t deadline, cv_error_t *err)
{
	struct cv_dbus_header h = bus_call;
	struct cv_dbus_writer body = { 0 };
	struct cv_dbus_message reply;
	char buf[512];
	int r;

	h.member = "AddMatch";
	h.signature = "s";
	cv_dbus_put_string(&body, rule);
	r = send_msg(c, &h, &body, NULL, deadline, err);
	cv_dbus_writer_clear(&body);
	if (r < 0 || cv_dbus_wait_reply(c, h.serial, deadline, NULL, NULL, &reply, err) < 0)
		return cv_error_prefix(err, "D-Bus AddMatch");
	if (reply.h.type == CV_DBUS_ERROR) {
		cv_dbus_error_message(&reply, buf, sizeof(buf));
		cv_dbus_message_clear(&reply);
		return cv_error_plain(err, EPROTO, "D-Bus AddMatch: %s", buf);
	}
	cv_dbus_message_clear(&reply);
	return 0;
}
