/* Finding a helper program (slirp4netns, newuidmap) the way execvp does. */
#ifndef CVISOR_FIND_PROGRAM_H
#define CVISOR_FIND_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

/* The PATH used when the environment has none (and the sandbox's default). */
#define CV_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Writes the absolute path of the first executable NAME in $PATH (or
 * CV_DEFAULT_PATH) to BUF; false when there is none. Relative entries of
 * PATH are skipped. */
bool cv_find_program(const char *name, char *buf, size_t size);

#endif
