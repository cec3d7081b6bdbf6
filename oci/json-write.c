/* yajl_gen with a sticky status: emitters write straight through and check
 * once at the end. Strings are UTF-8-validated so a non-UTF-8 value set by a
 * program never turns into an unparseable document. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_version.h>

#include "json.h"

#define G(w) ((yajl_gen)(w)->g)

static void note(jw *w, yajl_gen_status st)
{
	if (st != yajl_gen_status_ok && w->status == yajl_gen_status_ok)
		w->status = st;
}

int jw_init(jw *w, bool pretty, cv_error_t *err)
{
	w->status = yajl_gen_status_ok;
	w->g = yajl_gen_alloc(NULL);
	if (!w->g)
		return cv_error(err, ENOMEM, "allocate JSON generator");
	if (pretty) {
		(void)yajl_gen_config(G(w), yajl_gen_beautify, 1);
		(void)yajl_gen_config(G(w), yajl_gen_indent_string, "\t");
	}
	(void)yajl_gen_config(G(w), yajl_gen_validate_utf8, 1);
	return 0;
}

void jw_keep_invalid_utf8(jw *w)
{
	(void)yajl_gen_config(G(w), yajl_gen_validate_utf8, 0);
}

int oci_yajl_version(void)
{
	return yajl_version();
}

void jw_release(jw *w)
{
	if (w->g)
		yajl_gen_free(G(w));
	w->g = NULL;
}

int jw_finish(jw *w, char **out, size_t *out_len, cv_error_t *err)
{
	const unsigned char *buf;
	size_t len;
	if (w->status != yajl_gen_status_ok) {
		if (w->status == yajl_gen_invalid_string)
			return cv_error(err, 0, "emit JSON: a string is not valid UTF-8");
		return cv_error(err, 0, "emit JSON: generator error %d", (int)w->status);
	}
	if (yajl_gen_get_buf(G(w), &buf, &len) != yajl_gen_status_ok)
		return cv_error(err, 0, "emit JSON: incomplete document");
	char *s = malloc(len + 1);
	if (!s)
		return cv_error(err, ENOMEM, "emit JSON");
	memcpy(s, buf, len);
	/* beautify leaves a trailing newline; the caller decides about it */
	while (len > 0 && s[len - 1] == '\n')
		len--;
	s[len] = '\0';
	*out = s;
	if (out_len)
		*out_len = len;
	return 0;
}

void jw_open(jw *w)
{
	note(w, yajl_gen_map_open(G(w)));
}
void jw_close(jw *w)
{
	note(w, yajl_gen_map_close(G(w)));
}
void jw_aopen(jw *w)
{
	note(w, yajl_gen_array_open(G(w)));
}
void jw_aclose(jw *w)
{
	note(w, yajl_gen_array_close(G(w)));
}

void jw_str(jw *w, const char *s)
{
	note(w, yajl_gen_string(G(w), (const unsigned char *)s, strlen(s)));
}

void jw_key(jw *w, const char *key)
{
	jw_str(w, key);
}

void jw_i64(jw *w, int64_t v)
{
	note(w, yajl_gen_integer(G(w), (long long)v));
}

void jw_u64(jw *w, uint64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%" PRIu64, v);
	note(w, yajl_gen_number(G(w), buf, (size_t)n));
}

void jw_bool(jw *w, bool v)
{
	note(w, yajl_gen_bool(G(w), v));
}

void jw_null(jw *w)
{
	note(w, yajl_gen_null(G(w)));
}

void jw_num(jw *w, const char *literal)
{
	note(w, yajl_gen_number(G(w), literal, strlen(literal)));
}

void jw_kstr(jw *w, const char *key, const char *s)
{
	if (!s)
		return;
	jw_key(w, key);
	jw_str(w, s);
}

void jw_kstrv(jw *w, const char *key, const oci_strv *v)
{
	if (!v->set && v->len == 0)
		return;
	jw_key(w, key);
	jw_aopen(w);
	for (size_t i = 0; i < v->len; i++)
		jw_str(w, v->v[i]);
	jw_aclose(w);
}

void jw_kkv(jw *w, const char *key, const oci_kv_list *kv)
{
	if (kv->len == 0)
		return;
	jw_key(w, key);
	jw_open(w);
	for (size_t i = 0; i < kv->len; i++) {
		jw_key(w, kv->v[i].key);
		jw_str(w, kv->v[i].value);
	}
	jw_close(w);
}

void jw_kopt_i64(jw *w, const char *key, oci_opt_i64 o)
{
	if (!o.set)
		return;
	jw_key(w, key);
	jw_i64(w, o.v);
}

void jw_kopt_u64(jw *w, const char *key, oci_opt_u64 o)
{
	if (!o.set)
		return;
	jw_key(w, key);
	jw_u64(w, o.v);
}

void jw_kopt_u32(jw *w, const char *key, oci_opt_u32 o)
{
	if (!o.set)
		return;
	jw_key(w, key);
	jw_u64(w, o.v);
}

void jw_kopt_bool(jw *w, const char *key, oci_opt_bool o)
{
	if (!o.set)
		return;
	jw_key(w, key);
	jw_bool(w, o.v);
}

void jw_kid_mappings(jw *w, const char *key, const oci_id_mappings *m)
{
	if (m->len == 0)
		return;
	jw_key(w, key);
	jw_aopen(w);
	for (size_t i = 0; i < m->len; i++) {
		jw_open(w);
		jw_key(w, "containerID");
		jw_u64(w, m->v[i].container_id);
		jw_key(w, "hostID");
		jw_u64(w, m->v[i].host_id);
		jw_key(w, "size");
		jw_u64(w, m->v[i].size);
		jw_close(w);
	}
	jw_aclose(w);
}
