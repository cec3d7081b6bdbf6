/* Scope-bound release of resources, in the style of systemd and crun.
 * Ownership moves out of a cleanup variable by setting it to NULL / -1
 * (steal_pointer / steal_fd). Every destructor accepts the empty value. */
#ifndef CVISOR_CLEANUP_H
#define CVISOR_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cv_freep(void *p)
{
	free(*(void **)p);
}
/* Also called by hand (cv_closep(&r->in)) on an fd a loop or a later
 * cleanup still looks at: it must read -1 afterwards, or a second close
 * would hit whatever another thread opened under the same number. */
static inline void cv_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		(void)close(*fd); /* nothing useful to do on close failure here */
		*fd = -1;
		errno = saved;
	}
}
static inline void cv_fclosep(FILE **f)
{
	if (*f)
		(void)fclose(*f);
}
static inline void cv_closedirp(DIR **d)
{
	if (*d)
		(void)closedir(*d);
}
static inline void cv_strv_freep(char ***v)
{
	if (*v) {
		for (char **p = *v; *p; p++)
			free(*p);
		free(*v);
	}
}

#define cleanup_free __attribute__((cleanup(cv_freep)))
#define cleanup_close __attribute__((cleanup(cv_closep)))
#define cleanup_fclose __attribute__((cleanup(cv_fclosep)))
#define cleanup_dir __attribute__((cleanup(cv_closedirp)))
#define cleanup_strv __attribute__((cleanup(cv_strv_freep)))

#define steal_pointer(pp)                                                                                              \
	({                                                                                                             \
		__typeof__(*(pp)) _p = *(pp);                                                                          \
		*(pp) = NULL;                                                                                          \
		_p;                                                                                                    \
	})
#define steal_fd(fdp)                                                                                                  \
	({                                                                                                             \
		int _fd = *(fdp);                                                                                      \
		*(fdp) = -1;                                                                                           \
		_fd;                                                                                                   \
	})

#endif
