/* Typed reads from the document tree; every failure names the JSON path. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json.h"

void jr_init(jr_ctx *c, const char *name, const char *base, cv_error_t *err)
{
	c->name = name;
	c->err = err;
	c->len = 0;
	c->path[0] = '\0';
	if (base && *base) {
		int n = snprintf(c->path, sizeof(c->path), "%s", base);
		c->len = n > 0 && (size_t)n < sizeof(c->path) ? (size_t)n : 0;
	}
}

/* Appends SEP and TEXT to the path; on overflow the path stays truncated. */
static size_t push(jr_ctx *c, const char *sep, const char *text)
{
	size_t mark = c->len;
	size_t room = sizeof(c->path) - c->len;
	int n = snprintf(c->path + c->len, room, "%s%s", sep, text);
	c->len = n < 0 || (size_t)n >= room ? sizeof(c->path) - 1 : c->len + (size_t)n;
	return mark;
}

size_t jr_push_key(jr_ctx *c, const char *key)
{
	return push(c, c->len ? "." : "", key);
}

size_t jr_push_index(jr_ctx *c, size_t i)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "[%zu]", i);
	return push(c, "", buf);
}

size_t jr_push_map_key(jr_ctx *c, const char *key)
{
	char q[OCI_QUOTE_MAX + 8];
	size_t mark = push(c, "[", oci_quote(key, q, sizeof(q)));
	push(c, "", "]");
	return mark;
}

const char *oci_quote(const char *s, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	/* Leave room for the closing quote, "..." and the NUL. */
	size_t limit = size > 8 ? size - 6 : 0;
	if (size < 3) {
		if (size)
			buf[0] = '\0';
		return buf;
	}
	buf[o++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[7];
		size_t elen;
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			elen = 2;
		} else if (*p < 0x20 || *p == 0x7f) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[*p >> 4];
			esc[3] = hex[*p & 15];
			elen = 4;
		} else {
			esc[0] = (char)*p;
			elen = 1;
		}
		if (o + elen > limit) {
			/* Don't cut a UTF-8 sequence in half. */
			while (o > 1 && ((unsigned char)buf[o - 1] & 0xc0) == 0x80)
				o--;
			if (o > 1 && ((unsigned char)buf[o - 1] & 0xc0) == 0xc0)
				o--;
			buf[o++] = '"';
			memcpy(buf + o, "...", 4);
			return buf;
		}
		memcpy(buf + o, esc, elen);
		o += elen;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

int jr_fail(jr_ctx *c, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	int r;
	if (c->len)
		r = cv_error(c->err, 0, "%s: %s: %s", c->name, c->path, msg ? msg : "invalid value");
	else
		r = cv_error(c->err, 0, "%s: %s", c->name, msg ? msg : "invalid value");
	free(msg);
	return r;
}

int jr_missing(jr_ctx *c, const char *key)
{
	return jr_fail(c, "missing required property \"%s\"", key);
}

int jr_expected(jr_ctx *c, const jt_node *n, const char *what)
{
	char q[OCI_QUOTE_MAX];
	switch (n->type) {
	case JT_STRING:
		return jr_fail(c, "expected %s, got %s", what, oci_quote(n->s, q, sizeof(q)));
	case JT_NUMBER:
		return jr_fail(c, "expected %s, got %.40s", what, n->s);
	default:
		return jr_fail(c, "expected %s, got %s", what, jt_type_name(n->type));
	}
}

int jr_object(jr_ctx *c, const jt_node *n)
{
	return n->type == JT_OBJECT ? 0 : jr_expected(c, n, "an object");
}

int jr_array(jr_ctx *c, const jt_node *n)
{
	return n->type == JT_ARRAY ? 0 : jr_expected(c, n, "an array");
}

int jr_string(jr_ctx *c, const jt_node *n, char **out)
{
	if (n->type != JT_STRING)
		return jr_expected(c, n, "a string");
	if (strlen(n->s) != n->len)
		return jr_fail(c, "string contains a NUL character");
	char *s = strdup(n->s);
	if (!s)
		return cv_error(c->err, ENOMEM, "%s: %s", c->name, c->path);
	free(*out); /* a duplicate member replaces an earlier one */
	*out = s;
	return 0;
}

int jr_bool(jr_ctx *c, const jt_node *n, bool *out)
{
	if (n->type != JT_TRUE && n->type != JT_FALSE)
		return jr_expected(c, n, "a boolean");
	*out = n->type == JT_TRUE;
	return 0;
}

/* Integers are written as digits only: Go's encoding/json (and so every
 * other runtime) refuses 1.0 or 1e3 for integer fields. */
static bool is_integer_literal(const jt_node *n)
{
	const char *p = n->s;
	if (n->type != JT_NUMBER)
		return false;
	if (*p == '-')
		p++;
	if (!*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

int jr_i64(jr_ctx *c, const jt_node *n, int64_t *out)
{
	if (!is_integer_literal(n))
		return jr_expected(c, n, "an integer");
	errno = 0;
	long long v = strtoll(n->s, NULL, 10);
	if (errno == ERANGE)
		return jr_fail(c, "%.40s is out of range (%" PRId64 "..%" PRId64 ")", n->s, INT64_MIN, INT64_MAX);
	*out = v;
	return 0;
}

int jr_u64(jr_ctx *c, const jt_node *n, uint64_t *out)
{
	if (!is_integer_literal(n) || n->s[0] == '-')
		return jr_expected(c, n, "a non-negative integer");
	errno = 0;
	unsigned long long v = strtoull(n->s, NULL, 10);
	if (errno == ERANGE)
		return jr_fail(c, "%.40s is out of range (0..%" PRIu64 ")", n->s, UINT64_MAX);
	*out = v;
	return 0;
}

int jr_u32(jr_ctx *c, const jt_node *n, uint32_t *out)
{
	uint64_t v;
	int r = jr_u64(c, n, &v);
	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return jr_fail(c, "%.40s is out of range (0..%" PRIu32 ")", n->s, UINT32_MAX);
	*out = (uint32_t)v;
	return 0;
}

int jr_int_range(jr_ctx *c, const jt_node *n, int64_t min, int64_t max, int64_t *out)
{
	int64_t v;
	int r = jr_i64(c, n, &v);
	if (r < 0)
		return r;
	if (v < min || v > max)
		return jr_fail(c, "%.40s is out of range (%" PRId64 "..%" PRId64 ")", n->s, min, max);
	*out = v;
	return 0;
}

int jr_opt_i64(jr_ctx *c, const jt_node *n, oci_opt_i64 *o)
{
	int r = jr_i64(c, n, &o->v);
	o->set = r == 0;
	return r;
}

int jr_opt_u64(jr_ctx *c, const jt_node *n, oci_opt_u64 *o)
{
	int r = jr_u64(c, n, &o->v);
	o->set = r == 0;
	return r;
}

int jr_opt_u32(jr_ctx *c, const jt_node *n, oci_opt_u32 *o)
{
	int r = jr_u32(c, n, &o->v);
	o->set = r == 0;
	return r;
}

int jr_opt_bool(jr_ctx *c, const jt_node *n, oci_opt_bool *o)
{
	int r = jr_bool(c, n, &o->v);
	o->set = r == 0;
	return r;
}

void oci_strv_clear(oci_strv *v)
{
	for (size_t i = 0; i < v->len; i++)
		free(v->v[i]);
	free(v->v);
	v->v = NULL;
	v->len = 0;
	v->set = false;
}

void oci_kv_list_clear(oci_kv_list *kv)
{
	for (size_t i = 0; i < kv->len; i++) {
		free(kv->v[i].key);
		free(kv->v[i].value);
	}
	free(kv->v);
	kv->v = NULL;
	kv->len = 0;
}

int jr_strv(jr_ctx *c, const jt_node *n, oci_strv *out)
{
	int r = jr_array(c, n);
	if (r < 0)
		return r;
	oci_strv_clear(out);
	out->v = calloc(n->count + 1, sizeof(char *));
	if (!out->v)
		return cv_error(c->err, ENOMEM, "%s: %s", c->name, c->path);
	out->set = true;
	size_t i = 0;
	for (const jt_node *e = n->first; e; e = e->next, i++) {
		size_t m = jr_push_index(c, i);
		r = jr_string(c, e, &out->v[i]);
		jr_pop(c, m);
		if (r < 0)
			return r;
		out->len = i + 1;
	}
	return 0;
}

int jr_kv_map(jr_ctx *c, const jt_node *n, oci_kv_list *out)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	oci_kv_list_clear(out);
	out->v = calloc(n->count ? n->count : 1, sizeof(oci_kv));
	if (!out->v)
		return cv_error(c->err, ENOMEM, "%s: %s", c->name, c->path);
	for (const jt_node *e = n->first; e; e = e->next) {
		size_t m = jr_push_map_key(c, e->key);
		if (strlen(e->key) != e->key_len) {
			r = jr_fail(c, "key contains a NUL character");
			jr_pop(c, m);
			return r;
		}
		/* A duplicate key replaces the earlier value. */
		size_t slot = out->len;
		for (size_t j = 0; j < out->len; j++)
			if (strcmp(out->v[j].key, e->key) == 0)
				slot = j;
		char *value = NULL;
		r = jr_string(c, e, &value);
		jr_pop(c, m);
		if (r < 0)
			return r;
		if (slot < out->len) {
			free(out->v[slot].value);
			out->v[slot].value = value;
			continue;
		}
		out->v[slot].key = strdup(e->key);
		if (!out->v[slot].key) {
			free(value);
			return cv_error(c->err, ENOMEM, "%s: %s", c->name, c->path);
		}
		out->v[slot].value = value;
		out->len++;
	}
	return 0;
}

static int read_id_mapping(jr_ctx *c, const jt_node *n, oci_id_mapping *m)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "containerID", jr_u32, &m->container_id);
	JR_REQ(c, n, "hostID", jr_u32, &m->host_id);
	JR_REQ(c, n, "size", jr_u32, &m->size);
	return 0;
}

int jr_id_mappings(jr_ctx *c, const jt_node *n, oci_id_mappings *out)
{
	int r = jr_array(c, n);
	if (r < 0)
		return r;
	free(out->v);
	out->len = 0;
	out->v = calloc(n->count ? n->count : 1, sizeof(*out->v));
	if (!out->v)
		return cv_error(c->err, ENOMEM, "%s: %s", c->name, c->path);
	for (const jt_node *e = n->first; e; e = e->next) {
		size_t m = jr_push_index(c, out->len);
		r = read_id_mapping(c, e, &out->v[out->len]);
		jr_pop(c, m);
		if (r < 0)
			return r;
		out->len++;
	}
	return 0;
}
