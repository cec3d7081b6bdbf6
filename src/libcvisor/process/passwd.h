/* The host's user database, read from /etc/passwd itself. cvisor is linked
 * statically, and glibc's getpwuid() there would load NSS modules built for
 * the shared libc. Users known only to another NSS service (LDAP, sssd) are
 * not found: callers fall back to the numeric id. */
#ifndef CVISOR_PASSWD_H
#define CVISOR_PASSWD_H

#include <stdbool.h>
#include <sys/types.h>

/* One line "name:x:uid:gid:gecos:home:shell": true when it is well formed
 * and its uid is UID; then *name and *home point into LINE (modified). */
bool cv_passwd_line_match(char *line, uid_t uid, const char **name, const char **home);

/* Looks UID up in PATH (NULL: /etc/passwd). 1 and malloc'd *name / *home
 * (either pointer may be NULL) when found, 0 when not (or unreadable), -1
 * when out of memory. */
int cv_passwd_by_uid(const char *path, uid_t uid, char **name, char **home);

#endif
