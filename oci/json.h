/* The JSON reader and writer: oci/'s parsers and emitters use them, and so
 * does the rest of the library for its own small documents (the sandbox
 * policy and report). The only code that calls yajl is in oci/; no yajl
 * type appears here, so no yajl header reaches a file outside it.
 *
 *  jt_*  a small document tree built with yajl's streaming parser, so that a
 *        syntax error carries its byte offset, numbers keep their exact text
 *        (uint64 values above INT64_MAX survive) and nesting is bounded;
 *  jr_*  typed reads from that tree which keep the JSON path of the value
 *        being read, so every error names it ("process.user.uid: ...");
 *  jw_*  a generator with a sticky error status: write straight through,
 *        check once in jw_finish. */
#ifndef CVISOR_OCI_JSON_H
#define CVISOR_OCI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "spec.h"

#define OCI_JSON_MAX_DEPTH 64

/* ---- tree ---- */
typedef enum {
	JT_NULL,
	JT_FALSE,
	JT_TRUE,
	JT_NUMBER,
	JT_STRING,
	JT_OBJECT,
	JT_ARRAY
} jt_type;

typedef struct jt_node jt_node;
struct jt_node {
	jt_type type;
	const char *key; /* member name when the parent is an object */
	size_t key_len;
	jt_node *next;
	/* JT_STRING: the decoded text; JT_NUMBER: the literal as written */
	const char *s;
	size_t len;
	/* JT_OBJECT / JT_ARRAY */
	jt_node *first, *last;
	size_t count;
};

typedef struct jt_doc jt_doc;

/* Parses DATA; errors are "NAME: invalid JSON at byte N: ...". */
int jt_parse(const char *data, size_t len, const char *name, jt_doc **out, cv_error_t *err);
jt_node *jt_root(jt_doc *doc);
void jt_free(jt_doc *doc);
static inline void jt_freep(jt_doc **d)
{
	jt_free(*d);
}
#define cleanup_jt __attribute__((cleanup(jt_freep)))

/* The last member named KEY (later duplicates win, as in Go), or NULL when
 * absent or null: optional properties treat null as absent. */
jt_node *jt_get(const jt_node *obj, const char *key);
const char *jt_type_name(jt_type t);

/* ---- reading with a path ---- */
typedef struct {
	const char *name; /* "config.json" */
	cv_error_t *err;
	size_t len;
	char path[512];
} jr_ctx;

void jr_init(jr_ctx *c, const char *name, const char *base, cv_error_t *err);
size_t jr_push_key(jr_ctx *c, const char *key);
size_t jr_push_index(jr_ctx *c, size_t i);
size_t jr_push_map_key(jr_ctx *c, const char *key);
static inline void jr_pop(jr_ctx *c, size_t mark)
{
	c->len = mark;
	c->path[mark] = '\0';
}

/* "NAME: PATH: message" (or "NAME: message" at the top). */
int jr_fail(jr_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int jr_missing(jr_ctx *c, const char *key);
/* "expected WHAT, got <value>" */
int jr_expected(jr_ctx *c, const jt_node *n, const char *what);

int jr_object(jr_ctx *c, const jt_node *n);
int jr_array(jr_ctx *c, const jt_node *n);
int jr_string(jr_ctx *c, const jt_node *n, char **out);
int jr_bool(jr_ctx *c, const jt_node *n, bool *out);
int jr_i64(jr_ctx *c, const jt_node *n, int64_t *out);
int jr_u64(jr_ctx *c, const jt_node *n, uint64_t *out);
int jr_u32(jr_ctx *c, const jt_node *n, uint32_t *out);
int jr_int_range(jr_ctx *c, const jt_node *n, int64_t min, int64_t max, int64_t *out);
int jr_strv(jr_ctx *c, const jt_node *n, oci_strv *out);
int jr_kv_map(jr_ctx *c, const jt_node *n, oci_kv_list *out);
int jr_id_mappings(jr_ctx *c, const jt_node *n, oci_id_mappings *out);

/* Quotes S for an error message: escapes, truncated to a readable length.
 * Returns BUF. */
const char *oci_quote(const char *s, char *buf, size_t size);
#define OCI_QUOTE_MAX 96

/* Read member KEY of OBJ with FN(ctx, node, args...) under path KEY. */
#define JR_OPT(c, obj, key, fn, ...)                                                                                   \
	do {                                                                                                           \
		const jt_node *_n = jt_get((obj), (key));                                                              \
		if (_n) {                                                                                              \
			size_t _m = jr_push_key((c), (key));                                                           \
			int _r = fn((c), _n, __VA_ARGS__);                                                             \
			jr_pop((c), _m);                                                                               \
			if (_r < 0)                                                                                    \
				return _r;                                                                             \
		}                                                                                                      \
	} while (0)
#define JR_REQ(c, obj, key, fn, ...)                                                                                   \
	do {                                                                                                           \
		const jt_node *_n = jt_get((obj), (key));                                                              \
		if (!_n)                                                                                               \
			return jr_missing((c), (key));                                                                 \
		size_t _m = jr_push_key((c), (key));                                                                   \
		int _r = fn((c), _n, __VA_ARGS__);                                                                     \
		jr_pop((c), _m);                                                                                       \
		if (_r < 0)                                                                                            \
			return _r;                                                                                     \
	} while (0)

/* Optional scalar wrappers: set the `set` flag. */
int jr_opt_i64(jr_ctx *c, const jt_node *n, oci_opt_i64 *o);
int jr_opt_u64(jr_ctx *c, const jt_node *n, oci_opt_u64 *o);
int jr_opt_u32(jr_ctx *c, const jt_node *n, oci_opt_u32 *o);
int jr_opt_bool(jr_ctx *c, const jt_node *n, oci_opt_bool *o);

/* ---- writing ---- */
typedef struct {
	void *g;    /* the yajl generator */
	int status; /* its first failure */
} jw;

int jw_init(jw *w, bool pretty, cv_error_t *err);
void jw_release(jw *w);
#define cleanup_jw __attribute__((cleanup(jw_release)))
/* Strings are checked to be UTF-8 (jw_finish fails otherwise), except after
 * this call: for log lines, which must never be dropped for their bytes. */
void jw_keep_invalid_utf8(jw *w);
/* Copies the document into a malloc'd NUL-terminated buffer. */
int jw_finish(jw *w, char **out, size_t *out_len, cv_error_t *err);

void jw_open(jw *w);
void jw_close(jw *w);
void jw_aopen(jw *w);
void jw_aclose(jw *w);
void jw_key(jw *w, const char *key);
void jw_str(jw *w, const char *s);
void jw_i64(jw *w, int64_t v);
void jw_u64(jw *w, uint64_t v);
void jw_bool(jw *w, bool v);
void jw_null(jw *w);
/* A number as written (LITERAL must be a JSON number: "1.5", "42"). */
void jw_num(jw *w, const char *literal);
/* key + value helpers that skip absent values */
void jw_kstr(jw *w, const char *key, const char *s);
void jw_kstrv(jw *w, const char *key, const oci_strv *v);
void jw_kkv(jw *w, const char *key, const oci_kv_list *kv);
void jw_kopt_i64(jw *w, const char *key, oci_opt_i64 o);
void jw_kopt_u64(jw *w, const char *key, oci_opt_u64 o);
void jw_kopt_u32(jw *w, const char *key, oci_opt_u32 o);
void jw_kopt_bool(jw *w, const char *key, oci_opt_bool o);
void jw_kid_mappings(jw *w, const char *key, const oci_id_mappings *m);

/* yajl_version(): 20100 for 2.1.0 (`cvisor --version`). */
int oci_yajl_version(void);

/* ---- freeing helpers shared by the model destructors ---- */
void oci_strv_clear(oci_strv *v);
void oci_kv_list_clear(oci_kv_list *kv);

#endif
