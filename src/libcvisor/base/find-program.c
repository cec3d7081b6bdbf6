#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "find-program.h"

bool cv_find_program(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = CV_DEFAULT_PATH;
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		if (n > 0 && p[0] == '/') {
			int w = snprintf(buf, size, "%.*s/%s", (int)n, p, name);
			if (w > 0 && (size_t)w < size && access(buf, X_OK) == 0)
				return true;
		}
		p += n + (p[n] == ':');
	}
	return false;
}
