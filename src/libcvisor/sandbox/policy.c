/* Sandbox policy: JSON document and command-line flags, one key table.
 *
 * Unknown and duplicate keys are errors here, unlike config.json (where
 * unknown properties are ignored as the runtime-spec requires): this is a
 * security policy, and a typo such as "deny_raed" silently ignored would
 * leave the user believing something is protected when it is not. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "oci/json.h"
#include "sandbox/policy.h"

#define POLICY_MAX_SIZE (1u << 20)
#define POLICY_MAX_LIST 4096
#define POLICY_MAX_PATH 4096

enum kind {
	K_PATH,
	K_PATH_LIST,
	K_ENV_LIST,
	K_NETWORK,
	K_BOOL,
	K_SIZE,
	K_COUNT,
	K_CPUS,
	K_SECONDS,
	K_USER
};

struct key {
	const char *name;
	enum kind kind;
	size_t off;
	uint64_t min, max; /* K_SIZE/K_COUNT: bytes or units; K_CPUS: milli; K_SECONDS: ms */
};

#define OFF(f) offsetof(cv_policy, f)
static const struct key keys[] = {
	{ "rootfs", K_PATH, OFF(rootfs), 0, 0 },
	{ "workspace", K_PATH, OFF(workspace), 0, 0 },
	{ "writable", K_PATH_LIST, OFF(writable), 0, 0 },
	{ "deny_write", K_PATH_LIST, OFF(deny_write), 0, 0 },
	{ "deny_read", K_PATH_LIST, OFF(deny_read), 0, 0 },
	{ "network", K_NETWORK, OFF(network), 0, 0 },
	{ "allow_host_loopback", K_BOOL, OFF(allow_host_loopback), 0, 0 },
	{ "env", K_ENV_LIST, OFF(env), 0, 0 },
	{ "memory", K_SIZE, OFF(memory), CV_POLICY_MIN_MEMORY, INT64_MAX },
	{ "cpus", K_CPUS, OFF(cpus_milli), CV_POLICY_MIN_CPUS_MILLI, CV_POLICY_MAX_CPUS_MILLI },
	{ "cpu_seconds", K_COUNT, OFF(cpu_seconds), 1, CV_POLICY_MAX_CPU_SECONDS },
	{ "processes", K_COUNT, OFF(processes), CV_POLICY_MIN_PROCESSES, CV_POLICY_MAX_PROCESSES },
	{ "max_file_size", K_SIZE, OFF(max_file_size), 1, INT64_MAX },
	{ "open_files", K_COUNT, OFF(open_files), CV_POLICY_MIN_OPEN_FILES, CV_POLICY_MAX_OPEN_FILES },
	{ "timeout", K_SECONDS, OFF(timeout_ms), 1, CV_POLICY_MAX_TIMEOUT_MS },
	{ "max_output_bytes", K_SIZE, OFF(max_output_bytes), 1, INT64_MAX },
	{ "tmp_size", K_SIZE, OFF(tmp_size), CV_POLICY_MIN_TMP_SIZE, INT64_MAX },
	{ "require_limits", K_BOOL, OFF(require_limits), 0, 0 },
	{ "deny_listen", K_BOOL, OFF(deny_listen), 0, 0 },
	{ "user", K_USER, 0, 0, 0 },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* Where a value came from, for error messages: "policy.json: memory" or
 * "--memory". */
struct src {
	char where[160];
};

/* ---- small text helpers ---- */

/* A value as an error message shows it: strings quoted (escaped, truncated),
 * numbers as written, anything else by its type. */
static const char *show_str(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0;
	buf[o++] = '"';
	for (size_t i = 0; i < len && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		} else {
			buf[o++] = (char)c;
		}
		if (i + 1 < len && o + 8 >= size) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

static const char *show_node(const jt_node *n, char *buf, size_t size)
{
	if (n->type == JT_STRING)
		return show_str(n->s, n->len, buf, size);
	if (n->type == JT_NUMBER) {
		snprintf(buf, size, "%.*s", (int)(n->len < 64 ? n->len : 64), n->s);
		return buf;
	}
	snprintf(buf, size, "%s", jt_type_name(n->type));
	return buf;
}

static int fail(cv_error_t *err, const struct src *src, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(cv_error_t *err, const struct src *src, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cv_error(err, 0, "%s: %s", src->where, msg);
}

/* "D+(.D+)?" times MULT, rounded down; -1 on syntax error, -2 on overflow.
 * Digits past the 18th decimal are ignored (they cannot matter for bytes,
 * milli-cores or milliseconds). */
static int parse_fixed(const char *s, size_t n, uint64_t mult, uint64_t *out)
{
	size_t i = 0;
	unsigned __int128 ip = 0, fnum = 0, fden = 1;
	if (n == 0 || s[0] < '0' || s[0] > '9')
		return -1;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		ip = ip * 10 + (unsigned)(s[i] - '0');
		if (ip > UINT64_MAX)
			return -2;
	}
	if (i < n && s[i] == '.') {
		i++;
		if (i == n || s[i] < '0' || s[i] > '9')
			return -1;
		for (unsigned k = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++, k++) {
			if (k < 18) {
				fnum = fnum * 10 + (unsigned)(s[i] - '0');
				fden *= 10;
			}
		}
	}
	if (i != n)
		return -1;
	unsigned __int128 v = ip * mult + fnum * mult / fden;
	if (v > UINT64_MAX)
		return -2;
	*out = (uint64_t)v;
	return 0;
}

static bool has_fraction(const char *s, size_t n)
{
	return memchr(s, '.', n) != NULL;
}

/* Returns 0, -1 (syntax) or -2 (too large). */
static int size_from_text(const char *s, size_t n, uint64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{ "", 1 },
		{ "b", 1 },
		{ "k", 1ull << 10 },
		{ "kb", 1ull << 10 },
		{ "kib", 1ull << 10 },
		{ "m", 1ull << 20 },
		{ "mb", 1ull << 20 },
		{ "mib", 1ull << 20 },
		{ "g", 1ull << 30 },
		{ "gb", 1ull << 30 },
		{ "gib", 1ull << 30 },
		{ "t", 1ull << 40 },
		{ "tb", 1ull << 40 },
		{ "tib", 1ull << 40 },
	};
	size_t num = 0;
	while (num < n && ((s[num] >= '0' && s[num] <= '9') || s[num] == '.'))
		num++;
	size_t slen = n - num;
	if (slen > 3)
		return -1;
	char suffix[4] = "";
	for (size_t i = 0; i < slen; i++)
		suffix[i] = (char)(s[num + i] | 0x20); /* ASCII lower case */
	suffix[slen] = '\0';
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (strcmp(units[u].suffix, suffix) != 0 || strlen(suffix) != slen)
			continue;
		/* a fraction of a byte means nothing */
		if (units[u].mult == 1 && has_fraction(s, num))
			return -1;
		return parse_fixed(s, num, units[u].mult, out);
	}
	return -1;
}

int cv_policy_parse_size(const char *s, uint64_t *out)
{
	return size_from_text(s, strlen(s), out) < 0 ? -1 : 0;
}

/* Formats bytes the way a user would write them ("4MB", "1536KB", "100"). */
static void fmt_size(uint64_t v, char *buf, size_t size)
{
	static const char *const names[] = { "TB", "GB", "MB", "KB" };
	for (int i = 0; i < 4; i++) {
		uint64_t m = 1ull << (10 * (4 - i));
		if (v >= m && v % m == 0) {
			snprintf(buf, size, "%llu%s", (unsigned long long)(v / m), names[i]);
			return;
		}
	}
	snprintf(buf, size, "%llu", (unsigned long long)v);
}

/* Thousandths as a decimal ("1.5", "0.01", "3"). */
static void fmt_milli(uint64_t v, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%llu.%03llu", (unsigned long long)(v / 1000), (unsigned long long)(v % 1000));
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

/* ---- one value ---- */

/* The text of a value: JSON strings and numbers have one, flags always do. */
struct val {
	const jt_node *node; /* NULL for a flag */
	const char *s;
	size_t len;
	bool is_number; /* a JSON number */
};

static const char *show_val(const struct val *v, char *buf, size_t size)
{
	if (v->node)
		return show_node(v->node, buf, size);
	return show_str(v->s, v->len, buf, size);
}

static bool val_has_text(const struct val *v)
{
	return !v->node || v->node->type == JT_STRING || v->node->type == JT_NUMBER;
}

static int expected(cv_error_t *err, const struct src *src, const struct val *v, const char *what)
{
	char buf[OCI_QUOTE_MAX + 16];
	return fail(err, src, "expected %s, got %s", what, show_val(v, buf, sizeof(buf)));
}

static bool is_string(const struct val *v)
{
	return !v->node || v->node->type == JT_STRING;
}

static int check_no_nul(cv_error_t *err, const struct src *src, const struct val *v)
{
	if (memchr(v->s, '\0', v->len))
		return fail(err, src, "contains a NUL character");
	return 0;
}

static int read_path(const struct val *v, const struct src *src, char **out, cv_error_t *err)
{
	static const char what[] = "an absolute path or one starting with \"~/\"";
	if (!is_string(v))
		return expected(err, src, v, what);
	if (check_no_nul(err, src, v) < 0)
		return -1;
	if (v->len == 0 || !(v->s[0] == '/' || (v->len >= 2 && v->s[0] == '~' && v->s[1] == '/')))
		return expected(err, src, v, what);
	if (v->len >= POLICY_MAX_PATH)
		return fail(err, src, "path longer than %d bytes", POLICY_MAX_PATH - 1);
	/* "." and ".." components would make deny lists easy to get wrong */
	for (size_t i = 0; i < v->len;) {
		size_t j = i;
		while (j < v->len && v->s[j] != '/')
			j++;
		size_t c = j - i;
		if ((c == 1 && v->s[i] == '.') || (c == 2 && v->s[i] == '.' && v->s[i + 1] == '.')) {
			char buf[OCI_QUOTE_MAX + 16];
			return fail(err, src, "%s: \".\" and \"..\" are not allowed in paths",
				    show_val(v, buf, sizeof(buf)));
		}
		i = j + 1;
	}
	char *s = strndup(v->s, v->len);
	if (!s)
		return cv_error(err, ENOMEM, "%s", src->where);
	*out = s;
	return 0;
}

static bool env_name_ok(const char *s, size_t n, bool allow_star)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
		bool digit = c >= '0' && c <= '9';
		if (c == '*' && allow_star && i == n - 1 && i > 0)
			continue;
		if (!(alpha || (digit && i > 0)))
			return false;
	}
	return true;
}

static int read_env(const struct val *v, const struct src *src, char **out, cv_error_t *err)
{
	static const char what[] = "NAME, PREFIX* or NAME=value";
	if (!is_string(v))
		return expected(err, src, v, what);
	if (check_no_nul(err, src, v) < 0)
		return -1;
	const char *eq = memchr(v->s, '=', v->len);
	bool ok = eq ? env_name_ok(v->s, (size_t)(eq - v->s), false) : env_name_ok(v->s, v->len, true);
	if (!ok)
		return expected(err, src, v, what);
	char *s = strndup(v->s, v->len);
	if (!s)
		return cv_error(err, ENOMEM, "%s", src->where);
	*out = s;
	return 0;
}

static int strv_append(oci_strv *l, char *s, const struct src *src, cv_error_t *err)
{
	if (l->len >= POLICY_MAX_LIST) {
		free(s);
		return fail(err, src, "more than %d entries", POLICY_MAX_LIST);
	}
	char **nv = realloc(l->v, (l->len + 2) * sizeof(*nv));
	if (!nv) {
		free(s);
		return cv_error(err, ENOMEM, "%s", src->where);
	}
	nv[l->len++] = s;
	nv[l->len] = NULL;
	l->v = nv;
	l->set = true;
	return 0;
}

static int read_user(const struct val *v, const struct src *src, cv_policy *p, cv_error_t *err)
{
	static const char what[] = "UID or \"UID:GID\" (numbers)";
	uint64_t uid, gid;
	if (!val_has_text(v) || v->len > 64)
		return expected(err, src, v, what);
	const char *colon = v->is_number ? NULL : memchr(v->s, ':', v->len);
	size_t ulen = colon ? (size_t)(colon - v->s) : v->len;
	if (has_fraction(v->s, ulen) || parse_fixed(v->s, ulen, 1, &uid) < 0)
		return expected(err, src, v, what);
	gid = uid;
	if (colon) {
		size_t glen = v->len - ulen - 1;
		if (has_fraction(colon + 1, glen) || parse_fixed(colon + 1, glen, 1, &gid) < 0)
			return expected(err, src, v, what);
	}
	/* (uid_t)-1 means "unchanged" to the kernel, so it cannot be a user */
	if (uid > UINT32_MAX - 1 || gid > UINT32_MAX - 1)
		return fail(err, src, "ids must be at most %u", UINT32_MAX - 1);
	p->user_set = true;
	p->uid = (uint32_t)uid;
	p->gid = (uint32_t)gid;
	return 0;
}

static int check_range(const struct key *k, const struct src *src, const struct val *v, uint64_t x, cv_error_t *err)
{
	if (x >= k->min && x <= k->max)
		return 0;
	char lo[32], hi[32], got[OCI_QUOTE_MAX + 16];
	show_val(v, got, sizeof(got));
	switch (k->kind) {
	case K_SIZE:
		fmt_size(k->min, lo, sizeof(lo));
		if (x < k->min)
			return fail(err, src, "must be at least %s, got %s", lo, got);
		return fail(err, src, "too large, got %s", got);
	case K_CPUS:
		fmt_milli(k->min, lo, sizeof(lo));
		fmt_milli(k->max, hi, sizeof(hi));
		return fail(err, src, "must be between %s and %s cores, got %s", lo, hi, got);
	case K_SECONDS:
		fmt_milli(k->min, lo, sizeof(lo));
		fmt_milli(k->max, hi, sizeof(hi));
		return fail(err, src, "must be between %s and %s seconds, got %s", lo, hi, got);
	default:
		return fail(err, src, "must be between %llu and %llu, got %s", (unsigned long long)k->min,
			    (unsigned long long)k->max, got);
	}
}

static int read_scalar(const struct key *k, const struct val *v, const struct src *src, cv_policy *p, cv_error_t *err)
{
	char *base = (char *)p;
	uint64_t x = 0;
	int r;
	switch (k->kind) {
	case K_PATH: {
		char **slot = (char **)(base + k->off);
		char *s = NULL;
		if (read_path(v, src, &s, err) < 0)
			return -1;
		free(*slot);
		*slot = s;
		return 0;
	}
	case K_NETWORK: {
		static const char what[] = "\"none\", \"outbound\" or \"host\"";
		if (!is_string(v))
			return expected(err, src, v, what);
		for (int n = CV_POLICY_NET_NONE; n <= CV_POLICY_NET_HOST; n++) {
			const char *name = cv_policy_network_name((enum cv_policy_network)n);
			if (strlen(name) == v->len && memcmp(name, v->s, v->len) == 0) {
				p->network_set = true;
				p->network = (enum cv_policy_network)n;
				return 0;
			}
		}
		return expected(err, src, v, what);
	}
	case K_USER:
		return read_user(v, src, p, err);
	case K_BOOL: {
		oci_opt_bool *o = (oci_opt_bool *)(base + k->off);
		bool is_bool = v->node ? v->node->type == JT_TRUE || v->node->type == JT_FALSE : false;
		if (is_bool) {
			o->v = v->node->type == JT_TRUE;
		} else if (!v->node && v->len == 4 && memcmp(v->s, "true", 4) == 0) {
			o->v = true;
		} else if (!v->node && v->len == 5 && memcmp(v->s, "false", 5) == 0) {
			o->v = false;
		} else {
			return expected(err, src, v, "true or false");
		}
		o->set = true;
		return 0;
	}
	case K_SIZE: {
		static const char what[] = "a size like \"512MB\" or a number of bytes";
		if (!val_has_text(v))
			return expected(err, src, v, what);
		/* JSON numbers are bytes; strings may carry a unit */
		r = v->is_number ? (has_fraction(v->s, v->len) ? -1 : parse_fixed(v->s, v->len, 1, &x))
				 : size_from_text(v->s, v->len, &x);
		if (r == -1)
			return expected(err, src, v, what);
		if (r == -2)
			x = UINT64_MAX;
		break;
	}
	case K_COUNT:
		/* flags are text; in JSON a count must be a number */
		if (!(v->is_number || !v->node) || has_fraction(v->s, v->len))
			return expected(err, src, v, "a whole number");
		r = parse_fixed(v->s, v->len, 1, &x);
		if (r == -1)
			return expected(err, src, v, "a whole number");
		if (r == -2)
			x = UINT64_MAX;
		break;
	case K_CPUS:
	case K_SECONDS: {
		const char *what = k->kind == K_CPUS ? "a number of cores like 1.5" : "a number of seconds";
		if (!(v->is_number || !v->node))
			return expected(err, src, v, what);
		r = parse_fixed(v->s, v->len, 1000, &x);
		if (r == -1) {
			/* negative numbers get the range message */
			if (v->len > 1 && v->s[0] == '-' && parse_fixed(v->s + 1, v->len - 1, 1000, &x) >= 0)
				x = 0;
			else
				return expected(err, src, v, what);
		}
		if (r == -2)
			x = UINT64_MAX;
		break;
	}
	default:
		return fail(err, src, "internal error: not a scalar key");
	}
	if (check_range(k, src, v, x, err) < 0)
		return -1;
	oci_opt_u64 *o = (oci_opt_u64 *)(base + k->off);
	o->set = true;
	o->v = x;
	return 0;
}

static int read_item(const struct key *k, const struct val *v, const struct src *src, cv_policy *p, cv_error_t *err)
{
	char *s = NULL;
	int r = k->kind == K_ENV_LIST ? read_env(v, src, &s, err) : read_path(v, src, &s, err);
	if (r < 0)
		return r;
	return strv_append((oci_strv *)((char *)p + k->off), s, src, err);
}

static bool is_list(const struct key *k)
{
	return k->kind == K_PATH_LIST || k->kind == K_ENV_LIST;
}

static struct val node_val(const jt_node *n)
{
	struct val v = { .node = n,
			 .s = n->s ? n->s : "",
			 .len = n->s ? n->len : 0,
			 .is_number = n->type == JT_NUMBER };
	return v;
}

static int read_member(const struct key *k, const jt_node *n, const char *name, cv_policy *p, cv_error_t *err)
{
	struct src src;
	snprintf(src.where, sizeof(src.where), "%s: %s", name, k->name);
	if (!is_list(k)) {
		struct val v = node_val(n);
		return read_scalar(k, &v, &src, p, err);
	}
	if (n->type != JT_ARRAY) {
		struct val v = node_val(n);
		return expected(err, &src, &v, "an array of strings");
	}
	size_t i = 0;
	oci_strv *l = (oci_strv *)((char *)p + k->off);
	l->set = true;
	for (const jt_node *c = n->first; c; c = c->next, i++) {
		struct src isrc;
		snprintf(isrc.where, sizeof(isrc.where), "%s: %s[%zu]", name, k->name, i);
		struct val v = node_val(c);
		if (read_item(k, &v, &isrc, p, err) < 0)
			return -1;
	}
	return 0;
}

/* ---- keys ---- */

static const struct key *find_key(const char *s, size_t n)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const char *k = keys[i].name;
		if (strlen(k) != n)
			continue;
		size_t j = 0;
		/* the flag spelling uses '-' where the key has '_' */
		while (j < n && (s[j] == k[j] || (s[j] == '-' && k[j] == '_')))
			j++;
		if (j == n)
			return &keys[i];
	}
	return NULL;
}

bool cv_policy_has_key(const char *key, bool *list)
{
	const struct key *k = find_key(key, strlen(key));
	if (k && list)
		*list = is_list(k);
	return k != NULL;
}

/* Levenshtein distance, bounded: only for "did you mean". */
static size_t distance(const char *a, size_t al, const char *b)
{
	size_t bl = strlen(b);
	if (al > 32 || bl > 32)
		return 99;
	size_t row[33];
	for (size_t j = 0; j <= bl; j++)
		row[j] = j;
	for (size_t i = 1; i <= al; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= bl; j++) {
			size_t up = row[j];
			size_t cost = (a[i - 1] == b[j - 1] || (a[i - 1] == '-' && b[j - 1] == '_')) ? 0 : 1;
			size_t best = diag + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[bl];
}

static int unknown_key(const char *name, const char *s, size_t n, cv_error_t *err)
{
	char buf[OCI_QUOTE_MAX + 16];
	const char *best = NULL;
	size_t bestd = 3;
	for (size_t i = 0; i < NKEYS; i++) {
		size_t d = distance(s, n, keys[i].name);
		if (d < bestd) {
			bestd = d;
			best = keys[i].name;
		}
	}
	show_str(s, n, buf, sizeof(buf));
	if (best)
		return cv_error(err, 0, "%s: unknown key %s (did you mean \"%s\"?)", name, buf, best);
	return cv_error(err, 0, "%s: unknown key %s", name, buf);
}

/* ---- public ---- */

int cv_policy_new(cv_policy **out, cv_error_t *err)
{
	cv_policy *p = calloc(1, sizeof(*p));
	if (!p)
		return cv_error(err, ENOMEM, "policy");
	*out = p;
	return 0;
}

int cv_policy_parse(const char *data, size_t len, const char *name, cv_policy **out, cv_error_t *err)
{
	cleanup_jt jt_doc *doc = NULL;
	if (len > POLICY_MAX_SIZE)
		return cv_error(err, 0, "%s: document too large (%zu bytes, the limit is 1 MiB)", name, len);
	if (jt_parse(data, len, name, &doc, err) < 0)
		return -1;
	const jt_node *root = jt_root(doc);
	if (root->type != JT_OBJECT)
		return cv_error(err, 0, "%s: expected an object, got %s", name, jt_type_name(root->type));

	cleanup_policy cv_policy *p = NULL;
	if (cv_policy_new(&p, err) < 0)
		return -1;
	bool seen[NKEYS] = { false };
	for (const jt_node *n = root->first; n; n = n->next) {
		const struct key *k = find_key(n->key, n->key_len);
		/* the file uses the key spelling only */
		if (!k || memchr(n->key, '-', n->key_len))
			return unknown_key(name, n->key, n->key_len, err);
		size_t idx = (size_t)(k - keys);
		if (seen[idx])
			return cv_error(err, 0, "%s: %s: given twice", name, k->name);
		seen[idx] = true;
		if (n->type == JT_NULL)
			continue; /* null means absent, as in config.json */
		if (read_member(k, n, name, p, err) < 0)
			return -1;
	}
	*out = steal_pointer(&p);
	return 0;
}

int cv_policy_load(const char *path, cv_policy **out, cv_error_t *err)
{
	cleanup_free char *buf = NULL;
	size_t len;
	int r = cv_read_file_at(AT_FDCWD, path, POLICY_MAX_SIZE, CV_READ_REGULAR, &buf, &len, err);
	if (r < 0)
		return r;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return cv_policy_parse(buf, len, base, out, err);
}

int cv_policy_set(cv_policy *p, const char *key, const char *value, cv_error_t *err)
{
	const struct key *k = find_key(key, strlen(key));
	struct src src;
	char flag[64];
	size_t i;
	for (i = 0; key[i] && i + 1 < sizeof(flag); i++)
		flag[i] = key[i] == '_' ? '-' : key[i];
	flag[i] = '\0';
	snprintf(src.where, sizeof(src.where), "--%s", flag);
	if (!k)
		return cv_error(err, 0, "%s: not a policy setting", src.where);
	struct val v = { .node = NULL, .s = value, .len = strlen(value) };
	if (is_list(k))
		return read_item(k, &v, &src, p, err);
	return read_scalar(k, &v, &src, p, err);
}

const char *cv_policy_network_name(enum cv_policy_network n)
{
	switch (n) {
	case CV_POLICY_NET_NONE:
		return "none";
	case CV_POLICY_NET_OUTBOUND:
		return "outbound";
	case CV_POLICY_NET_HOST:
		return "host";
	}
	return "?";
}

int cv_policy_emit(const cv_policy *p, bool pretty, char **out, size_t *out_len, cv_error_t *err)
{
	cleanup_jw jw w = { 0 };
	if (jw_init(&w, pretty, err) < 0)
		return cv_error_prefix(err, "emit policy");
	jw_open(&w);
	const char *base = (const char *)p;
	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		char buf[64];
		switch (k->kind) {
		case K_PATH:
			jw_kstr(&w, k->name, *(char *const *)(base + k->off));
			break;
		case K_PATH_LIST:
		case K_ENV_LIST:
			jw_kstrv(&w, k->name, (const oci_strv *)(base + k->off));
			break;
		case K_NETWORK:
			if (p->network_set)
				jw_kstr(&w, k->name, cv_policy_network_name(p->network));
			break;
		case K_BOOL:
			jw_kopt_bool(&w, k->name, *(const oci_opt_bool *)(base + k->off));
			break;
		case K_USER:
			if (p->user_set) {
				snprintf(buf, sizeof(buf), "%u:%u", p->uid, p->gid);
				jw_kstr(&w, k->name, buf);
			}
			break;
		case K_SIZE:
		case K_COUNT:
		case K_CPUS:
		case K_SECONDS: {
			const oci_opt_u64 *o = (const oci_opt_u64 *)(base + k->off);
			if (!o->set)
				break;
			jw_key(&w, k->name);
			if (k->kind == K_CPUS || k->kind == K_SECONDS) {
				fmt_milli(o->v, buf, sizeof(buf));
				jw_num(&w, buf);
			} else
				jw_u64(&w, o->v);
			break;
		}
		}
	}
	jw_close(&w);
	if (jw_finish(&w, out, out_len, err) < 0)
		return cv_error_prefix(err, "policy");
	return 0;
}

/* KEY: MS as seconds, or null when not KNOWN. */
static void seconds_or_null(jw *w, const char *key, bool known, uint64_t ms)
{
	char buf[32];
	jw_key(w, key);
	if (known) {
		fmt_milli(ms, buf, sizeof(buf));
		jw_num(w, buf);
	} else {
		jw_null(w);
	}
}

int cv_sandbox_report_emit(const cv_sandbox_report *r, char **out, size_t *out_len, cv_error_t *err)
{
	cleanup_jw jw w = { 0 };
	if (jw_init(&w, true, err) < 0)
		return cv_error_prefix(err, "emit report");
	jw_open(&w);
	jw_key(&w, "exit_code");
	jw_i64(&w, r->exit_code);
	jw_key(&w, "signal");
	jw_i64(&w, r->signal);
	jw_key(&w, "timed_out");
	jw_bool(&w, r->timed_out);
	jw_key(&w, "cancelled");
	jw_bool(&w, r->cancelled);
	jw_key(&w, "limits_hit");
	jw_open(&w);
	const struct {
		const char *k;
		bool v;
	} hits[] = { { "memory", r->limit_memory },
		     { "processes", r->limit_processes },
		     { "cpu_seconds", r->limit_cpu_seconds },
		     { "max_file_size", r->limit_max_file_size },
		     { "max_output_bytes", r->stdout_truncated || r->stderr_truncated } };
	for (size_t i = 0; i < sizeof(hits) / sizeof(hits[0]); i++) {
		jw_key(&w, hits[i].k);
		jw_bool(&w, hits[i].v);
	}
	jw_close(&w);
	jw_key(&w, "not_enforced");
	jw_aopen(&w);
	if (r->unenforced_memory)
		jw_str(&w, "memory");
	if (r->unenforced_cpus)
		jw_str(&w, "cpus");
	if (r->unenforced_processes)
		jw_str(&w, "processes");
	jw_aclose(&w);
	jw_key(&w, "output_truncated");
	jw_open(&w);
	jw_key(&w, "stdout");
	jw_bool(&w, r->stdout_truncated);
	jw_key(&w, "stderr");
	jw_bool(&w, r->stderr_truncated);
	jw_close(&w);
	seconds_or_null(&w, "wall_seconds", true, r->wall_ms);
	seconds_or_null(&w, "cpu_seconds", r->cpu_known, r->cpu_ms);
	seconds_or_null(&w, "cpu_throttled_seconds", r->cpu_throttled_known, r->cpu_throttled_ms);
	jw_key(&w, "peak_memory_bytes");
	if (r->peak_memory_known)
		jw_u64(&w, r->peak_memory);
	else
		jw_null(&w);
	jw_key(&w, "storage_bytes");
	jw_open(&w);
	jw_key(&w, "tmp");
	if (r->tmp_used_known)
		jw_u64(&w, r->tmp_used);
	else
		jw_null(&w);
	jw_key(&w, "workspace");
	if (r->workspace_used_known)
		jw_u64(&w, r->workspace_used);
	else
		jw_null(&w);
	jw_close(&w);
	jw_close(&w);
	if (jw_finish(&w, out, out_len, err) < 0)
		return cv_error_prefix(err, "report");
	return 0;
}

void cv_policy_free(cv_policy *p)
{
	if (!p)
		return;
	free(p->rootfs);
	free(p->workspace);
	free(p->run_cwd);
	free(p->netns_path);
	free(p->netns_sysfs);
	oci_strv_clear(&p->writable);
	oci_strv_clear(&p->deny_write);
	oci_strv_clear(&p->deny_read);
	oci_strv_clear(&p->env);
	free(p);
}
