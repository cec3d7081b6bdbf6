/* Internals of the seccomp module shared between its files and unit tests. */
#ifndef CVISOR_SECCOMP_INTERNAL_H
#define CVISOR_SECCOMP_INTERNAL_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "oci/spec.h"

struct cv_seccomp {
	unsigned int flags; /* seccomp(2) SECCOMP_SET_MODE_FILTER flags */
	bool has_notify;
	struct sock_filter *insns; /* the program, ready for seccomp(2) */
	size_t len;                /* instructions */
};

/* Name -> value maps; -1 when NAME is unknown. */
int cv_seccomp_arch_from_name(const char *name, uint32_t *arch);
int cv_seccomp_flag_from_name(const char *name, unsigned long *flag);
int cv_seccomp_op_from_name(const char *name, int *op);
/* FIELD names the JSON path in error messages. */
int cv_seccomp_action_from_name(const char *name, const oci_opt_u32 *errno_ret, uint32_t *action, const char *field,
				cv_error_t *err);

/* Canonical serialization of everything the compiled program depends on
 * (profile, libseccomp, kernel, our version): the cache key. */
int cv_seccomp_cache_key(const oci_seccomp *p, char **out, size_t *out_len);
/* 0 and F filled on a hit; <0 (-errno) on a miss or an unusable entry. */
int cv_seccomp_cache_lookup(const char *key, size_t key_len, struct cv_seccomp *f);
int cv_seccomp_cache_store(const char *key, size_t key_len, const struct cv_seccomp *f);

#endif
