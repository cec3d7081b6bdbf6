/* Field-by-field equality of two specs (round-trip tests, and callers that
 * need to know whether a config changed). */
#include "config.h"

#include <string.h>

#include "spec.h"

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool strv_eq(const oci_strv *a, const oci_strv *b)
{
	if (a->len != b->len || a->set != b->set)
		return false;
	for (size_t i = 0; i < a->len; i++)
		if (!str_eq(a->v[i], b->v[i]))
			return false;
	return true;
}

static bool kv_eq(const oci_kv_list *a, const oci_kv_list *b)
{
	if (a->len != b->len)
		return false;
	for (size_t i = 0; i < a->len; i++)
		if (!str_eq(a->v[i].key, b->v[i].key) || !str_eq(a->v[i].value, b->v[i].value))
			return false;
	return true;
}

#define OPT_EQ(a, b) ((a).set == (b).set && (!(a).set || (a).v == (b).v))
/* Both absent, or both present and CMP holds. */
#define PTR_EQ(a, b, cmp) (!(a) || !(b) ? (a) == (b) : cmp((a), (b)))

static bool maps_eq(const oci_id_mappings *a, const oci_id_mappings *b)
{
	if (a->len != b->len)
		return false;
	for (size_t i = 0; i < a->len; i++)
		if (a->v[i].container_id != b->v[i].container_id || a->v[i].host_id != b->v[i].host_id ||
		    a->v[i].size != b->v[i].size)
			return false;
	return true;
}

static bool caps_eq(const oci_capabilities *a, const oci_capabilities *b)
{
	return strv_eq(&a->bounding, &b->bounding) && strv_eq(&a->effective, &b->effective) &&
	       strv_eq(&a->inheritable, &b->inheritable) && strv_eq(&a->permitted, &b->permitted) &&
	       strv_eq(&a->ambient, &b->ambient);
}

static bool sched_eq(const oci_scheduler *a, const oci_scheduler *b)
{
	return str_eq(a->policy, b->policy) && OPT_EQ(a->nice, b->nice) && OPT_EQ(a->priority, b->priority) &&
	       strv_eq(&a->flags, &b->flags) && OPT_EQ(a->runtime, b->runtime) && OPT_EQ(a->deadline, b->deadline) &&
	       OPT_EQ(a->period, b->period);
}

static bool ioprio_eq(const oci_io_priority *a, const oci_io_priority *b)
{
	return str_eq(a->class_, b->class_) && a->priority == b->priority;
}

static bool affinity_eq(const oci_cpu_affinity *a, const oci_cpu_affinity *b)
{
	return str_eq(a->initial, b->initial) && str_eq(a->final, b->final);
}

bool oci_process_equal(const oci_process *a, const oci_process *b)
{
	if (!a || !b)
		return a == b;
	if (a->terminal != b->terminal || a->has_console_size != b->has_console_size ||
	    a->console_height != b->console_height || a->console_width != b->console_width)
		return false;
	const oci_user *ua = &a->user, *ub = &b->user;
	if (ua->uid != ub->uid || ua->gid != ub->gid || !OPT_EQ(ua->umask, ub->umask) ||
	    ua->additional_gids_len != ub->additional_gids_len || !str_eq(ua->username, ub->username))
		return false;
	for (size_t i = 0; i < ua->additional_gids_len; i++)
		if (ua->additional_gids[i] != ub->additional_gids[i])
			return false;
	if (!strv_eq(&a->args, &b->args) || !str_eq(a->command_line, b->command_line) || !strv_eq(&a->env, &b->env) ||
	    !str_eq(a->cwd, b->cwd) || !PTR_EQ(a->capabilities, b->capabilities, caps_eq))
		return false;
	if (a->rlimits_len != b->rlimits_len)
		return false;
	for (size_t i = 0; i < a->rlimits_len; i++)
		if (!str_eq(a->rlimits[i].type, b->rlimits[i].type) || a->rlimits[i].hard != b->rlimits[i].hard ||
		    a->rlimits[i].soft != b->rlimits[i].soft)
			return false;
	return a->no_new_privileges == b->no_new_privileges && str_eq(a->apparmor_profile, b->apparmor_profile) &&
	       OPT_EQ(a->oom_score_adj, b->oom_score_adj) && PTR_EQ(a->scheduler, b->scheduler, sched_eq) &&
	       str_eq(a->selinux_label, b->selinux_label) && PTR_EQ(a->io_priority, b->io_priority, ioprio_eq) &&
	       PTR_EQ(a->exec_cpu_affinity, b->exec_cpu_affinity, affinity_eq);
}

static bool hooks_list_eq(const oci_hook_list *a, const oci_hook_list *b)
{
	if (a->len != b->len)
		return false;
	for (size_t i = 0; i < a->len; i++)
		if (!str_eq(a->v[i].path, b->v[i].path) || !strv_eq(&a->v[i].args, &b->v[i].args) ||
		    !strv_eq(&a->v[i].env, &b->v[i].env) || !OPT_EQ(a->v[i].timeout, b->v[i].timeout))
			return false;
	return true;
}

static bool hooks_eq(const oci_hooks *a, const oci_hooks *b)
{
	return hooks_list_eq(&a->prestart, &b->prestart) && hooks_list_eq(&a->create_runtime, &b->create_runtime) &&
	       hooks_list_eq(&a->create_container, &b->create_container) &&
	       hooks_list_eq(&a->start_container, &b->start_container) && hooks_list_eq(&a->poststart, &b->poststart) &&
	       hooks_list_eq(&a->poststop, &b->poststop);
}

static bool root_eq(const oci_root *a, const oci_root *b)
{
	return str_eq(a->path, b->path) && a->readonly == b->readonly;
}

static bool memory_eq(const oci_memory *a, const oci_memory *b)
{
	return OPT_EQ(a->limit, b->limit) && OPT_EQ(a->reservation, b->reservation) && OPT_EQ(a->swap, b->swap) &&
	       OPT_EQ(a->kernel, b->kernel) && OPT_EQ(a->kernel_tcp, b->kernel_tcp) &&
	       OPT_EQ(a->swappiness, b->swappiness) && OPT_EQ(a->disable_oom_killer, b->disable_oom_killer) &&
	       OPT_EQ(a->use_hierarchy, b->use_hierarchy) && OPT_EQ(a->check_before_update, b->check_before_update);
}

static bool cpu_eq(const oci_cpu *a, const oci_cpu *b)
{
	return OPT_EQ(a->shares, b->shares) && OPT_EQ(a->quota, b->quota) && OPT_EQ(a->burst, b->burst) &&
	       OPT_EQ(a->period, b->period) && OPT_EQ(a->realtime_runtime, b->realtime_runtime) &&
	       OPT_EQ(a->realtime_period, b->realtime_period) && str_eq(a->cpus, b->cpus) && str_eq(a->mems, b->mems) &&
	       OPT_EQ(a->idle, b->idle);
}

static bool throttle_eq(const oci_throttle_list *a, const oci_throttle_list *b)
{
	if (a->len != b->len)
		return false;
	for (size_t i = 0; i < a->len; i++)
		if (a->v[i].major != b->v[i].major || a->v[i].minor != b->v[i].minor || a->v[i].rate != b->v[i].rate)
			return false;
	return true;
}

static bool block_io_eq(const oci_block_io *a, const oci_block_io *b)
{
	if (!OPT_EQ(a->weight, b->weight) || !OPT_EQ(a->leaf_weight, b->leaf_weight) ||
	    a->weight_device_len != b->weight_device_len)
		return false;
	for (size_t i = 0; i < a->weight_device_len; i++) {
		const oci_weight_device *x = &a->weight_device[i], *y = &b->weight_device[i];
		if (x->major != y->major || x->minor != y->minor || !OPT_EQ(x->weight, y->weight) ||
		    !OPT_EQ(x->leaf_weight, y->leaf_weight))
			return false;
	}
	return throttle_eq(&a->throttle_read_bps, &b->throttle_read_bps) &&
	       throttle_eq(&a->throttle_write_bps, &b->throttle_write_bps) &&
	       throttle_eq(&a->throttle_read_iops, &b->throttle_read_iops) &&
	       throttle_eq(&a->throttle_write_iops, &b->throttle_write_iops);
}

static bool network_eq(const oci_network *a, const oci_network *b)
{
	if (!OPT_EQ(a->class_id, b->class_id) || a->priorities_len != b->priorities_len)
		return false;
	for (size_t i = 0; i < a->priorities_len; i++)
		if (!str_eq(a->priorities[i].name, b->priorities[i].name) ||
		    a->priorities[i].priority != b->priorities[i].priority)
			return false;
	return true;
}

static bool resources_eq(const oci_resources *a, const oci_resources *b)
{
	if (a->devices_len != b->devices_len)
		return false;
	for (size_t i = 0; i < a->devices_len; i++) {
		const oci_device_cgroup *x = &a->devices[i], *y = &b->devices[i];
		if (x->allow != y->allow || !str_eq(x->type, y->type) || !OPT_EQ(x->major, y->major) ||
		    !OPT_EQ(x->minor, y->minor) || !str_eq(x->access, y->access))
			return false;
	}
	if (!PTR_EQ(a->memory, b->memory, memory_eq) || !PTR_EQ(a->cpu, b->cpu, cpu_eq) || a->has_pids != b->has_pids ||
	    !OPT_EQ(a->pids_limit, b->pids_limit) || !PTR_EQ(a->block_io, b->block_io, block_io_eq) ||
	    a->hugepage_limits_len != b->hugepage_limits_len || !PTR_EQ(a->network, b->network, network_eq) ||
	    a->rdma_len != b->rdma_len || !kv_eq(&a->unified, &b->unified))
		return false;
	for (size_t i = 0; i < a->hugepage_limits_len; i++)
		if (!str_eq(a->hugepage_limits[i].page_size, b->hugepage_limits[i].page_size) ||
		    a->hugepage_limits[i].limit != b->hugepage_limits[i].limit)
			return false;
	for (size_t i = 0; i < a->rdma_len; i++)
		if (!str_eq(a->rdma[i].device, b->rdma[i].device) ||
		    !OPT_EQ(a->rdma[i].hca_handles, b->rdma[i].hca_handles) ||
		    !OPT_EQ(a->rdma[i].hca_objects, b->rdma[i].hca_objects))
			return false;
	return true;
}

static bool rdt_eq(const oci_intel_rdt *a, const oci_intel_rdt *b)
{
	return str_eq(a->clos_id, b->clos_id) && str_eq(a->l3_cache_schema, b->l3_cache_schema) &&
	       str_eq(a->mem_bw_schema, b->mem_bw_schema) && strv_eq(&a->schemata, &b->schemata) &&
	       OPT_EQ(a->enable_monitoring, b->enable_monitoring);
}

static bool seccomp_eq(const oci_seccomp *a, const oci_seccomp *b)
{
	if (!str_eq(a->default_action, b->default_action) || !OPT_EQ(a->default_errno_ret, b->default_errno_ret) ||
	    !strv_eq(&a->architectures, &b->architectures) || !strv_eq(&a->flags, &b->flags) ||
	    !str_eq(a->listener_path, b->listener_path) || !str_eq(a->listener_metadata, b->listener_metadata) ||
	    a->syscalls_len != b->syscalls_len)
		return false;
	for (size_t i = 0; i < a->syscalls_len; i++) {
		const oci_seccomp_syscall *x = &a->syscalls[i], *y = &b->syscalls[i];
		if (!strv_eq(&x->names, &y->names) || !str_eq(x->action, y->action) ||
		    !OPT_EQ(x->errno_ret, y->errno_ret) || x->args_len != y->args_len)
			return false;
		for (size_t j = 0; j < x->args_len; j++)
			if (x->args[j].index != y->args[j].index || x->args[j].value != y->args[j].value ||
			    !OPT_EQ(x->args[j].value_two, y->args[j].value_two) ||
			    !str_eq(x->args[j].op, y->args[j].op))
				return false;
	}
	return true;
}

static bool personality_eq(const oci_personality *a, const oci_personality *b)
{
	return str_eq(a->domain, b->domain) && strv_eq(&a->flags, &b->flags);
}

static bool mpol_eq(const oci_memory_policy *a, const oci_memory_policy *b)
{
	return str_eq(a->mode, b->mode) && str_eq(a->nodes, b->nodes) && strv_eq(&a->flags, &b->flags);
}

static bool linux_eq(const oci_linux *a, const oci_linux *b)
{
	if (a->namespaces_len != b->namespaces_len || a->time_offsets_len != b->time_offsets_len ||
	    a->devices_len != b->devices_len || a->net_devices_len != b->net_devices_len)
		return false;
	for (size_t i = 0; i < a->namespaces_len; i++)
		if (!str_eq(a->namespaces[i].type, b->namespaces[i].type) ||
		    !str_eq(a->namespaces[i].path, b->namespaces[i].path))
			return false;
	for (size_t i = 0; i < a->time_offsets_len; i++)
		if (!str_eq(a->time_offsets[i].clock, b->time_offsets[i].clock) ||
		    a->time_offsets[i].secs != b->time_offsets[i].secs ||
		    a->time_offsets[i].nanosecs != b->time_offsets[i].nanosecs)
			return false;
	for (size_t i = 0; i < a->devices_len; i++) {
		const oci_device *x = &a->devices[i], *y = &b->devices[i];
		if (!str_eq(x->type, y->type) || !str_eq(x->path, y->path) || x->major != y->major ||
		    x->minor != y->minor || !OPT_EQ(x->file_mode, y->file_mode) || !OPT_EQ(x->uid, y->uid) ||
		    !OPT_EQ(x->gid, y->gid))
			return false;
	}
	for (size_t i = 0; i < a->net_devices_len; i++)
		if (!str_eq(a->net_devices[i].host_name, b->net_devices[i].host_name) ||
		    !str_eq(a->net_devices[i].name, b->net_devices[i].name))
			return false;
	return maps_eq(&a->uid_mappings, &b->uid_mappings) && maps_eq(&a->gid_mappings, &b->gid_mappings) &&
	       str_eq(a->cgroups_path, b->cgroups_path) && PTR_EQ(a->resources, b->resources, resources_eq) &&
	       PTR_EQ(a->intel_rdt, b->intel_rdt, rdt_eq) && kv_eq(&a->sysctl, &b->sysctl) &&
	       PTR_EQ(a->seccomp, b->seccomp, seccomp_eq) && str_eq(a->rootfs_propagation, b->rootfs_propagation) &&
	       strv_eq(&a->masked_paths, &b->masked_paths) && strv_eq(&a->readonly_paths, &b->readonly_paths) &&
	       str_eq(a->mount_label, b->mount_label) && PTR_EQ(a->personality, b->personality, personality_eq) &&
	       PTR_EQ(a->memory_policy, b->memory_policy, mpol_eq);
}

bool oci_spec_equal(const oci_spec *a, const oci_spec *b)
{
	if (!a || !b)
		return a == b;
	if (!str_eq(a->oci_version, b->oci_version) || !PTR_EQ(a->root, b->root, root_eq) ||
	    a->mounts_len != b->mounts_len)
		return false;
	for (size_t i = 0; i < a->mounts_len; i++) {
		const oci_mount *x = &a->mounts[i], *y = &b->mounts[i];
		if (!str_eq(x->destination, y->destination) || !str_eq(x->type, y->type) ||
		    !str_eq(x->source, y->source) || !strv_eq(&x->options, &y->options) ||
		    !maps_eq(&x->uid_mappings, &y->uid_mappings) || !maps_eq(&x->gid_mappings, &y->gid_mappings))
			return false;
	}
	return oci_process_equal(a->process, b->process) && str_eq(a->hostname, b->hostname) &&
	       str_eq(a->domainname, b->domainname) && PTR_EQ(a->hooks, b->hooks, hooks_eq) &&
	       kv_eq(&a->annotations, &b->annotations) && PTR_EQ(a->linux_, b->linux_, linux_eq);
}
