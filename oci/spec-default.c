/* The config `cvisor spec` writes: the same starting point as `runc spec`
 * (a shell in a read-only busybox-style rootfs with a minimal capability
 * set), and for --rootless the changes `runc spec --rootless` makes. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "json.h"
#include "spec.h"

static const char default_config[] =
	"{"
	"\"ociVersion\":\"" OCI_VERSION "\","
	"\"process\":{"
	"\"terminal\":true,"
	"\"user\":{\"uid\":0,\"gid\":0},"
	"\"args\":[\"sh\"],"
	"\"env\":[\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\",\"TERM=xterm\"],"
	"\"cwd\":\"/\","
	"\"capabilities\":{"
	"\"bounding\":[\"CAP_AUDIT_WRITE\",\"CAP_KILL\",\"CAP_NET_BIND_SERVICE\"],"
	"\"effective\":[\"CAP_AUDIT_WRITE\",\"CAP_KILL\",\"CAP_NET_BIND_SERVICE\"],"
	"\"permitted\":[\"CAP_AUDIT_WRITE\",\"CAP_KILL\",\"CAP_NET_BIND_SERVICE\"]"
	"},"
	"\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1024,\"soft\":1024}],"
	"\"noNewPrivileges\":true"
	"},"
	"\"root\":{\"path\":\"rootfs\",\"readonly\":true},"
	"\"hostname\":\"cvisor\","
	"\"mounts\":["
	"{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"
	"{\"destination\":\"/dev\",\"type\":\"tmpfs\",\"source\":\"tmpfs\","
	"\"options\":[\"nosuid\",\"strictatime\",\"mode=755\",\"size=65536k\"]},"
	"{\"destination\":\"/dev/pts\",\"type\":\"devpts\",\"source\":\"devpts\","
	"\"options\":[\"nosuid\",\"noexec\",\"newinstance\",\"ptmxmode=0666\",\"mode=0620\",\"gid=5\"]},"
	"{\"destination\":\"/dev/shm\",\"type\":\"tmpfs\",\"source\":\"shm\","
	"\"options\":[\"nosuid\",\"noexec\",\"nodev\",\"mode=1777\",\"size=65536k\"]},"
	"{\"destination\":\"/dev/mqueue\",\"type\":\"mqueue\",\"source\":\"mqueue\","
	"\"options\":[\"nosuid\",\"noexec\",\"nodev\"]},"
	"{\"destination\":\"/sys\",\"type\":\"sysfs\",\"source\":\"sysfs\","
	"\"options\":[\"nosuid\",\"noexec\",\"nodev\",\"ro\"]},"
	"{\"destination\":\"/sys/fs/cgroup\",\"type\":\"cgroup\",\"source\":\"cgroup\","
	"\"options\":[\"nosuid\",\"noexec\",\"nodev\",\"relatime\",\"ro\"]}"
	"],"
	"\"linux\":{"
	"\"resources\":{\"devices\":[{\"allow\":false,\"access\":\"rwm\"}]},"
	"\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"network\"},{\"type\":\"ipc\"},"
	"{\"type\":\"uts\"},{\"type\":\"mount\"},{\"type\":\"cgroup\"}],"
	"\"maskedPaths\":[\"/proc/acpi\",\"/proc/asound\",\"/proc/kcore\",\"/proc/keys\","
	"\"/proc/latency_stats\",\"/proc/timer_list\",\"/proc/timer_stats\",\"/proc/sched_debug\","
	"\"/sys/firmware\",\"/proc/scsi\"],"
	"\"readonlyPaths\":[\"/proc/bus\",\"/proc/fs\",\"/proc/irq\",\"/proc/sys\",\"/proc/sysrq-trigger\"]"
	"}"
	"}";

static int set_single_mapping(oci_id_mappings *m, uint32_t host_id)
{
	free(m->v);
	m->v = calloc(1, sizeof(*m->v));
	if (!m->v) {
		m->len = 0;
		return -ENOMEM;
	}
	m->v[0] = (oci_id_mapping){ .container_id = 0, .host_id = host_id, .size = 1 };
	m->len = 1;
	return 0;
}

static int strv_replace(oci_strv *v, const char *const *items, size_t n)
{
	oci_strv_clear(v);
	v->v = calloc(n + 1, sizeof(char *));
	if (!v->v)
		return -ENOMEM;
	v->set = true;
	for (size_t i = 0; i < n; i++) {
		v->v[i] = strdup(items[i]);
		if (!v->v[i])
			return -ENOMEM;
		v->len = i + 1;
	}
	return 0;
}

/* What `runc spec --rootless` changes: a user namespace mapping the caller
 * to root, no network namespace (no privileges to configure one), /sys as a
 * recursive bind (sysfs can't be mounted without owning the netns), devpts
 * without gid=5 (that group isn't mapped), and no cgroup resources. */
static int make_rootless(oci_spec *s)
{
	oci_linux *l = s->linux_;
	size_t o = 0;
	for (size_t i = 0; i < l->namespaces_len; i++) {
		if (strcmp(l->namespaces[i].type, "network") == 0) {
			free(l->namespaces[i].type);
			free(l->namespaces[i].path);
			continue;
		}
		l->namespaces[o++] = l->namespaces[i];
	}
	/* The array was sized for the original list, which had one more. */
	l->namespaces[o].type = strdup("user");
	l->namespaces[o].path = NULL;
	if (!l->namespaces[o].type)
		return -ENOMEM;
	l->namespaces_len = o + 1;

	if (set_single_mapping(&l->uid_mappings, (uint32_t)geteuid()) < 0 ||
	    set_single_mapping(&l->gid_mappings, (uint32_t)getegid()) < 0)
		return -ENOMEM;

	for (size_t i = 0; i < s->mounts_len; i++) {
		oci_mount *m = &s->mounts[i];
		if (strcmp(m->destination, "/sys") == 0) {
			static const char *const opts[] = { "rbind", "nosuid", "noexec", "nodev", "ro" };
			free(m->type);
			free(m->source);
			m->type = strdup("none");
			m->source = strdup("/sys");
			if (!m->type || !m->source || strv_replace(&m->options, opts, 5) < 0)
				return -ENOMEM;
		} else if (strcmp(m->destination, "/dev/pts") == 0) {
			size_t k = 0;
			for (size_t j = 0; j < m->options.len; j++) {
				if (strncmp(m->options.v[j], "gid=", 4) == 0)
					free(m->options.v[j]);
				else
					m->options.v[k++] = m->options.v[j];
			}
			m->options.v[k] = NULL;
			m->options.len = k;
		}
	}

	oci_spec *tmp = calloc(1, sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	/* Free the resources through the normal destructor. */
	tmp->linux_ = calloc(1, sizeof(*tmp->linux_));
	if (!tmp->linux_) {
		free(tmp);
		return -ENOMEM;
	}
	tmp->linux_->resources = steal_pointer(&l->resources);
	oci_spec_free(tmp);
	return 0;
}

int oci_spec_default(bool rootless, oci_spec **out, cv_error_t *err)
{
	cleanup_spec oci_spec *s = NULL;
	int r = oci_spec_parse(default_config, sizeof(default_config) - 1, "default config", &s, err);
	if (r < 0)
		return r;
	if (rootless && make_rootless(s) < 0)
		return cv_error(err, ENOMEM, "build the rootless default config");
	*out = steal_pointer(&s);
	return 0;
}
