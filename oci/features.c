/* Emitter of the runtime-spec features document (features.md,
 * features-linux.md). */
#include "config.h"

#include "features.h"
#include "json.h"

static void kcstrv(jw *w, const char *key, const oci_cstrv *v)
{
	if (!v->set && v->len == 0)
		return;
	jw_key(w, key);
	jw_aopen(w);
	for (size_t i = 0; i < v->len; i++)
		jw_str(w, v->v[i]);
	jw_aclose(w);
}

static void enabled_obj(jw *w, const char *key, bool present, oci_opt_bool enabled)
{
	if (!present)
		return;
	jw_key(w, key);
	jw_open(w);
	jw_kopt_bool(w, "enabled", enabled);
	jw_close(w);
}

int oci_features_emit(const oci_features *f, bool pretty, char **out, size_t *out_len, cv_error_t *err)
{
	if (!f->oci_version_min || !f->oci_version_max)
		return cv_error(err, 0, "features: ociVersionMin and ociVersionMax are required");
	jw w;
	int r = jw_init(&w, pretty, err);
	if (r < 0)
		return r;
	jw_open(&w);
	jw_kstr(&w, "ociVersionMin", f->oci_version_min);
	jw_kstr(&w, "ociVersionMax", f->oci_version_max);
	kcstrv(&w, "hooks", &f->hooks);
	kcstrv(&w, "mountOptions", &f->mount_options);
	if (f->has_linux) {
		const __typeof__(f->linux_) *l = &f->linux_;
		jw_key(&w, "linux");
		jw_open(&w);
		kcstrv(&w, "namespaces", &l->namespaces);
		kcstrv(&w, "capabilities", &l->capabilities);
		if (l->cgroup.present) {
			jw_key(&w, "cgroup");
			jw_open(&w);
			jw_kopt_bool(&w, "v1", l->cgroup.v1);
			jw_kopt_bool(&w, "v2", l->cgroup.v2);
			jw_kopt_bool(&w, "systemd", l->cgroup.systemd);
			jw_kopt_bool(&w, "systemdUser", l->cgroup.systemd_user);
			jw_kopt_bool(&w, "rdma", l->cgroup.rdma);
			jw_close(&w);
		}
		if (l->seccomp.present) {
			jw_key(&w, "seccomp");
			jw_open(&w);
			jw_kopt_bool(&w, "enabled", l->seccomp.enabled);
			kcstrv(&w, "actions", &l->seccomp.actions);
			kcstrv(&w, "operators", &l->seccomp.operators);
			kcstrv(&w, "archs", &l->seccomp.archs);
			kcstrv(&w, "knownFlags", &l->seccomp.known_flags);
			kcstrv(&w, "supportedFlags", &l->seccomp.supported_flags);
			jw_close(&w);
		}
		enabled_obj(&w, "apparmor", l->apparmor.present, l->apparmor.enabled);
		enabled_obj(&w, "selinux", l->selinux.present, l->selinux.enabled);
		if (l->intel_rdt.present) {
			jw_key(&w, "intelRdt");
			jw_open(&w);
			jw_kopt_bool(&w, "enabled", l->intel_rdt.enabled);
			jw_kopt_bool(&w, "schemata", l->intel_rdt.schemata);
			jw_kopt_bool(&w, "monitoring", l->intel_rdt.monitoring);
			jw_close(&w);
		}
		if (l->memory_policy.present) {
			jw_key(&w, "memoryPolicy");
			jw_open(&w);
			kcstrv(&w, "modes", &l->memory_policy.modes);
			kcstrv(&w, "flags", &l->memory_policy.flags);
			jw_close(&w);
		}
		if (l->mount_extensions.present) {
			jw_key(&w, "mountExtensions");
			jw_open(&w);
			if (l->mount_extensions.idmap_present) {
				jw_key(&w, "idmap");
				jw_open(&w);
				jw_kopt_bool(&w, "enabled", l->mount_extensions.idmap_enabled);
				jw_close(&w);
			}
			jw_close(&w);
		}
		enabled_obj(&w, "netDevices", l->net_devices.present, l->net_devices.enabled);
		jw_close(&w);
	}
	if (f->annotations_len) {
		jw_key(&w, "annotations");
		jw_open(&w);
		for (size_t i = 0; i < f->annotations_len; i++) {
			jw_key(&w, f->annotations[i].key);
			jw_str(&w, f->annotations[i].value);
		}
		jw_close(&w);
	}
	kcstrv(&w, "potentiallyUnsafeConfigAnnotations", &f->potentially_unsafe_config_annotations);
	jw_close(&w);
	r = jw_finish(&w, out, out_len, err);
	jw_release(&w);
	return r;
}
