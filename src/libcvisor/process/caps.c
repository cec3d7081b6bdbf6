#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "process/caps.h"
#include "cleanup.h"
#include "log.h"

int cv_cap_from_name(const char *name)
{
	cap_value_t v;
	if (!name || strncasecmp(name, "CAP_", 4) != 0)
		return -1;
	/* cap_from_name also accepts plain numbers: names only here. */
	if (name[4] >= '0' && name[4] <= '9')
		return -1;
	if (cap_from_name(name, &v) < 0)
		return -1;
	return (int)v;
}

static int check_set(const oci_strv *set, const char *field, cv_error_t *err)
{
	for (size_t i = 0; i < set->len; i++)
		if (cv_cap_from_name(set->v[i]) < 0)
			return cv_error(err, EINVAL, "process.capabilities.%s: unknown capability \"%s\"", field,
					set->v[i]);
	return 0;
}

int cv_caps_validate(const oci_capabilities *caps, cv_error_t *err)
{
	int r;
	if (!caps)
		return 0;
	if ((r = check_set(&caps->bounding, "bounding", err)) < 0 ||
	    (r = check_set(&caps->effective, "effective", err)) < 0 ||
	    (r = check_set(&caps->inheritable, "inheritable", err)) < 0 ||
	    (r = check_set(&caps->permitted, "permitted", err)) < 0 ||
	    (r = check_set(&caps->ambient, "ambient", err)) < 0)
		return r;
	return 0;
}

static bool in_set(const oci_strv *set, int cap)
{
	for (size_t i = 0; i < set->len; i++)
		if (cv_cap_from_name(set->v[i]) == cap)
			return true;
	return false;
}

static void free_caps(cap_t *c)
{
	if (*c)
		cap_free(*c);
}

int cv_caps_drop_bounding(const oci_capabilities *caps, cv_error_t *err)
{
	static const oci_strv none = { 0 };
	const oci_strv *bounding = caps ? &caps->bounding : &none;
	int last = (int)cap_max_bits() - 1;

	for (int c = 0; c <= last; c++) {
		if (in_set(bounding, c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return cv_error_errno(err, "drop capability %d from the bounding set", c);
	}
	return 0;
}

int cv_caps_set(const oci_capabilities *caps, cv_error_t *err)
{
	__attribute__((cleanup(free_caps))) cap_t cur = cap_init();
	if (!cur)
		return cv_error_errno(err, "cap_init");
	if (caps) {
		const struct {
			const oci_strv *set;
			cap_flag_t flag;
		} sets[] = { { &caps->effective, CAP_EFFECTIVE },
			     { &caps->permitted, CAP_PERMITTED },
			     { &caps->inheritable, CAP_INHERITABLE } };
		for (size_t s = 0; s < 3; s++)
			for (size_t i = 0; i < sets[s].set->len; i++) {
				cap_value_t v = cv_cap_from_name(sets[s].set->v[i]);
				if (v < 0)
					return cv_error(err, EINVAL, "unknown capability \"%s\"", sets[s].set->v[i]);
				if (cap_set_flag(cur, sets[s].flag, 1, &v, CAP_SET) < 0)
					return cv_error_errno(err, "capability %s", sets[s].set->v[i]);
			}
	}
	if (cap_set_proc(cur) < 0)
		return cv_error_errno(err, "set capabilities");

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return cv_error_errno(err, "clear ambient capabilities");
	if (caps)
		for (size_t i = 0; i < caps->ambient.len; i++) {
			int v = cv_cap_from_name(caps->ambient.v[i]);
			/* The kernel refuses an ambient cap missing from permitted or
			 * inheritable (runc's default config lists ambient ones
			 * and no inheritable): runc and crun skip it silently,
			 * and configs written for them rely on that. */
			if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, v, 0, 0) < 0)
				cv_debug("ambient capability %s not raised: %s", caps->ambient.v[i], strerror(errno));
		}
	return 0;
}
