/* The systemd cgroup driver's cgroupsPath ("slice:prefix:name") and the
 * check that systemd runs at all. Creating the transient scope over D-Bus is
 * not implemented: where systemd runs, asking for it fails with a message
 * saying so. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroups-internal.h"

void cv_cg_systemd_path_clear(struct cv_cg_systemd_path *p)
{
	free(p->slice);
	free(p->prefix);
	free(p->name);
	free(p->unit);
	*p = (struct cv_cg_systemd_path){ 0 };
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool valid_part(const char *s)
{
	return !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

int cv_cg_systemd_parse(const char *cgroups_path, const char *id, struct cv_cg_systemd_path *out,
			cv_error_t *err)
{
	const char *c1, *c2;
	const char *slice, *prefix, *name;
	size_t ls, lp;

	*out = (struct cv_cg_systemd_path){ 0 };
	if (!cgroups_path || !*cgroups_path) {
		if (!id || !*id)
			return cv_error(err, EINVAL, "linux.cgroupsPath: empty, and no container id");
		out->slice = strdup("system.slice");
		out->prefix = strdup("cvisor");
		out->name = strdup(id);
	} else {
		c1 = strchr(cgroups_path, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c1 || !c2 || strchr(c2 + 1, ':'))
			return cv_error(err, EINVAL,
					"linux.cgroupsPath \"%s\": the systemd cgroup driver expects \"slice:prefix:name\"",
					cgroups_path);
		ls = c1 - cgroups_path;
		lp = c2 - c1 - 1;
		out->slice = ls ? strndup(cgroups_path, ls) : strdup("system.slice");
		out->prefix = strndup(c1 + 1, lp);
		out->name = strdup(c2 + 1);
	}
	if (!out->slice || !out->prefix || !out->name) {
		cv_cg_systemd_path_clear(out);
		return cv_error(err, ENOMEM, "systemd cgroup path");
	}
	slice = out->slice;
	prefix = out->prefix;
	name = out->name;
	if (!*name || !valid_part(slice) || !valid_part(prefix) || !valid_part(name) || !ends_with(slice, ".slice")) {
		int r = cv_error(err, EINVAL,
				 "linux.cgroupsPath \"%s\": invalid systemd path (the slice must end in \".slice\", the name must not be empty, no \"/\")",
				 cgroups_path ? cgroups_path : "");
		cv_cg_systemd_path_clear(out);
		return r;
	}
	if (ends_with(name, ".slice") || ends_with(name, ".scope"))
		out->unit = strdup(name);
	else if (*prefix) {
		if (asprintf(&out->unit, "%s-%s.scope", prefix, name) < 0)
			out->unit = NULL;
	} else if (asprintf(&out->unit, "%s.scope", name) < 0)
		out->unit = NULL;
	if (!out->unit) {
		cv_cg_systemd_path_clear(out);
		return cv_error(err, ENOMEM, "systemd cgroup path");
	}
	return 0;
}

int cv_cg_systemd_check(cv_error_t *err)
{
	struct stat st;

	/* systemd's own test (sd_booted): it creates this directory at boot. */
	if (lstat("/run/systemd/system", &st) < 0 || !S_ISDIR(st.st_mode))
		return cv_error(err, ENOTSUP, "systemd cgroup driver requested but systemd is not running");
	return cv_error(err, ENOTSUP,
			"systemd cgroup driver: creating the container's transient scope over D-Bus is not implemented; "
			"run without --systemd-cgroup (cgroupfs driver)");
}
