/* /etc/passwd lookups without NSS (see passwd.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "process/passwd.h"

bool cv_passwd_line_match(char *line, uid_t uid, const char **name, const char **home)
{
	char *f[7];
	size_t n = 0;
	char *p = line;
	line[strcspn(line, "\n")] = '\0';
	for (; n < 7; n++) {
		f[n] = p;
		char *colon = strchr(p, ':');
		if (!colon)
			break;
		*colon = '\0';
		p = colon + 1;
	}
	/* seven fields, the last without a colon after it */
	if (n != 6 || !*f[0] || !*f[2])
		return false;
	char *end;
	errno = 0;
	unsigned long v = strtoul(f[2], &end, 10);
	if (errno || *end || f[2][0] == '-' || v != (unsigned long)uid)
		return false;
	*name = f[0];
	*home = f[5];
	return true;
}

int cv_passwd_by_uid(const char *path, uid_t uid, char **name, char **home)
{
	cleanup_fclose FILE *f = fopen(path ? path : "/etc/passwd", "re");
	if (!f)
		return 0;
	cleanup_free char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		const char *n, *h;
		if (!cv_passwd_line_match(line, uid, &n, &h))
			continue;
		cleanup_free char *dn = name ? strdup(n) : NULL, *dh = home ? strdup(h) : NULL;
		if ((name && !dn) || (home && !dh))
			return -1;
		if (name)
			*name = steal_pointer(&dn);
		if (home)
			*home = steal_pointer(&dh);
		return 1;
	}
	return 0;
}
