/* Unit tests for src/libcvisor/process/passwd.c: /etc/passwd lines and lookups. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "process/passwd.h"
#include "tap.h"

static bool match(const char *line, uid_t uid, const char *want_name, const char *want_home)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", line);
	const char *n = NULL, *h = NULL;
	if (!cv_passwd_line_match(buf, uid, &n, &h))
		return want_name == NULL;
	return want_name && !strcmp(n, want_name) && !strcmp(h, want_home);
}

int main(void)
{
	ok(match("root:x:0:0:root:/root:/bin/bash\n", 0, "root", "/root"), "root's line");
	ok(match("u:x:1000:1000::/home/u:", 1000, "u", "/home/u"), "empty gecos and shell");
	ok(match("u:x:1000:1000::/home/u:/bin/sh", 1001, NULL, NULL), "another uid");
	ok(match("u:x:1000:1000::/home/u", 1000, NULL, NULL), "six fields: refused");
	ok(match("u:x:1000:1000::/home/u:/bin/sh:extra", 1000, NULL, NULL), "eight fields: refused");
	ok(match("u:x:10x0:1000::/home/u:/bin/sh", 1000, NULL, NULL), "a uid that is not a number");
	ok(match("u:x:-1:1000::/home/u:/bin/sh", (uid_t)-1, NULL, NULL), "a negative uid");
	ok(match(":x:0:0::/:/bin/sh", 0, NULL, NULL), "an empty name");
	ok(match("u:x::0::/:/bin/sh", 0, NULL, NULL), "an empty uid");
	ok(match("+nis::::::", 0, NULL, NULL), "a NIS compat line");

	char path[] = "/tmp/cvisor-test-passwd-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return 1;
	fputs("# comment\nbroken line\nroot:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
	      f);
	fclose(f);
	char *name = NULL, *home = NULL;
	ok(cv_passwd_by_uid(path, 65534, &name, &home) == 1 && name && !strcmp(name, "nobody") && home &&
		   !strcmp(home, "/nonexistent"),
	   "lookup past a comment and a broken line");
	free(name);
	free(home);
	name = NULL;
	ok(cv_passwd_by_uid(path, 4242, &name, NULL) == 0 && !name, "a uid that is not there: 0");
	ok(cv_passwd_by_uid("/nonexistent/passwd", 0, &name, NULL) == 0, "an unreadable file: 0");
	unlink(path);
	return tap_done();
}
