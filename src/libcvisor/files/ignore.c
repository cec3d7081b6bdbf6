/* Ignore rules (.gitignore, .dockerignore): the semantics are in ignore.h.
 *
 * Each pattern compiles to a list of tokens that a small NFA runs over the
 * path, one bitset of live states per character: no backtracking, so a
 * hostile pattern (`*a*a*a*...`) costs patterns x path length x tokens at
 * worst, never an exponential. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "files/ignore.h"
#include "io.h"

enum tok_kind {
	T_LIT,      /* one given byte */
	T_ANY,      /* `?`: one byte but `/` */
	T_CLASS,    /* `[...]` */
	T_STAR,     /* `*`: any run without `/` */
	T_ANYSTR,   /* trailing `**`: any run */
	T_DSTARDIR, /* `**` then `/`: zero or more whole directories */
};

struct tok {
	uint8_t kind;
	uint8_t ch;   /* T_LIT */
	uint32_t cls; /* T_CLASS: index into pattern.classes */
};

struct cls {
	uint64_t bits[4];
};

struct pattern {
	struct tok *toks;
	size_t ntok;
	struct cls *classes;
	size_t nclass;
	size_t head, tail; /* literal tokens at the start and at the end: a quick refusal */
	bool negated, mustbedir, nodir, never;
	char *prefix; /* .dockerignore: the literal start, to know where an exception can reach */
};

struct ruleset {
	char *dir; /* relative to the root, "" for the root */
	size_t dirlen;
	unsigned depth;
	enum cv_ignore_kind kind;
	struct pattern *pats;
	size_t npats, cap;
};

struct cv_ignore {
	struct ruleset *sets; /* git's, sorted by depth (deepest last) */
	size_t nsets;
	struct ruleset docker;
	bool has_docker;
	size_t total; /* bytes of rules added, for CV_IGNORE_MAX_TOTAL */
};

/* The longest pattern has CV_IGNORE_MAX_LINE tokens, plus the final state. */
#define NFA_WORDS ((CV_IGNORE_MAX_LINE + 1 + 63) / 64)

static bool cls_has(const struct cls *c, unsigned char ch)
{
	return (c->bits[ch / 64] >> (ch % 64)) & 1;
}

static void cls_set(struct cls *c, unsigned char ch)
{
	c->bits[ch / 64] |= (uint64_t)1 << (ch % 64);
}

static bool state_has(const uint64_t *s, size_t i)
{
	return (s[i / 64] >> (i % 64)) & 1;
}

static void state_set(uint64_t *s, size_t i)
{
	s[i / 64] |= (uint64_t)1 << (i % 64);
}

/* The star tokens may match nothing: a live state before one makes the
 * state after it live too (forward only, so one pass in order). `**` then
 * `/` skips only as a whole: from the state entered (ENT), not from inside
 * its loop, which leaves it on a `/` only. */
static void nfa_close(const struct pattern *p, uint64_t *s, uint64_t *ent)
{
	for (size_t i = 0; i < p->ntok; i++) {
		if (!state_has(s, i))
			continue;
		if (p->toks[i].kind == T_STAR || p->toks[i].kind == T_ANYSTR ||
		    (p->toks[i].kind == T_DSTARDIR && state_has(ent, i))) {
			state_set(s, i + 1);
			state_set(ent, i + 1);
		}
	}
}

static bool pattern_match_text(const struct pattern *p, const char *text, size_t len)
{
	uint64_t cur[NFA_WORDS] = { 0 }, next[NFA_WORDS], ent[NFA_WORDS] = { 0 };
	size_t words = (p->ntok + 1 + 63) / 64;

	if (p->never)
		return false;
	if (p->head == p->ntok) { /* all literal */
		if (len != p->ntok)
			return false;
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)text[i] != p->toks[i].ch)
				return false;
		return true;
	}
	if (len < p->head + p->tail)
		return false;
	for (size_t i = 0; i < p->head; i++)
		if ((unsigned char)text[i] != p->toks[i].ch)
			return false;
	for (size_t i = 1; i <= p->tail; i++)
		if ((unsigned char)text[len - i] != p->toks[p->ntok - i].ch)
			return false;
	state_set(cur, 0);
	state_set(ent, 0);
	nfa_close(p, cur, ent);
	for (size_t k = 0; k < len; k++) {
		unsigned char c = (unsigned char)text[k];
		bool live = false;
		memset(next, 0, words * sizeof(next[0]));
		memset(ent, 0, words * sizeof(ent[0]));
		for (size_t w = 0; w < words; w++) {
			for (uint64_t bits = cur[w]; bits; bits &= bits - 1) {
				size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
				if (i >= p->ntok)
					continue; /* the final state consumes nothing */
				const struct tok *t = &p->toks[i];
				bool adv = false;
				switch (t->kind) {
				case T_LIT:
					adv = c == t->ch;
					break;
				case T_ANY:
					adv = c != '/';
					break;
				case T_CLASS:
					adv = cls_has(&p->classes[t->cls], c);
					break;
				case T_STAR:
					if (c != '/')
						state_set(next, i);
					break;
				case T_ANYSTR:
					state_set(next, i);
					break;
				case T_DSTARDIR:
					state_set(next, i);
					adv = c == '/';
					break;
				}
				if (adv) {
					state_set(next, i + 1);
					state_set(ent, i + 1);
				}
			}
		}
		nfa_close(p, next, ent);
		for (size_t w = 0; w < words; w++) {
			cur[w] = next[w];
			live |= next[w] != 0;
		}
		if (!live)
			return false;
	}
	return state_has(cur, p->ntok);
}

/* ---- compiling ---- */

static bool ctype_name(const char *s, size_t n, int c)
{
#define IS(name) (n == sizeof(name) - 1 && memcmp(s, name, n) == 0)
	bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z', digit = c >= '0' && c <= '9';
	bool alpha = upper || lower, space = c == ' ' || (c >= '\t' && c <= '\r');
	bool print = c >= 0x20 && c < 0x7f;
	if (IS("alnum"))
		return alpha || digit;
	if (IS("alpha"))
		return alpha;
	if (IS("blank"))
		return c == ' ' || c == '\t';
	if (IS("cntrl"))
		return c < 0x20 || c == 0x7f;
	if (IS("digit"))
		return digit;
	if (IS("graph"))
		return print && c != ' ';
	if (IS("lower"))
		return lower;
	if (IS("print"))
		return print;
	if (IS("punct"))
		return print && c != ' ' && !alpha && !digit;
	if (IS("space"))
		return space;
	if (IS("upper"))
		return upper;
	if (IS("xdigit"))
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	return false;
#undef IS
}

static bool ctype_known(const char *s, size_t n)
{
	static const char *const names[] = { "alnum", "alpha", "blank", "cntrl", "digit", "graph",
					     "lower", "print", "punct", "space", "upper", "xdigit" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
			return true;
	return false;
}

/* Parses the class whose `[` is at pat[*pos]; on success *pos is past its
 * `]`. False when it is malformed (unterminated, unknown [:name:], a
 * backslash at the end). DOCKER: only `^` negates, a negated class may
 * match `/`. */
static bool parse_class(const char *pat, size_t len, size_t *pos, bool docker, struct cls *out)
{
	size_t i = *pos + 1;
	bool negated = false;
	int prev = -1; /* the last single byte, which may start a range */

	memset(out, 0, sizeof(*out));
	if (i < len && (pat[i] == '^' || (!docker && pat[i] == '!'))) {
		negated = true;
		i++;
	}
	for (bool first = true;; first = false) {
		if (i >= len)
			return false;
		unsigned char c = (unsigned char)pat[i];
		if (c == ']' && !first) {
			i++;
			break;
		}
		if (c == '\\') {
			if (++i >= len)
				return false;
			c = (unsigned char)pat[i++];
			cls_set(out, c);
			prev = c;
		} else if (c == '-' && prev >= 0 && i + 1 < len && pat[i + 1] != ']') {
			i++;
			unsigned char hi = (unsigned char)pat[i++];
			if (hi == '\\') {
				if (i >= len)
					return false;
				hi = (unsigned char)pat[i++];
			}
			for (int x = prev; x <= hi; x++)
				cls_set(out, (unsigned char)x);
			prev = -1;
		} else if (c == '[' && i + 1 < len && pat[i + 1] == ':') {
			size_t s = i + 2, e = s;
			while (e < len && pat[e] != ']')
				e++;
			if (e >= len)
				return false;
			if (e == s || pat[e - 1] != ':') {
				/* no `:]`: the `[` is an ordinary member */
				cls_set(out, '[');
				prev = '[';
				i++;
				continue;
			}
			if (!ctype_known(pat + s, e - s - 1))
				return false;
			for (int x = 0; x < 256; x++)
				if (ctype_name(pat + s, e - s - 1, x))
					cls_set(out, (unsigned char)x);
			prev = -1;
			i = e + 1;
		} else {
			cls_set(out, c);
			prev = c;
			i++;
		}
	}
	if (negated)
		for (int w = 0; w < 4; w++)
			out->bits[w] = ~out->bits[w];
	if (!docker || !negated)
		out->bits['/' / 64] &= ~((uint64_t)1 << ('/' % 64));
	*pos = i;
	return true;
}

static void pattern_clear(struct pattern *p)
{
	free(p->toks);
	free(p->classes);
	free(p->prefix);
	memset(p, 0, sizeof(*p));
}

static bool is_glob_special(char c)
{
	return c == '*' || c == '?' || c == '[' || c == '\\';
}

/* Compiles PAT (LEN bytes, the syntax already stripped of `!`, trailing
 * `/` and leading `/`). Returns 0, -ENOMEM, or -EINVAL for a malformed
 * pattern when DOCKER (git's never match instead). */
static int compile(struct pattern *p, const char *pat, size_t len, bool docker)
{
	p->toks = calloc(len + 1, sizeof(*p->toks));
	if (!p->toks)
		return -ENOMEM;
	if (docker) {
		size_t n = 0;
		while (n < len && !is_glob_special(pat[n]) && pat[n] != ']')
			n++;
		p->prefix = strndup(pat, n);
		if (!p->prefix)
			return -ENOMEM;
	}
	for (size_t i = 0; i < len;) {
		struct tok *t = &p->toks[p->ntok];
		char c = pat[i];
		if (c == '*' && docker && i + 1 < len && pat[i + 1] == '*') {
			size_t j = i + 2;
			bool slash = j < len && pat[j] == '/';
			if (slash)
				j++;
			t->kind = j == len ? T_ANYSTR : T_DSTARDIR;
			if (i == 0 && !slash && j < len) {
				/* Docker's suffix shortcut: `**lit` is any path ending in lit */
				bool literal = true;
				for (size_t k = j; k < len; k++)
					literal &= !is_glob_special(pat[k]) && pat[k] != ']';
				if (literal)
					t->kind = T_ANYSTR;
			}
			i = j;
		} else if (c == '*') {
			size_t j = i;
			while (j < len && pat[j] == '*')
				j++;
			t->kind = T_STAR;
			if (!docker && !p->nodir && j - i >= 2 && (i == 0 || pat[i - 1] == '/')) {
				if (j == len) {
					t->kind = T_ANYSTR;
				} else if (pat[j] == '/') {
					t->kind = T_DSTARDIR;
					j++;
				} else if (pat[j] == '\\' && j + 1 < len && pat[j + 1] == '/') {
					t->kind = T_DSTARDIR;
					j += 2;
				}
			}
			i = j;
		} else if (c == '?') {
			t->kind = T_ANY;
			i++;
		} else if (c == '[') {
			struct cls cl;
			if (!parse_class(pat, len, &i, docker, &cl)) {
				if (docker)
					return -EINVAL;
				p->never = true;
				return 0;
			}
			struct cls *nc = realloc(p->classes, (p->nclass + 1) * sizeof(*nc));
			if (!nc)
				return -ENOMEM;
			p->classes = nc;
			nc[p->nclass] = cl;
			t->kind = T_CLASS;
			t->cls = (uint32_t)p->nclass++;
		} else if (c == '\\') {
			if (i + 1 >= len) {
				if (docker)
					return -EINVAL;
				p->never = true;
				return 0;
			}
			t->kind = T_LIT;
			t->ch = (uint8_t)pat[i + 1];
			i += 2;
		} else {
			t->kind = T_LIT;
			t->ch = (uint8_t)c;
			i++;
		}
		p->ntok++;
	}
	while (p->head < p->ntok && p->toks[p->head].kind == T_LIT)
		p->head++;
	while (p->head < p->ntok && p->tail < p->ntok - p->head && p->toks[p->ntok - 1 - p->tail].kind == T_LIT)
		p->tail++;
	return 0;
}

/* ---- reading ignore files ---- */

static int ruleset_push(struct ruleset *rs, struct pattern *p)
{
	if (rs->npats == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 16;
		struct pattern *n = reallocarray(rs->pats, cap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		rs->pats = n;
		rs->cap = cap;
	}
	rs->pats[rs->npats++] = *p;
	memset(p, 0, sizeof(*p));
	return 0;
}

static void ruleset_clear(struct ruleset *rs)
{
	for (size_t i = 0; i < rs->npats; i++)
		pattern_clear(&rs->pats[i]);
	free(rs->pats);
	free(rs->dir);
	memset(rs, 0, sizeof(*rs));
}

/* Removes trailing spaces that no backslash escapes (git's rule). */
static size_t git_trim(const char *s, size_t len)
{
	size_t keep = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == ' ')
			continue;
		if (s[i] == '\\' && i + 1 < len)
			i++;
		keep = i + 1;
	}
	return keep;
}

static int git_line(struct ruleset *rs, const char *s, size_t len)
{
	struct pattern p = { 0 };
	int r;

	if (len > 0 && s[0] == '!') {
		p.negated = true;
		s++;
		len--;
	}
	if (len > 0 && s[len - 1] == '/') {
		p.mustbedir = true;
		len--;
	}
	p.nodir = memchr(s, '/', len) == NULL;
	if (len > 0 && s[0] == '/') {
		s++;
		len--;
	}
	r = compile(&p, s, len, false);
	if (r == 0)
		r = ruleset_push(rs, &p);
	pattern_clear(&p);
	return r;
}

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Go's filepath.Clean, lexically, on LEN bytes of S: a malloc'd string.
 * FLOOR ends the leading `..` elements, which a later `..` cannot undo. */
static char *path_clean(const char *s, size_t len)
{
	bool rooted = len > 0 && s[0] == '/';
	char *out = malloc(len + 2);
	size_t o = 0, floor = 0;

	if (!out)
		return NULL;
	if (rooted)
		out[o++] = '/', floor = 1;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && s[j] != '/')
			j++;
		size_t n = j - i;
		if (n == 2 && s[i] == '.' && s[i + 1] == '.') {
			if (o > floor) {
				o--;
				while (o > floor && out[o] != '/')
					o--;
			} else if (!rooted) {
				if (o > 0)
					out[o++] = '/';
				out[o++] = '.';
				out[o++] = '.';
				floor = o;
			}
		} else if (n > 0 && !(n == 1 && s[i] == '.')) {
			if (o > (rooted ? 1u : 0u))
				out[o++] = '/';
			memcpy(out + o, s + i, n);
			o += n;
		}
		i = j + 1;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return out;
}

static int docker_line(struct ruleset *rs, const char *s, size_t len)
{
	struct pattern p = { 0 };
	cleanup_free char *clean = NULL;
	int r;

	if (len > 0 && s[0] == '!') {
		p.negated = true;
		s++;
		len--;
		while (len > 0 && is_space(s[0]))
			s++, len--;
		if (len == 0)
			return -EINVAL;
	}
	clean = path_clean(s, len);
	if (!clean)
		return -ENOMEM;
	const char *c = clean;
	if (c[0] == '/' && c[1] != '\0')
		c++;
	r = compile(&p, c, strlen(c), true);
	if (r == 0)
		r = ruleset_push(rs, &p);
	pattern_clear(&p);
	return r;
}

static unsigned dir_depth(const char *dir)
{
	unsigned d = dir[0] != '\0';
	for (const char *s = dir; *s; s++)
		d += *s == '/';
	return d;
}

/* The set for DIR (git's) or the docker set, made when missing. */
static struct ruleset *set_for(cv_ignore *ig, const char *dir, enum cv_ignore_kind kind)
{
	if (kind == CV_IGNORE_DOCKERIGNORE) {
		ig->has_docker = true;
		return &ig->docker;
	}
	unsigned depth = dir_depth(dir);
	size_t at = ig->nsets;
	for (size_t i = 0; i < ig->nsets; i++) {
		if (strcmp(ig->sets[i].dir, dir) == 0)
			return &ig->sets[i];
		if (ig->sets[i].depth > depth && at == ig->nsets)
			at = i;
	}
	struct ruleset *n = realloc(ig->sets, (ig->nsets + 1) * sizeof(*n));
	if (!n)
		return NULL;
	ig->sets = n;
	char *d = strdup(dir);
	if (!d)
		return NULL;
	memmove(n + at + 1, n + at, (ig->nsets - at) * sizeof(*n));
	n[at] = (struct ruleset){ .dir = d, .dirlen = strlen(d), .depth = depth, .kind = kind };
	ig->nsets++;
	return &n[at];
}

cv_ignore *cv_ignore_new(void)
{
	return calloc(1, sizeof(cv_ignore));
}

void cv_ignore_free(cv_ignore *ig)
{
	if (!ig)
		return;
	for (size_t i = 0; i < ig->nsets; i++)
		ruleset_clear(&ig->sets[i]);
	free(ig->sets);
	ruleset_clear(&ig->docker);
	free(ig);
}

int cv_ignore_add(cv_ignore *ig, const char *dir_rel, const char *data, size_t len, enum cv_ignore_kind kind,
		  cv_error_t *err)
{
	bool docker = kind == CV_IGNORE_DOCKERIGNORE;
	const char *file = docker ? ".dockerignore" : ".gitignore";
	const char *sep = dir_rel[0] ? "/" : "";
	struct ruleset *rs;
	size_t lineno = 0;

	if (kind != CV_IGNORE_GITIGNORE && !docker)
		return cv_error_plain(err, EINVAL, "ignore rules: unknown kind %d", (int)kind);
	if (docker && dir_rel[0])
		return cv_error_plain(err, EINVAL, "`%s/.dockerignore`: only the root's is read", dir_rel);
	if (dir_rel[0] == '/' || (dir_rel[0] && dir_rel[strlen(dir_rel) - 1] == '/'))
		return cv_error_plain(err, EINVAL, "ignore rules: `%s`: not a relative directory", dir_rel);
	if (len > CV_IGNORE_MAX_FILE)
		return cv_error_plain(err, EFBIG, "`%s%s%s`: too large (%zu bytes, the limit is %u)", dir_rel, sep,
				      file, len, CV_IGNORE_MAX_FILE);
	if (len > CV_IGNORE_MAX_TOTAL - ig->total)
		return cv_error_plain(err, EFBIG, "`%s%s%s`: the ignore files add up to more than %u bytes", dir_rel,
				      sep, file, CV_IGNORE_MAX_TOTAL);
	rs = set_for(ig, dir_rel, kind);
	if (!rs)
		return cv_error(err, ENOMEM, "`%s%s%s`", dir_rel, sep, file);
	ig->total += len;
	if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
		data += 3, len -= 3;
	for (size_t i = 0; i < len;) {
		const char *line = data + i;
		const char *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;
		int r;

		i += n + 1;
		lineno++;
		if (n > 0 && line[n - 1] == '\r')
			n--;
		if (n > CV_IGNORE_MAX_LINE)
			return cv_error_plain(err, EINVAL, "`%s%s%s`, line %zu: longer than %u bytes", dir_rel, sep,
					      file, lineno, CV_IGNORE_MAX_LINE);
		if (n == 0 || line[0] == '#')
			continue;
		const char *nul = memchr(line, '\0', n); /* both tools read lines as C or Go strings; */
		if (nul && !docker)                      /* git's end at a NUL */
			n = (size_t)(nul - line);
		if (docker) {
			while (n > 0 && is_space(line[n - 1]))
				n--;
			while (n > 0 && is_space(line[0]))
				line++, n--;
			if (n == 0)
				continue;
			r = docker_line(rs, line, n);
		} else {
			n = git_trim(line, n);
			if (n == 0)
				continue;
			r = git_line(rs, line, n);
		}
		if (r == -EINVAL)
			return cv_error_plain(err, EINVAL, "`%s%s%s`, line %zu: bad pattern `%.*s`", dir_rel, sep, file,
					      lineno, (int)n, line);
		if (r < 0)
			return cv_error(err, -r, "`%s%s%s`, line %zu", dir_rel, sep, file, lineno);
	}
	return 0;
}

/* ---- matching ---- */

static const char *base_name(const char *path, size_t len)
{
	const char *s = path + len;
	while (s > path && s[-1] != '/')
		s--;
	return s;
}

/* Git's verdict on PATH alone (not its parents): 1 excluded, 0 not. */
static bool git_excluded(const cv_ignore *ig, const char *path, size_t len, bool is_dir)
{
	for (size_t k = ig->nsets; k-- > 0;) {
		const struct ruleset *rs = &ig->sets[k];
		const char *name = path;
		if (rs->dirlen) {
			if (len <= rs->dirlen || memcmp(path, rs->dir, rs->dirlen) != 0 || path[rs->dirlen] != '/')
				continue;
			name = path + rs->dirlen + 1;
		}
		size_t nlen = len - (size_t)(name - path);
		for (size_t i = rs->npats; i-- > 0;) {
			const struct pattern *p = &rs->pats[i];
			if (p->mustbedir && !is_dir)
				continue;
			const char *text = p->nodir ? base_name(name, nlen) : name;
			if (pattern_match_text(p, text, nlen - (size_t)(text - name)))
				return !p->negated;
		}
	}
	return false;
}

static bool docker_match_or_parent(const struct pattern *p, const char *path, size_t len)
{
	if (pattern_match_text(p, path, len))
		return true;
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/' && pattern_match_text(p, path, i))
			return true;
	return false;
}

static bool docker_excluded(const cv_ignore *ig, const char *path, size_t len)
{
	if (!ig->has_docker)
		return false;
	for (size_t i = ig->docker.npats; i-- > 0;)
		if (docker_match_or_parent(&ig->docker.pats[i], path, len))
			return !ig->docker.pats[i].negated;
	return false;
}

/* Whether an exception of the .dockerignore could match below the
 * directory PATH: its literal start agrees with PATH/ as far as both go. */
static bool docker_may_reinclude_below(const cv_ignore *ig, const char *path, size_t len)
{
	for (size_t i = 0; i < ig->docker.npats; i++) {
		const struct pattern *p = &ig->docker.pats[i];
		if (!p->negated)
			continue;
		size_t pl = strlen(p->prefix);
		size_t n = pl < len ? pl : len;
		if (memcmp(p->prefix, path, n) == 0 && (pl <= len || p->prefix[len] == '/'))
			return true;
	}
	return false;
}

bool cv_ignore_match(const cv_ignore *ig, const char *rel_path, bool is_dir)
{
	size_t len = strlen(rel_path);
	for (size_t i = 0; i < len; i++)
		if (rel_path[i] == '/' && git_excluded(ig, rel_path, i, true))
			return true;
	return git_excluded(ig, rel_path, len, is_dir) || docker_excluded(ig, rel_path, len);
}

/* ---- the walk ---- */

struct frame {
	int parent_fd;
	const char *name;
	size_t rel_len;
	struct stat st;
	bool emitted;
};

struct walk {
	cv_ignore *ig;
	cv_ignore_walk_fn cb;
	void *arg;
	char path[PATH_MAX];
	struct frame frames[CV_IGNORE_MAX_DEPTH + 1];
	int skip_to; /* > 0: a lazily visited directory at this depth asked to be skipped */
};

struct names {
	char **v;
	size_t n, cap;
};

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_dir(int dirfd, const char *rel, struct names *out, cv_error_t *err)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cleanup_dir DIR *d = NULL;

	if (fd < 0)
		return cv_error_errno(err, "open `%s`", rel[0] ? rel : ".");
	d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return cv_error(err, e, "open `%s`", rel[0] ? rel : ".");
	}
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (!de) {
			if (errno)
				return cv_error_errno(err, "read `%s`", rel[0] ? rel : ".");
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (out->n == out->cap) {
			size_t cap = out->cap ? out->cap * 2 : 16;
			char **v = reallocarray(out->v, cap, sizeof(*v));
			if (!v)
				return cv_error(err, ENOMEM, "read `%s`", rel[0] ? rel : ".");
			out->v = v;
			out->cap = cap;
		}
		if (!(out->v[out->n] = strdup(de->d_name)))
			return cv_error(err, ENOMEM, "read `%s`", rel[0] ? rel : ".");
		out->n++;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), name_cmp);
	return 0;
}

/* Reads DIRFD/NAME into the rules when it is a regular file; returns 1 when
 * rules were added for the directory REL (so the caller pops them). */
static int read_ignore_file(cv_ignore *ig, int dirfd, const char *rel, const char *name, enum cv_ignore_kind kind,
			    cv_error_t *err)
{
	cleanup_free char *data = NULL, *what = NULL;
	cleanup_close int fd = -1;
	struct stat st;
	size_t len;

	if (asprintf(&what, "`%s%s%s`", rel, rel[0] ? "/" : "", name) < 0) {
		what = NULL;
		return cv_error(err, ENOMEM, "read %s", name);
	}
	/* O_NONBLOCK: a FIFO must not block the open; not a regular file
	 * (a symlink, a FIFO): not read, as git does not follow a symlink */
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && (errno == ENOENT || errno == ELOOP))
		return 0;
	if (fd < 0)
		return cv_error_errno(err, "open %s", what);
	if (fstat(fd, &st) < 0)
		return cv_error_errno(err, "stat %s", what);
	if (!S_ISREG(st.st_mode))
		return 0;
	if (cv_read_fd(fd, what, CV_IGNORE_MAX_FILE, &data, &len, err) < 0 ||
	    cv_ignore_add(ig, rel, data, len, kind, err) < 0)
		return cv_error_ret(*err);
	return kind == CV_IGNORE_GITIGNORE;
}

static void pop_set(cv_ignore *ig, const char *rel)
{
	/* the walk adds sets in depth order: this directory's is the last */
	struct ruleset *rs = &ig->sets[ig->nsets - 1];
	if (strcmp(rs->dir, rel) == 0) {
		ruleset_clear(rs);
		ig->nsets--;
	}
}

/* Visits the directories above that were entered without being visited
 * (excluded by the .dockerignore, with an exception below). */
static int emit_pending(struct walk *w, int depth, cv_error_t *err)
{
	for (int k = 1; k <= depth; k++) {
		struct frame *f = &w->frames[k];
		if (f->emitted)
			continue;
		char saved = w->path[f->rel_len];
		w->path[f->rel_len] = '\0';
		int r = w->cb(w->arg, f->parent_fd, f->name, w->path, &f->st, err);
		w->path[f->rel_len] = saved;
		f->emitted = true;
		if (r < 0)
			return r;
		if (r == CV_IGNORE_WALK_SKIP) {
			w->skip_to = k;
			return 1;
		}
	}
	return 0;
}

static int walk_dir(struct walk *w, int dirfd, size_t rel_len, int depth, cv_error_t *err);

/* Enters the directory NAME of DIRFD, at w->path (LEN bytes), whose lstat
 * was ST, so long as it is still that directory. */
static int descend(struct walk *w, int dirfd, const char *name, size_t len, const struct stat *st, bool emitted,
		   int depth, cv_error_t *err)
{
	cleanup_close int fd = -1;
	struct stat now;
	int r;

	if (depth + 1 > CV_IGNORE_MAX_DEPTH)
		return cv_error_plain(err, ELOOP, "`%s`: deeper than %d directories", w->path, CV_IGNORE_MAX_DEPTH);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "open `%s`", w->path);
	if (fstat(fd, &now) < 0)
		return cv_error_errno(err, "stat `%s`", w->path);
	if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		return cv_error_plain(err, EAGAIN, "`%s`: replaced during the walk", w->path);
	w->frames[depth + 1] =
		(struct frame){ .parent_fd = dirfd, .name = name, .rel_len = len, .st = *st, .emitted = emitted };
	r = walk_dir(w, fd, len, depth + 1, err);
	return r;
}

static int walk_dir(struct walk *w, int dirfd, size_t rel_len, int depth, cv_error_t *err)
{
	__attribute__((cleanup(names_free))) struct names ns = { 0 };
	const char *rel = w->path;
	int pushed;

	w->path[rel_len] = '\0';
	pushed = read_ignore_file(w->ig, dirfd, rel, ".gitignore", CV_IGNORE_GITIGNORE, err);
	if (pushed < 0)
		return pushed;
	if (depth == 0 && read_ignore_file(w->ig, dirfd, rel, ".dockerignore", CV_IGNORE_DOCKERIGNORE, err) < 0)
		return cv_error_ret(*err);
	int r = list_dir(dirfd, rel, &ns, err);
	for (size_t i = 0; r >= 0 && i < ns.n; i++) {
		const char *name = ns.v[i];
		size_t nlen = strlen(name), len = rel_len + (rel_len > 0) + nlen;
		struct stat st;

		if (len >= sizeof(w->path)) {
			w->path[rel_len] = '\0';
			r = cv_error_plain(err, ENAMETOOLONG, "`%s/%s`: path longer than %zu bytes", rel, name,
					   sizeof(w->path) - 1);
			break;
		}
		if (rel_len > 0)
			w->path[rel_len] = '/';
		memcpy(w->path + len - nlen, name, nlen + 1);
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue; /* gone since the listing */
			r = cv_error_errno(err, "stat `%s`", w->path);
			break;
		}
		bool is_dir = S_ISDIR(st.st_mode), emitted = false;
		if (git_excluded(w->ig, w->path, len, is_dir))
			continue;
		if (!docker_excluded(w->ig, w->path, len)) {
			r = emit_pending(w, depth, err);
			if (r < 0)
				break;
			if (r > 0) {
				r = 0;
				break;
			}
			r = w->cb(w->arg, dirfd, name, w->path, &st, err);
			if (r < 0)
				break;
			if (!is_dir || r == CV_IGNORE_WALK_SKIP) {
				r = 0;
				continue;
			}
			emitted = true;
		} else if (!is_dir || !docker_may_reinclude_below(w->ig, w->path, len)) {
			continue;
		}
		r = descend(w, dirfd, name, len, &st, emitted, depth, err);
		if (r < 0)
			break;
		if (w->skip_to > 0 && w->skip_to <= depth)
			break;
	}
	w->path[rel_len] = '\0';
	if (w->skip_to == depth)
		w->skip_to = 0;
	if (pushed > 0)
		pop_set(w->ig, rel);
	return r < 0 ? r : 0;
}

int cv_ignore_walk(int dirfd, cv_ignore_walk_fn cb, void *arg, cv_error_t *err)
{
	cleanup_free struct walk *w = calloc(1, sizeof(*w));
	cleanup_ignore cv_ignore *ig = cv_ignore_new();

	if (!w || !ig)
		return cv_error(err, ENOMEM, "walk a directory tree");
	w->ig = ig;
	w->cb = cb;
	w->arg = arg;
	return walk_dir(w, dirfd, 0, 0, err);
}
