#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "process/mempolicy.h"
#include "process/process-attrs.h"

/* The kernel's uapi values (linux/mempolicy.h), spelled out: older
 * headers lack MPOL_WEIGHTED_INTERLEAVE. */
enum {
	CV_MPOL_DEFAULT = 0,
	CV_MPOL_PREFERRED = 1,
	CV_MPOL_BIND = 2,
	CV_MPOL_INTERLEAVE = 3,
	CV_MPOL_LOCAL = 4,
	CV_MPOL_PREFERRED_MANY = 5,
	CV_MPOL_WEIGHTED_INTERLEAVE = 6,
};
#define CV_MPOL_F_NUMA_BALANCING (1 << 13)
#define CV_MPOL_F_RELATIVE_NODES (1 << 14)
#define CV_MPOL_F_STATIC_NODES (1 << 15)

static const struct {
	const char *name;
	int value;
} modes[] = {
	{ "MPOL_DEFAULT", CV_MPOL_DEFAULT },
	{ "MPOL_PREFERRED", CV_MPOL_PREFERRED },
	{ "MPOL_BIND", CV_MPOL_BIND },
	{ "MPOL_INTERLEAVE", CV_MPOL_INTERLEAVE },
	{ "MPOL_LOCAL", CV_MPOL_LOCAL },
	{ "MPOL_PREFERRED_MANY", CV_MPOL_PREFERRED_MANY },
	{ "MPOL_WEIGHTED_INTERLEAVE", CV_MPOL_WEIGHTED_INTERLEAVE },
}, flags[] = {
	{ "MPOL_F_NUMA_BALANCING", CV_MPOL_F_NUMA_BALANCING },
	{ "MPOL_F_RELATIVE_NODES", CV_MPOL_F_RELATIVE_NODES },
	{ "MPOL_F_STATIC_NODES", CV_MPOL_F_STATIC_NODES },
};

/* The mode and flags as the kernel takes them (OR'd); -1 when unknown. */
static int mode_value(const oci_memory_policy *mp, cv_error_t *err)
{
	int v = -1;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (mp->mode && strcmp(mp->mode, modes[i].name) == 0)
			v = modes[i].value;
	if (v < 0)
		return cv_error_plain(err, EINVAL, "linux.memoryPolicy.mode: unknown mode \"%s\"",
				      mp->mode ? mp->mode : "");
	for (size_t j = 0; j < mp->flags.len; j++) {
		int f = 0;
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (strcmp(mp->flags.v[j], flags[i].name) == 0)
				f = flags[i].value;
		if (!f)
			return cv_error_plain(err, EINVAL, "linux.memoryPolicy.flags[%zu]: unknown flag \"%s\"", j,
					      mp->flags.v[j]);
		v |= f;
	}
	return v;
}

/* MP as set_mempolicy takes it: the mode and flags, the node mask (NULL
 * for no nodes) and its size in bytes. */
static int parse(const oci_memory_policy *mp, int *v, cpu_set_t **set, size_t *size, cv_error_t *err)
{
	*v = mode_value(mp, err);
	if (*v < 0)
		return -1;
	return cv_node_list_parse(mp->nodes, "linux.memoryPolicy.nodes", set, size, err);
}

int cv_mempolicy_validate(const oci_memory_policy *mp, cv_error_t *err)
{
	cleanup_cpuset cpu_set_t *set = NULL;
	size_t size;
	int v;

	if (!mp)
		return 0;
	if (parse(mp, &v, &set, &size, err) < 0)
		return -1;
	int mode = v & 0xff;
	bool node_flags = v & (CV_MPOL_F_STATIC_NODES | CV_MPOL_F_RELATIVE_NODES);
	if ((v & CV_MPOL_F_STATIC_NODES) && (v & CV_MPOL_F_RELATIVE_NODES))
		return cv_error_plain(
			err, EINVAL,
			"linux.memoryPolicy.flags: MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES exclude each other");
	if ((mode == CV_MPOL_DEFAULT || mode == CV_MPOL_LOCAL) && set)
		return cv_error_plain(err, EINVAL, "linux.memoryPolicy.nodes: %s takes no nodes", mp->mode);
	if ((mode == CV_MPOL_DEFAULT || mode == CV_MPOL_LOCAL) && v != mode)
		return cv_error_plain(err, EINVAL, "linux.memoryPolicy.flags: %s takes no flags", mp->mode);
	if (!set && mode != CV_MPOL_DEFAULT && mode != CV_MPOL_LOCAL && mode != CV_MPOL_PREFERRED)
		return cv_error_plain(err, EINVAL, "linux.memoryPolicy.nodes: %s needs at least one node", mp->mode);
	if (!set && node_flags)
		return cv_error_plain(err, EINVAL,
				      "linux.memoryPolicy.flags: MPOL_F_STATIC_NODES and "
				      "MPOL_F_RELATIVE_NODES need nodes");
	return 0;
}

int cv_mempolicy_apply(const oci_memory_policy *mp, cv_error_t *err)
{
	cleanup_cpuset cpu_set_t *set = NULL;
	size_t size = 0;

	int v;

	if (!mp)
		return 0;
	if (parse(mp, &v, &set, &size, err) < 0)
		return -1;
	/* maxnode counts one past the last bit the kernel reads (it
	 * decrements it first) */
	unsigned long maxnode = set ? size * 8 + 1 : 0;
	if (syscall(SYS_set_mempolicy, v, set, maxnode) < 0)
		return cv_error_errno(err, "linux.memoryPolicy: set_mempolicy %s nodes \"%s\"", mp->mode,
				      mp->nodes ? mp->nodes : "");
	return 0;
}
