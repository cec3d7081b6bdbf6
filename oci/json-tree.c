/* A document tree built with yajl's streaming parser. Nodes and strings live
 * in an arena freed at once: a config.json is parsed, read into the typed
 * model and dropped, so per-node malloc/free would be pure overhead. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "cleanup.h"
#include "json.h"

#define ARENA_CHUNK (64 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct jt_doc {
	struct chunk *chunks;
	jt_node *root;
};

struct builder {
	jt_doc *doc;
	jt_node *stack[OCI_JSON_MAX_DEPTH];
	size_t depth;
	const char *key; /* pending member name */
	size_t key_len;
	const char *fail; /* why a callback stopped the parse */
};

static void *arena_alloc(jt_doc *doc, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	struct chunk *c = doc->chunks;
	if (!c || c->size - c->used < size) {
		size_t csize = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
		c = malloc(sizeof(*c) + csize);
		if (!c)
			return NULL;
		c->size = csize;
		c->used = 0;
		/* An oversized chunk goes behind the current one so the current
		 * chunk's free space stays in use. */
		if (doc->chunks && csize != ARENA_CHUNK) {
			c->next = doc->chunks->next;
			doc->chunks->next = c;
		} else {
			c->next = doc->chunks;
			doc->chunks = c;
		}
	}
	void *p = c->data + c->used;
	c->used += size;
	return p;
}

static const char *arena_strdup(jt_doc *doc, const unsigned char *s, size_t len)
{
	char *p = arena_alloc(doc, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static int add(struct builder *b, jt_type type, const unsigned char *s, size_t len, jt_node **out)
{
	jt_node *n = arena_alloc(b->doc, sizeof(*n));
	if (!n) {
		b->fail = "out of memory";
		return 0;
	}
	memset(n, 0, sizeof(*n));
	n->type = type;
	if (s) {
		n->s = arena_strdup(b->doc, s, len);
		if (!n->s) {
			b->fail = "out of memory";
			return 0;
		}
		n->len = len;
	}
	if (b->depth == 0) {
		b->doc->root = n;
	} else {
		jt_node *parent = b->stack[b->depth - 1];
		if (parent->type == JT_OBJECT) {
			n->key = b->key;
			n->key_len = b->key_len;
		}
		if (parent->last)
			parent->last->next = n;
		else
			parent->first = n;
		parent->last = n;
		parent->count++;
	}
	if (out)
		*out = n;
	return 1;
}

static int open_container(struct builder *b, jt_type type)
{
	jt_node *n;
	if (b->depth >= OCI_JSON_MAX_DEPTH) {
		b->fail = "nesting deeper than 64 levels";
		return 0;
	}
	if (!add(b, type, NULL, 0, &n))
		return 0;
	b->stack[b->depth++] = n;
	return 1;
}

static int cb_null(void *ctx)
{
	return add(ctx, JT_NULL, NULL, 0, NULL);
}
static int cb_bool(void *ctx, int v)
{
	return add(ctx, v ? JT_TRUE : JT_FALSE, NULL, 0, NULL);
}
static int cb_number(void *ctx, const char *s, size_t len)
{
	return add(ctx, JT_NUMBER, (const unsigned char *)s, len, NULL);
}
static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	return add(ctx, JT_STRING, s, len, NULL);
}
static int cb_start_map(void *ctx)
{
	return open_container(ctx, JT_OBJECT);
}
static int cb_start_array(void *ctx)
{
	return open_container(ctx, JT_ARRAY);
}
static int cb_end(void *ctx)
{
	struct builder *b = ctx;
	b->depth--;
	return 1;
}
static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
	struct builder *b = ctx;
	b->key = arena_strdup(b->doc, s, len);
	if (!b->key) {
		b->fail = "out of memory";
		return 0;
	}
	b->key_len = len;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_map_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

static void yajl_handle_freep(yajl_handle *h)
{
	if (*h)
		yajl_free(*h);
}

/* yajl's non-verbose message is "lexical error: <reason>\n" or
 * "parse error: <reason>\n": keep the reason, drop the newline. */
static int syntax_error(yajl_handle h, const char *name, size_t offset, cv_error_t *err)
{
	unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
	const char *reason = msg ? (const char *)msg : "syntax error";
	size_t rlen = strlen(reason);
	while (rlen > 0 && (reason[rlen - 1] == '\n' || reason[rlen - 1] == ' '))
		rlen--;
	int r;
	if (strstr(reason, "invalid bytes in UTF8 string"))
		r = cv_error(err, 0, "%s: invalid UTF-8 in a string at byte %zu", name, offset);
	else
		r = cv_error(err, 0, "%s: invalid JSON at byte %zu: %.*s", name, offset, (int)rlen, reason);
	if (msg)
		yajl_free_error(h, msg);
	return r;
}

int jt_parse(const char *data, size_t len, const char *name, jt_doc **out, cv_error_t *err)
{
	if (len > OCI_JSON_MAX_SIZE)
		return cv_error(err, 0, "%s: document too large (%zu bytes, the limit is 16 MiB)", name, len);

	jt_doc *doc = calloc(1, sizeof(*doc));
	if (!doc)
		return cv_error(err, ENOMEM, "%s", name);
	struct builder b = { .doc = doc };
	yajl_handle h __attribute__((cleanup(yajl_handle_freep))) = yajl_alloc(&callbacks, NULL, &b);
	if (!h) {
		jt_free(doc);
		return cv_error(err, ENOMEM, "%s", name);
	}

	yajl_status st = yajl_parse(h, (const unsigned char *)data, len);
	size_t offset = yajl_get_bytes_consumed(h);
	if (st == yajl_status_ok) {
		st = yajl_complete_parse(h);
		offset = len;
	}
	if (st != yajl_status_ok) {
		int r;
		if (st == yajl_status_client_canceled)
			r = cv_error(err, 0, "%s: %s at byte %zu", name, b.fail ? b.fail : "parse stopped",
				     offset > 0 ? offset - 1 : 0);
		else
			r = syntax_error(h, name, offset, err);
		jt_free(doc);
		return r;
	}
	if (!doc->root) {
		jt_free(doc);
		return cv_error(err, 0, "%s: invalid JSON at byte %zu: empty document", name, len);
	}
	*out = doc;
	return 0;
}

jt_node *jt_root(jt_doc *doc)
{
	return doc->root;
}

void jt_free(jt_doc *doc)
{
	if (!doc)
		return;
	for (struct chunk *c = doc->chunks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(doc);
}

jt_node *jt_get(const jt_node *obj, const char *key)
{
	jt_node *found = NULL;
	size_t klen = strlen(key);
	if (!obj || obj->type != JT_OBJECT)
		return NULL;
	for (jt_node *n = obj->first; n; n = n->next)
		if (n->key_len == klen && memcmp(n->key, key, klen) == 0)
			found = n;
	return found && found->type != JT_NULL ? found : NULL;
}

const char *jt_type_name(jt_type t)
{
	switch (t) {
	case JT_NULL:
		return "null";
	case JT_FALSE:
		return "false";
	case JT_TRUE:
		return "true";
	case JT_NUMBER:
		return "a number";
	case JT_STRING:
		return "a string";
	case JT_OBJECT:
		return "an object";
	case JT_ARRAY:
		return "an array";
	}
	return "?";
}
