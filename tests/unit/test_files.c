/* files module: cache key rules and archive format names (pure logic; the
 * archives and the backends are exercised by tests/integration/archive.bats). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "files/archive.h"
#include "files/cache.h"
#include "tap.h"

static int key(const char *k)
{
	cv_error_t err = NULL;
	int r = cv_cache_key_validate(k, &err);
	cv_error_release(&err);
	return r;
}

int main(void)
{
	const char *good[] = { "k", "proj/deps-1.2_x", "a/b/c/d", "A-Z.0-9", "x..y", "v1.tar" };
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ok(key(good[i]) == 0, "key `%s` accepted", good[i]);
	const char *bad[] = { "",           "/abs",        "trailing/", "a//b",    "..",   "../x",   "a/../b",
			      "a/..",       ".",           "./a",       ".hidden", "a/.b", "sp ace", "del\x7f",
			      "semi;colon", "back\\slash", "q?x",       "%2e%2e",  "é" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ok(key(bad[i]) == -EINVAL, "key `%s` refused", bad[i]);
	ok(key(NULL) == -EINVAL, "a NULL key is refused");
	char longkey[CV_CACHE_KEY_MAX + 2];
	memset(longkey, 'k', sizeof(longkey) - 1);
	longkey[CV_CACHE_KEY_MAX] = '\0';
	ok(key(longkey) == 0, "a key of %d bytes is accepted", CV_CACHE_KEY_MAX);
	longkey[CV_CACHE_KEY_MAX] = 'k';
	longkey[CV_CACHE_KEY_MAX + 1] = '\0';
	ok(key(longkey) == -EINVAL, "a key of %d bytes is refused", CV_CACHE_KEY_MAX + 1);

	cv_error_t err = NULL;
	cv_cache_key_validate("a/../b", &err);
	is_str(err ? err->msg : NULL,
	       "cache key `a/../b`: a component starts with `.` (no `.` or `..`): Invalid argument",
	       "the message names the key and the rule");
	cv_error_release(&err);
	cv_cache_key_validate("a\tb", &err);
	is_str(err ? err->msg : NULL,
	       "cache key: byte 0x09 at offset 1 not allowed (letters, digits, `.`, `_`, `-`, `/`): Invalid argument",
	       "a bad byte is named, not printed");
	cv_error_release(&err);

	enum cv_archive_format f = CV_ARCHIVE_NONE;
	ok(cv_archive_format_parse(NULL, &f, &err) == 0 && f == CV_ARCHIVE_GZIP, "no format: gzip");
	ok(cv_archive_format_parse("", &f, &err) == 0 && f == CV_ARCHIVE_GZIP, "empty format: gzip");
	ok(cv_archive_format_parse("zstd", &f, &err) == 0 && f == CV_ARCHIVE_ZSTD, "zstd");
	ok(cv_archive_format_parse("none", &f, &err) == 0 && f == CV_ARCHIVE_NONE, "none");
	is_str(cv_archive_format_suffix(CV_ARCHIVE_ZSTD), ".tar.zst", "zstd's suffix");
	ok(cv_archive_format_parse("estargz", &f, &err) == -EOPNOTSUPP, "estargz: EOPNOTSUPP");
	cv_error_release(&err);
	ok(cv_archive_format_parse("GZIP", &f, &err) == -EINVAL && strstr(err->msg, "`GZIP`"),
	   "an unknown format is EINVAL, named");
	cv_error_release(&err);
	return tap_done();
}
