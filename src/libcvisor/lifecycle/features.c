/* cvisor_features_json (`cvisor features`): the runtime-spec features
 * document; cvisor_versions (`cvisor --version`): what the library is built
 * on.
 *
 * The tables below list ONLY what cvisor implements. Whoever adds or removes
 * support in a module updates the matching table here (and the `features`
 * test in tests/integration/cli.bats when it names the entry):
 *   hooks           src/libcvisor/lifecycle/hooks.c
 *   mount options   src/libcvisor/fs/mounts.c (the option table)
 *   namespaces      src/libcvisor/process/namespaces.c
 *   seccomp         src/libcvisor/seccomp/seccomp.c (actions, operators, archs, flags)
 *   cgroup          src/libcvisor/cgroups/
 * Capabilities come from libcap at run time: every capability it knows. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <seccomp.h>
#include <sys/capability.h>

#include "cleanup.h"
#include "cvisor.h"
#include "oci/features.h"
#include "oci/json.h"
#include "oci/spec.h"

static const char *const hooks[] = {
	"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop",
};

static const char *const mount_options[] = {
	"ro",          "rw",          "nosuid",       "suid",
	"nodev",       "dev",         "noexec",       "exec",
	"nodiratime",  "diratime",    "noatime",      "atime",
	"relatime",    "norelatime",  "strictatime",  "nostrictatime",
	"rro",         "rrw",         "rnosuid",      "rsuid",
	"rnodev",      "rdev",        "rnoexec",      "rexec",
	"rnodiratime", "rdiratime",   "rnoatime",     "ratime",
	"rrelatime",   "rnorelatime", "rstrictatime", "rnostrictatime",
	"sync",        "async",       "dirsync",      "mand",
	"nomand",      "lazytime",    "nolazytime",   "silent",
	"loud",        "bind",        "rbind",        "private",
	"rprivate",    "shared",      "rshared",      "slave",
	"rslave",      "unbindable",  "runbindable",  "remount",
	"idmap",       "ridmap",      "notmpcopyup",
};

static const char *const namespaces[] = {
	"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts",
};

static const char *const seccomp_actions[] = {
	"SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO",  "SCMP_ACT_KILL",  "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
	"SCMP_ACT_LOG",   "SCMP_ACT_NOTIFY", "SCMP_ACT_TRACE", "SCMP_ACT_TRAP",
};

static const char *const seccomp_operators[] = {
	"SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_LE", "SCMP_CMP_LT", "SCMP_CMP_MASKED_EQ", "SCMP_CMP_NE",
};

static const char *const seccomp_archs[] = {
	"SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM",      "SCMP_ARCH_MIPS",        "SCMP_ARCH_MIPS64",  "SCMP_ARCH_MIPS64N32",
	"SCMP_ARCH_MIPSEL",  "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PARISC",  "SCMP_ARCH_PARISC64",
	"SCMP_ARCH_PPC",     "SCMP_ARCH_PPC64",    "SCMP_ARCH_PPC64LE",     "SCMP_ARCH_RISCV64", "SCMP_ARCH_S390",
	"SCMP_ARCH_S390X",   "SCMP_ARCH_X32",      "SCMP_ARCH_X86",         "SCMP_ARCH_X86_64",
};

static const char *const seccomp_flags[] = {
	"SECCOMP_FILTER_FLAG_TSYNC",
	"SECCOMP_FILTER_FLAG_LOG",
	"SECCOMP_FILTER_FLAG_SPEC_ALLOW",
	"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV",
};

static const char rootless_note[] = "a non-root caller gets its user namespace maps from newuidmap and newgidmap "
				    "(/etc/subuid, /etc/subgid), or maps its own uid and gid alone; the container has "
				    "cgroups only where the caller may create them (delegated), and linux.resources "
				    "then fail";

/* "CAP_CHOWN", ... for every capability libcap knows (cap_max_bits). */
static int capability_names(char ***out, size_t *n, cv_error_t *err)
{
	unsigned max = (unsigned)cap_max_bits();
	cleanup_strv char **v = calloc(max + 1, sizeof(*v));
	size_t len = 0;

	if (!v)
		return cv_error(err, ENOMEM, "features");
	for (unsigned c = 0; c < max; c++) {
		char *name = cap_to_name((cap_value_t)c);
		if (!name)
			return cv_error(err, ENOMEM, "features");
		/* Unnamed capabilities come back as a bare number: skip them. */
		if (strncmp(name, "cap_", 4) != 0) {
			cap_free(name);
			continue;
		}
		v[len] = strdup(name);
		cap_free(name);
		if (!v[len])
			return cv_error(err, ENOMEM, "features");
		for (char *p = v[len]; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		len++;
	}
	*n = len;
	*out = steal_pointer(&v);
	return 0;
}

int cvisor_features_json(const char *build_features, char **json, cvisor_error **err)
{
	cleanup_strv char **caps = NULL;
	oci_features f = { 0 };
	size_t ncaps = 0, len = 0;
	int r;

	if (!json)
		return cv_error(err, EINVAL, "features: json is NULL");
	if ((r = capability_names(&caps, &ncaps, err)) < 0)
		return r;

	/* runc's libseccomp key, and what this build does beyond the spec's fields */
	const struct scmp_version *sv = seccomp_version();
	char seccomp_v[32] = "";
	if (sv)
		snprintf(seccomp_v, sizeof(seccomp_v), "%u.%u.%u", sv->major, sv->minor, sv->micro);
	oci_ckv annotations[4];
	size_t n = 0;
	if (sv)
		annotations[n++] = (oci_ckv){ "io.github.seccomp.libseccomp.version", seccomp_v };
	annotations[n++] = (oci_ckv){ "org.cvisor.version", PACKAGE_VERSION };
	if (build_features)
		annotations[n++] = (oci_ckv){ "org.cvisor.features", build_features };
	annotations[n++] = (oci_ckv){ "org.cvisor.rootless", rootless_note };
	f.annotations = annotations;
	f.annotations_len = n;
	f.oci_version_min = "1.0.0";
	f.oci_version_max = OCI_VERSION;
	f.hooks = OCI_CSTRV(hooks);
	f.mount_options = OCI_CSTRV(mount_options);
	f.has_linux = true;
	f.linux_.namespaces = OCI_CSTRV(namespaces);
	f.linux_.capabilities = (oci_cstrv){ .v = (const char *const *)caps, .len = ncaps, .set = true };
	f.linux_.cgroup.present = true;
	f.linux_.cgroup.v1 = (oci_opt_bool){ true, true };
	f.linux_.cgroup.v2 = (oci_opt_bool){ true, true };
	f.linux_.cgroup.systemd = (oci_opt_bool){ true, true };
	f.linux_.cgroup.systemd_user = (oci_opt_bool){ true, true };
	f.linux_.seccomp.present = true;
	f.linux_.seccomp.enabled = (oci_opt_bool){ true, true };
	f.linux_.seccomp.actions = OCI_CSTRV(seccomp_actions);
	f.linux_.seccomp.operators = OCI_CSTRV(seccomp_operators);
	f.linux_.seccomp.archs = OCI_CSTRV(seccomp_archs);
	f.linux_.seccomp.known_flags = OCI_CSTRV(seccomp_flags);
	f.linux_.seccomp.supported_flags = OCI_CSTRV(seccomp_flags);
	f.linux_.apparmor.present = true;
	f.linux_.apparmor.enabled = (oci_opt_bool){ true, true };
	f.linux_.selinux.present = true;
	f.linux_.selinux.enabled = (oci_opt_bool){ true, true };
	f.linux_.memory_policy.present = true;
	/* MPOL_WEIGHTED_INTERLEAVE and MPOL_F_NUMA_BALANCING only work where
	 * the kernel has them (process/mempolicy.c) */
	f.linux_.memory_policy.modes = (oci_cstrv){ .v = oci_mpol_modes, .len = OCI_MPOL_MODES_LEN, .set = true };
	f.linux_.memory_policy.flags = (oci_cstrv){ .v = oci_mpol_flags, .len = OCI_MPOL_FLAGS_LEN, .set = true };
	f.linux_.mount_extensions.present = true;
	f.linux_.mount_extensions.idmap_present = true;
	f.linux_.mount_extensions.idmap_enabled = (oci_opt_bool){ true, true };

	return oci_features_emit(&f, true, json, &len, err);
}

int cvisor_versions(char **text, cvisor_error **err)
{
	const struct scmp_version *sv = seccomp_version();
	int y = oci_yajl_version();
	char seccomp_v[64] = "";

	if (!text)
		return cv_error(err, EINVAL, "versions: text is NULL");
	if (sv)
		snprintf(seccomp_v, sizeof(seccomp_v), "libseccomp: %u.%u.%u\n", sv->major, sv->minor, sv->micro);
	if (asprintf(text, "spec: %s\nyajl: %d.%d.%d\n%slibcap: %s\n", OCI_VERSION, y / 10000, y / 100 % 100, y % 100,
		     seccomp_v, CV_LIBCAP_VERSION) < 0) {
		*text = NULL;
		return cv_error(err, ENOMEM, "versions");
	}
	return 0;
}
