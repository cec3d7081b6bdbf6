/* The runtime-spec "features" document (`cvisor features`). The CLI fills
 * the struct, usually from static tables; oci/ only emits it. Nothing here
 * is owned: strings and arrays are borrowed from the caller. Optional
 * objects are written only when their `present` flag is set, optional
 * booleans and lists only when `set`. */
#ifndef CVISOR_OCI_FEATURES_H
#define CVISOR_OCI_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "spec.h"

typedef struct {
	const char *const *v;
	size_t len;
	bool set;
} oci_cstrv;

typedef struct {
	const char *key;
	const char *value;
} oci_ckv;

typedef struct {
	const char *oci_version_min; /* required */
	const char *oci_version_max; /* required */
	oci_cstrv hooks;
	oci_cstrv mount_options;
	const oci_ckv *annotations;
	size_t annotations_len;
	oci_cstrv potentially_unsafe_config_annotations;

	bool has_linux;
	struct {
		oci_cstrv namespaces;
		oci_cstrv capabilities;
		struct {
			bool present;
			oci_opt_bool v1, v2, systemd, systemd_user, rdma;
		} cgroup;
		struct {
			bool present;
			oci_opt_bool enabled;
			oci_cstrv actions, operators, archs, known_flags, supported_flags;
		} seccomp;
		struct {
			bool present;
			oci_opt_bool enabled;
		} apparmor, selinux, net_devices;
		struct {
			bool present;
			oci_opt_bool enabled, schemata, monitoring;
		} intel_rdt;
		struct {
			bool present;
			oci_cstrv modes, flags;
		} memory_policy;
		struct {
			bool present;
			bool idmap_present;
			oci_opt_bool idmap_enabled;
		} mount_extensions;
	} linux_;
} oci_features;

/* Emits the features document (pretty: tab-indented like `runc features`). */
int oci_features_emit(const oci_features *f, bool pretty, char **out, size_t *out_len, cv_error_t *err);

/* Convenience for static tables: OCI_CSTRV(array) */
#define OCI_CSTRV(arr) ((oci_cstrv){ .v = (arr), .len = sizeof(arr) / sizeof((arr)[0]), .set = true })

#endif
