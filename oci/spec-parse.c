/* config.json -> oci_spec: JSON types, required properties and the ranges
 * the C types impose. Semantic checks (enums, absolute paths, spec ranges)
 * live in spec-validate.c and run at the end. Unknown properties are
 * ignored, as the runtime-spec asks. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "io.h"
#include "json.h"
#include "spec.h"
#include "resources-internal.h"

#define OOM(c) cv_error((c)->err, ENOMEM, "%s: %s", (c)->name, (c)->path)

/* Allocates an array for the elements of array node N. */
#define ALLOC_ARRAY(c, n, ptr)                                                                                         \
	({                                                                                                             \
		(ptr) = calloc((n)->count ? (n)->count : 1, sizeof(*(ptr)));                                           \
		(ptr) ? 0 : OOM(c);                                                                                    \
	})

/* Runs FN on each element of array node N with path "[i]", counting into LEN. */
#define EACH(c, n, arr, len, fn)                                                                                       \
	do {                                                                                                           \
		int _r = jr_array((c), (n));                                                                           \
		if (_r < 0)                                                                                            \
			return _r;                                                                                     \
		if ((_r = ALLOC_ARRAY((c), (n), (arr))) < 0)                                                           \
			return _r;                                                                                     \
		for (const jt_node *_e = (n)->first; _e; _e = _e->next) {                                              \
			size_t _m = jr_push_index((c), (len));                                                         \
			(len)++;                                                                                       \
			_r = fn((c), _e, &(arr)[(len)-1]);                                                             \
			jr_pop((c), _m);                                                                               \
			if (_r < 0)                                                                                    \
				return _r;                                                                             \
		}                                                                                                      \
	} while (0)

/* Allocates *PTR and fills it with FN (optional sub-objects). */
#define SUBOBJ(c, n, ptr, fn)                                                                                          \
	({                                                                                                             \
		int _r = jr_object((c), (n));                                                                          \
		if (_r == 0 && !*(ptr)) {                                                                              \
			*(ptr) = calloc(1, sizeof(**(ptr)));                                                           \
			if (!*(ptr))                                                                                   \
				_r = OOM(c);                                                                           \
		}                                                                                                      \
		if (_r == 0)                                                                                           \
			_r = fn((c), (n), *(ptr));                                                                     \
		_r;                                                                                                    \
	})

/* ---------------- root, mounts ---------------- */

static int parse_root_obj(jr_ctx *c, const jt_node *n, oci_root *r)
{
	JR_REQ(c, n, "path", jr_string, &r->path);
	JR_OPT(c, n, "readonly", jr_bool, &r->readonly);
	return 0;
}

static int parse_root(jr_ctx *c, const jt_node *n, oci_root **r)
{
	return SUBOBJ(c, n, r, parse_root_obj);
}

static int parse_mount(jr_ctx *c, const jt_node *n, oci_mount *m)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "destination", jr_string, &m->destination);
	JR_OPT(c, n, "type", jr_string, &m->type);
	JR_OPT(c, n, "source", jr_string, &m->source);
	JR_OPT(c, n, "options", jr_strv, &m->options);
	JR_OPT(c, n, "uidMappings", jr_id_mappings, &m->uid_mappings);
	JR_OPT(c, n, "gidMappings", jr_id_mappings, &m->gid_mappings);
	return 0;
}

static int parse_mounts(jr_ctx *c, const jt_node *n, oci_spec *s)
{
	EACH(c, n, s->mounts, s->mounts_len, parse_mount);
	return 0;
}

/* ---------------- process ---------------- */

static int parse_console_size(jr_ctx *c, const jt_node *n, oci_process *p)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "height", jr_u32, &p->console_height);
	JR_REQ(c, n, "width", jr_u32, &p->console_width);
	p->has_console_size = true;
	return 0;
}

static int parse_gid(jr_ctx *c, const jt_node *n, uint32_t *gid)
{
	return jr_u32(c, n, gid);
}

static int parse_additional_gids(jr_ctx *c, const jt_node *n, oci_user *u)
{
	EACH(c, n, u->additional_gids, u->additional_gids_len, parse_gid);
	return 0;
}

static int parse_user(jr_ctx *c, const jt_node *n, oci_user *u)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "uid", jr_u32, &u->uid);
	JR_REQ(c, n, "gid", jr_u32, &u->gid);
	JR_OPT(c, n, "umask", jr_opt_u32, &u->umask);
	JR_OPT(c, n, "additionalGids", parse_additional_gids, u);
	JR_OPT(c, n, "username", jr_string, &u->username);
	return 0;
}

static int parse_caps_obj(jr_ctx *c, const jt_node *n, oci_capabilities *caps)
{
	JR_OPT(c, n, "bounding", jr_strv, &caps->bounding);
	JR_OPT(c, n, "effective", jr_strv, &caps->effective);
	JR_OPT(c, n, "inheritable", jr_strv, &caps->inheritable);
	JR_OPT(c, n, "permitted", jr_strv, &caps->permitted);
	JR_OPT(c, n, "ambient", jr_strv, &caps->ambient);
	return 0;
}

static int parse_caps(jr_ctx *c, const jt_node *n, oci_capabilities **caps)
{
	return SUBOBJ(c, n, caps, parse_caps_obj);
}

static int parse_rlimit(jr_ctx *c, const jt_node *n, oci_rlimit *rl)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "type", jr_string, &rl->type);
	JR_REQ(c, n, "soft", jr_u64, &rl->soft);
	JR_REQ(c, n, "hard", jr_u64, &rl->hard);
	return 0;
}

static int parse_rlimits(jr_ctx *c, const jt_node *n, oci_process *p)
{
	EACH(c, n, p->rlimits, p->rlimits_len, parse_rlimit);
	return 0;
}

static int parse_sched_obj(jr_ctx *c, const jt_node *n, oci_scheduler *s)
{
	JR_REQ(c, n, "policy", jr_string, &s->policy);
	JR_OPT(c, n, "nice", jr_opt_i64, &s->nice);
	JR_OPT(c, n, "priority", jr_opt_i64, &s->priority);
	JR_OPT(c, n, "flags", jr_strv, &s->flags);
	JR_OPT(c, n, "runtime", jr_opt_u64, &s->runtime);
	JR_OPT(c, n, "deadline", jr_opt_u64, &s->deadline);
	JR_OPT(c, n, "period", jr_opt_u64, &s->period);
	return 0;
}

static int parse_sched(jr_ctx *c, const jt_node *n, oci_scheduler **s)
{
	return SUBOBJ(c, n, s, parse_sched_obj);
}

static int parse_ioprio_obj(jr_ctx *c, const jt_node *n, oci_io_priority *io)
{
	JR_REQ(c, n, "class", jr_string, &io->class_);
	JR_OPT(c, n, "priority", jr_i64, &io->priority);
	return 0;
}

static int parse_ioprio(jr_ctx *c, const jt_node *n, oci_io_priority **io)
{
	return SUBOBJ(c, n, io, parse_ioprio_obj);
}

static int parse_affinity_obj(jr_ctx *c, const jt_node *n, oci_cpu_affinity *a)
{
	JR_OPT(c, n, "initial", jr_string, &a->initial);
	JR_OPT(c, n, "final", jr_string, &a->final);
	return 0;
}

static int parse_affinity(jr_ctx *c, const jt_node *n, oci_cpu_affinity **a)
{
	return SUBOBJ(c, n, a, parse_affinity_obj);
}

static int parse_process_obj(jr_ctx *c, const jt_node *n, oci_process *p)
{
	JR_OPT(c, n, "terminal", jr_bool, &p->terminal);
	JR_OPT(c, n, "consoleSize", parse_console_size, p);
	JR_OPT(c, n, "user", parse_user, &p->user);
	JR_REQ(c, n, "args", jr_strv, &p->args);
	JR_OPT(c, n, "commandLine", jr_string, &p->command_line);
	JR_OPT(c, n, "env", jr_strv, &p->env);
	JR_REQ(c, n, "cwd", jr_string, &p->cwd);
	JR_OPT(c, n, "capabilities", parse_caps, &p->capabilities);
	JR_OPT(c, n, "rlimits", parse_rlimits, p);
	JR_OPT(c, n, "noNewPrivileges", jr_bool, &p->no_new_privileges);
	JR_OPT(c, n, "apparmorProfile", jr_string, &p->apparmor_profile);
	JR_OPT(c, n, "oomScoreAdj", jr_opt_i64, &p->oom_score_adj);
	JR_OPT(c, n, "scheduler", parse_sched, &p->scheduler);
	JR_OPT(c, n, "selinuxLabel", jr_string, &p->selinux_label);
	JR_OPT(c, n, "ioPriority", parse_ioprio, &p->io_priority);
	JR_OPT(c, n, "execCPUAffinity", parse_affinity, &p->exec_cpu_affinity);
	return 0;
}

static int parse_process(jr_ctx *c, const jt_node *n, oci_process **p)
{
	return SUBOBJ(c, n, p, parse_process_obj);
}

/* ---------------- hooks ---------------- */

static int parse_hook(jr_ctx *c, const jt_node *n, oci_hook *h)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "path", jr_string, &h->path);
	JR_OPT(c, n, "args", jr_strv, &h->args);
	JR_OPT(c, n, "env", jr_strv, &h->env);
	JR_OPT(c, n, "timeout", jr_opt_i64, &h->timeout);
	return 0;
}

static int parse_hook_list(jr_ctx *c, const jt_node *n, oci_hook_list *l)
{
	EACH(c, n, l->v, l->len, parse_hook);
	return 0;
}

static int parse_hooks_obj(jr_ctx *c, const jt_node *n, oci_hooks *h)
{
	JR_OPT(c, n, "prestart", parse_hook_list, &h->prestart);
	JR_OPT(c, n, "createRuntime", parse_hook_list, &h->create_runtime);
	JR_OPT(c, n, "createContainer", parse_hook_list, &h->create_container);
	JR_OPT(c, n, "startContainer", parse_hook_list, &h->start_container);
	JR_OPT(c, n, "poststart", parse_hook_list, &h->poststart);
	JR_OPT(c, n, "poststop", parse_hook_list, &h->poststop);
	return 0;
}

static int parse_hooks(jr_ctx *c, const jt_node *n, oci_hooks **h)
{
	return SUBOBJ(c, n, h, parse_hooks_obj);
}

/* ---------------- linux ---------------- */

static int parse_namespace(jr_ctx *c, const jt_node *n, oci_namespace *ns)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "type", jr_string, &ns->type);
	JR_OPT(c, n, "path", jr_string, &ns->path);
	return 0;
}

static int parse_namespaces(jr_ctx *c, const jt_node *n, oci_linux *l)
{
	EACH(c, n, l->namespaces, l->namespaces_len, parse_namespace);
	return 0;
}

static int parse_time_offset(jr_ctx *c, const jt_node *n, oci_time_offset *t)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_OPT(c, n, "secs", jr_i64, &t->secs);
	JR_OPT(c, n, "nanosecs", jr_u32, &t->nanosecs);
	return 0;
}

static int parse_time_offsets(jr_ctx *c, const jt_node *n, oci_linux *l)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	if ((r = ALLOC_ARRAY(c, n, l->time_offsets)) < 0)
		return r;
	for (const jt_node *e = n->first; e; e = e->next) {
		/* A duplicate key replaces the earlier entry, as for every map. */
		oci_time_offset *t = NULL;
		for (size_t i = 0; i < l->time_offsets_len && !t; i++)
			if (strcmp(l->time_offsets[i].clock, e->key) == 0)
				t = &l->time_offsets[i];
		if (t) {
			t->secs = 0;
			t->nanosecs = 0;
		} else {
			t = &l->time_offsets[l->time_offsets_len++];
			t->clock = strdup(e->key);
		}
		size_t m = jr_push_key(c, e->key);
		r = t->clock ? parse_time_offset(c, e, t) : OOM(c);
		jr_pop(c, m);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_device(jr_ctx *c, const jt_node *n, oci_device *d)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "type", jr_string, &d->type);
	JR_REQ(c, n, "path", jr_string, &d->path);
	JR_OPT(c, n, "major", jr_i64, &d->major);
	JR_OPT(c, n, "minor", jr_i64, &d->minor);
	JR_OPT(c, n, "fileMode", jr_opt_u32, &d->file_mode);
	JR_OPT(c, n, "uid", jr_opt_u32, &d->uid);
	JR_OPT(c, n, "gid", jr_opt_u32, &d->gid);
	return 0;
}

static int parse_devices(jr_ctx *c, const jt_node *n, oci_linux *l)
{
	EACH(c, n, l->devices, l->devices_len, parse_device);
	return 0;
}

static int parse_device_cgroup(jr_ctx *c, const jt_node *n, oci_device_cgroup *d)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "allow", jr_bool, &d->allow);
	JR_OPT(c, n, "type", jr_string, &d->type);
	JR_OPT(c, n, "major", jr_opt_i64, &d->major);
	JR_OPT(c, n, "minor", jr_opt_i64, &d->minor);
	JR_OPT(c, n, "access", jr_string, &d->access);
	return 0;
}

static int parse_device_cgroups(jr_ctx *c, const jt_node *n, oci_resources *res)
{
	EACH(c, n, res->devices, res->devices_len, parse_device_cgroup);
	return 0;
}

static int parse_memory_obj(jr_ctx *c, const jt_node *n, oci_memory *m)
{
	JR_OPT(c, n, "limit", jr_opt_i64, &m->limit);
	JR_OPT(c, n, "reservation", jr_opt_i64, &m->reservation);
	JR_OPT(c, n, "swap", jr_opt_i64, &m->swap);
	JR_OPT(c, n, "kernel", jr_opt_i64, &m->kernel);
	JR_OPT(c, n, "kernelTCP", jr_opt_i64, &m->kernel_tcp);
	JR_OPT(c, n, "swappiness", jr_opt_u64, &m->swappiness);
	JR_OPT(c, n, "disableOOMKiller", jr_opt_bool, &m->disable_oom_killer);
	JR_OPT(c, n, "useHierarchy", jr_opt_bool, &m->use_hierarchy);
	JR_OPT(c, n, "checkBeforeUpdate", jr_opt_bool, &m->check_before_update);
	return 0;
}

static int parse_memory(jr_ctx *c, const jt_node *n, oci_memory **m)
{
	return SUBOBJ(c, n, m, parse_memory_obj);
}

static int parse_cpu_obj(jr_ctx *c, const jt_node *n, oci_cpu *cpu)
{
	JR_OPT(c, n, "shares", jr_opt_u64, &cpu->shares);
	JR_OPT(c, n, "quota", jr_opt_i64, &cpu->quota);
	JR_OPT(c, n, "burst", jr_opt_u64, &cpu->burst);
	JR_OPT(c, n, "period", jr_opt_u64, &cpu->period);
	JR_OPT(c, n, "realtimeRuntime", jr_opt_i64, &cpu->realtime_runtime);
	JR_OPT(c, n, "realtimePeriod", jr_opt_u64, &cpu->realtime_period);
	JR_OPT(c, n, "cpus", jr_string, &cpu->cpus);
	JR_OPT(c, n, "mems", jr_string, &cpu->mems);
	JR_OPT(c, n, "idle", jr_opt_i64, &cpu->idle);
	return 0;
}

static int parse_cpu(jr_ctx *c, const jt_node *n, oci_cpu **cpu)
{
	return SUBOBJ(c, n, cpu, parse_cpu_obj);
}

static int parse_weight_device(jr_ctx *c, const jt_node *n, oci_weight_device *w)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "major", jr_i64, &w->major);
	JR_REQ(c, n, "minor", jr_i64, &w->minor);
	JR_OPT(c, n, "weight", jr_opt_u32, &w->weight);
	JR_OPT(c, n, "leafWeight", jr_opt_u32, &w->leaf_weight);
	return 0;
}

static int parse_weight_devices(jr_ctx *c, const jt_node *n, oci_block_io *b)
{
	EACH(c, n, b->weight_device, b->weight_device_len, parse_weight_device);
	return 0;
}

static int parse_throttle(jr_ctx *c, const jt_node *n, oci_throttle_device *t)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "major", jr_i64, &t->major);
	JR_REQ(c, n, "minor", jr_i64, &t->minor);
	JR_REQ(c, n, "rate", jr_u64, &t->rate);
	return 0;
}

static int parse_throttle_list(jr_ctx *c, const jt_node *n, oci_throttle_list *l)
{
	EACH(c, n, l->v, l->len, parse_throttle);
	return 0;
}

static int parse_block_io_obj(jr_ctx *c, const jt_node *n, oci_block_io *b)
{
	JR_OPT(c, n, "weight", jr_opt_u32, &b->weight);
	JR_OPT(c, n, "leafWeight", jr_opt_u32, &b->leaf_weight);
	JR_OPT(c, n, "weightDevice", parse_weight_devices, b);
	JR_OPT(c, n, "throttleReadBpsDevice", parse_throttle_list, &b->throttle_read_bps);
	JR_OPT(c, n, "throttleWriteBpsDevice", parse_throttle_list, &b->throttle_write_bps);
	JR_OPT(c, n, "throttleReadIOPSDevice", parse_throttle_list, &b->throttle_read_iops);
	JR_OPT(c, n, "throttleWriteIOPSDevice", parse_throttle_list, &b->throttle_write_iops);
	return 0;
}

static int parse_block_io(jr_ctx *c, const jt_node *n, oci_block_io **b)
{
	return SUBOBJ(c, n, b, parse_block_io_obj);
}

static int parse_hugepage(jr_ctx *c, const jt_node *n, oci_hugepage_limit *h)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "pageSize", jr_string, &h->page_size);
	JR_REQ(c, n, "limit", jr_u64, &h->limit);
	return 0;
}

static int parse_hugepages(jr_ctx *c, const jt_node *n, oci_resources *res)
{
	EACH(c, n, res->hugepage_limits, res->hugepage_limits_len, parse_hugepage);
	return 0;
}

static int parse_net_priority(jr_ctx *c, const jt_node *n, oci_net_priority *p)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "name", jr_string, &p->name);
	JR_REQ(c, n, "priority", jr_u32, &p->priority);
	return 0;
}

static int parse_net_priorities(jr_ctx *c, const jt_node *n, oci_network *net)
{
	EACH(c, n, net->priorities, net->priorities_len, parse_net_priority);
	return 0;
}

static int parse_network_obj(jr_ctx *c, const jt_node *n, oci_network *net)
{
	JR_OPT(c, n, "classID", jr_opt_u32, &net->class_id);
	JR_OPT(c, n, "priorities", parse_net_priorities, net);
	return 0;
}

static int parse_network(jr_ctx *c, const jt_node *n, oci_network **net)
{
	return SUBOBJ(c, n, net, parse_network_obj);
}

static int parse_pids(jr_ctx *c, const jt_node *n, oci_resources *res)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "limit", jr_opt_i64, &res->pids_limit);
	res->has_pids = true;
	return 0;
}

static int parse_rdma_entry(jr_ctx *c, const jt_node *n, oci_rdma *rd)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_OPT(c, n, "hcaHandles", jr_opt_u32, &rd->hca_handles);
	JR_OPT(c, n, "hcaObjects", jr_opt_u32, &rd->hca_objects);
	return 0;
}

static int parse_rdma(jr_ctx *c, const jt_node *n, oci_resources *res)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	if ((r = ALLOC_ARRAY(c, n, res->rdma)) < 0)
		return r;
	for (const jt_node *e = n->first; e; e = e->next) {
		oci_rdma *rd = NULL;
		for (size_t i = 0; i < res->rdma_len && !rd; i++)
			if (strcmp(res->rdma[i].device, e->key) == 0)
				rd = &res->rdma[i];
		if (rd) {
			rd->hca_handles.set = false;
			rd->hca_objects.set = false;
		} else {
			rd = &res->rdma[res->rdma_len++];
			rd->device = strdup(e->key);
		}
		size_t m = jr_push_map_key(c, e->key);
		r = rd->device ? parse_rdma_entry(c, e, rd) : OOM(c);
		jr_pop(c, m);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_resources_obj(jr_ctx *c, const jt_node *n, oci_resources *res)
{
	JR_OPT(c, n, "devices", parse_device_cgroups, res);
	JR_OPT(c, n, "memory", parse_memory, &res->memory);
	JR_OPT(c, n, "cpu", parse_cpu, &res->cpu);
	JR_OPT(c, n, "pids", parse_pids, res);
	JR_OPT(c, n, "blockIO", parse_block_io, &res->block_io);
	JR_OPT(c, n, "hugepageLimits", parse_hugepages, res);
	JR_OPT(c, n, "network", parse_network, &res->network);
	JR_OPT(c, n, "rdma", parse_rdma, res);
	JR_OPT(c, n, "unified", jr_kv_map, &res->unified);
	return 0;
}

static int parse_resources(jr_ctx *c, const jt_node *n, oci_resources **res)
{
	return SUBOBJ(c, n, res, parse_resources_obj);
}

static int parse_intel_rdt_obj(jr_ctx *c, const jt_node *n, oci_intel_rdt *rdt)
{
	JR_OPT(c, n, "closID", jr_string, &rdt->clos_id);
	JR_OPT(c, n, "l3CacheSchema", jr_string, &rdt->l3_cache_schema);
	JR_OPT(c, n, "memBwSchema", jr_string, &rdt->mem_bw_schema);
	JR_OPT(c, n, "schemata", jr_strv, &rdt->schemata);
	JR_OPT(c, n, "enableMonitoring", jr_opt_bool, &rdt->enable_monitoring);
	return 0;
}

static int parse_intel_rdt(jr_ctx *c, const jt_node *n, oci_intel_rdt **rdt)
{
	return SUBOBJ(c, n, rdt, parse_intel_rdt_obj);
}

static int parse_seccomp_arg(jr_ctx *c, const jt_node *n, oci_seccomp_arg *a)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "index", jr_u32, &a->index);
	JR_REQ(c, n, "value", jr_u64, &a->value);
	JR_OPT(c, n, "valueTwo", jr_opt_u64, &a->value_two);
	JR_REQ(c, n, "op", jr_string, &a->op);
	return 0;
}

static int parse_seccomp_args(jr_ctx *c, const jt_node *n, oci_seccomp_syscall *sc)
{
	EACH(c, n, sc->args, sc->args_len, parse_seccomp_arg);
	return 0;
}

static int parse_syscall(jr_ctx *c, const jt_node *n, oci_seccomp_syscall *sc)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "names", jr_strv, &sc->names);
	JR_REQ(c, n, "action", jr_string, &sc->action);
	JR_OPT(c, n, "errnoRet", jr_opt_u32, &sc->errno_ret);
	JR_OPT(c, n, "args", parse_seccomp_args, sc);
	return 0;
}

static int parse_syscalls(jr_ctx *c, const jt_node *n, oci_seccomp *s)
{
	EACH(c, n, s->syscalls, s->syscalls_len, parse_syscall);
	return 0;
}

static int parse_seccomp_obj(jr_ctx *c, const jt_node *n, oci_seccomp *s)
{
	JR_REQ(c, n, "defaultAction", jr_string, &s->default_action);
	JR_OPT(c, n, "defaultErrnoRet", jr_opt_u32, &s->default_errno_ret);
	JR_OPT(c, n, "architectures", jr_strv, &s->architectures);
	JR_OPT(c, n, "flags", jr_strv, &s->flags);
	JR_OPT(c, n, "listenerPath", jr_string, &s->listener_path);
	JR_OPT(c, n, "listenerMetadata", jr_string, &s->listener_metadata);
	JR_OPT(c, n, "syscalls", parse_syscalls, s);
	return 0;
}

static int parse_seccomp(jr_ctx *c, const jt_node *n, oci_seccomp **s)
{
	return SUBOBJ(c, n, s, parse_seccomp_obj);
}

static int parse_personality_obj(jr_ctx *c, const jt_node *n, oci_personality *p)
{
	JR_REQ(c, n, "domain", jr_string, &p->domain);
	JR_OPT(c, n, "flags", jr_strv, &p->flags);
	return 0;
}

static int parse_personality(jr_ctx *c, const jt_node *n, oci_personality **p)
{
	return SUBOBJ(c, n, p, parse_personality_obj);
}

static int parse_net_devices(jr_ctx *c, const jt_node *n, oci_linux *l)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	if ((r = ALLOC_ARRAY(c, n, l->net_devices)) < 0)
		return r;
	for (const jt_node *e = n->first; e; e = e->next) {
		oci_net_device *d = NULL;
		for (size_t i = 0; i < l->net_devices_len && !d; i++)
			if (strcmp(l->net_devices[i].host_name, e->key) == 0)
				d = &l->net_devices[i];
		if (d) {
			free(d->name);
			d->name = NULL;
		} else {
			d = &l->net_devices[l->net_devices_len++];
			d->host_name = strdup(e->key);
		}
		size_t m = jr_push_map_key(c, e->key);
		r = d->host_name ? jr_object(c, e) : OOM(c);
		if (r == 0) {
			const jt_node *name = jt_get(e, "name");
			if (name) {
				size_t m2 = jr_push_key(c, "name");
				r = jr_string(c, name, &d->name);
				jr_pop(c, m2);
			}
		}
		jr_pop(c, m);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_memory_policy_obj(jr_ctx *c, const jt_node *n, oci_memory_policy *mp)
{
	JR_REQ(c, n, "mode", jr_string, &mp->mode);
	JR_OPT(c, n, "nodes", jr_string, &mp->nodes);
	JR_OPT(c, n, "flags", jr_strv, &mp->flags);
	return 0;
}

static int parse_memory_policy(jr_ctx *c, const jt_node *n, oci_memory_policy **mp)
{
	return SUBOBJ(c, n, mp, parse_memory_policy_obj);
}

static int parse_linux_obj(jr_ctx *c, const jt_node *n, oci_linux *l)
{
	JR_OPT(c, n, "namespaces", parse_namespaces, l);
	JR_OPT(c, n, "uidMappings", jr_id_mappings, &l->uid_mappings);
	JR_OPT(c, n, "gidMappings", jr_id_mappings, &l->gid_mappings);
	JR_OPT(c, n, "timeOffsets", parse_time_offsets, l);
	JR_OPT(c, n, "devices", parse_devices, l);
	JR_OPT(c, n, "cgroupsPath", jr_string, &l->cgroups_path);
	JR_OPT(c, n, "resources", parse_resources, &l->resources);
	JR_OPT(c, n, "intelRdt", parse_intel_rdt, &l->intel_rdt);
	JR_OPT(c, n, "sysctl", jr_kv_map, &l->sysctl);
	JR_OPT(c, n, "seccomp", parse_seccomp, &l->seccomp);
	JR_OPT(c, n, "rootfsPropagation", jr_string, &l->rootfs_propagation);
	JR_OPT(c, n, "maskedPaths", jr_strv, &l->masked_paths);
	JR_OPT(c, n, "readonlyPaths", jr_strv, &l->readonly_paths);
	JR_OPT(c, n, "mountLabel", jr_string, &l->mount_label);
	JR_OPT(c, n, "personality", parse_personality, &l->personality);
	JR_OPT(c, n, "netDevices", parse_net_devices, l);
	JR_OPT(c, n, "memoryPolicy", parse_memory_policy, &l->memory_policy);
	return 0;
}

static int parse_linux(jr_ctx *c, const jt_node *n, oci_linux **l)
{
	return SUBOBJ(c, n, l, parse_linux_obj);
}

/* ---------------- top level ---------------- */

static int parse_spec_obj(jr_ctx *c, const jt_node *n, oci_spec *s)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "ociVersion", jr_string, &s->oci_version);
	JR_OPT(c, n, "root", parse_root, &s->root);
	JR_OPT(c, n, "mounts", parse_mounts, s);
	JR_OPT(c, n, "process", parse_process, &s->process);
	JR_OPT(c, n, "hostname", jr_string, &s->hostname);
	JR_OPT(c, n, "domainname", jr_string, &s->domainname);
	JR_OPT(c, n, "hooks", parse_hooks, &s->hooks);
	JR_OPT(c, n, "annotations", jr_kv_map, &s->annotations);
	JR_OPT(c, n, "linux", parse_linux, &s->linux_);
	return 0;
}

int oci_spec_parse(const char *data, size_t len, const char *name, oci_spec **out, cv_error_t *err)
{
	cleanup_jt jt_doc *doc = NULL;
	int r = jt_parse(data, len, name, &doc, err);
	if (r < 0)
		return r;
	cleanup_spec oci_spec *s = calloc(1, sizeof(*s));
	if (!s)
		return cv_error(err, ENOMEM, "%s", name);
	jr_ctx c;
	jr_init(&c, name, NULL, err);
	jt_node *root = jt_root(doc);
	if (root->type != JT_OBJECT)
		return cv_error(err, 0, "%s: expected a JSON object at the top level, got %s", name,
				jt_type_name(root->type));
	r = parse_spec_obj(&c, root, s);
	if (r < 0)
		return r;
	r = oci_spec_validate(s, name, err);
	if (r < 0)
		return r;
	*out = steal_pointer(&s);
	return 0;
}

int oci_process_parse(const char *data, size_t len, const char *name, oci_process **out, cv_error_t *err)
{
	cleanup_jt jt_doc *doc = NULL;
	int r = jt_parse(data, len, name, &doc, err);
	if (r < 0)
		return r;
	jt_node *root = jt_root(doc);
	if (root->type != JT_OBJECT)
		return cv_error(err, 0, "%s: expected a JSON object at the top level, got %s", name,
				jt_type_name(root->type));
	oci_process *p = calloc(1, sizeof(*p));
	if (!p)
		return cv_error(err, ENOMEM, "%s", name);
	jr_ctx c;
	jr_init(&c, name, NULL, err);
	r = parse_process_obj(&c, root, p);
	if (r == 0)
		r = oci_process_validate(p, name, "", err);
	if (r < 0) {
		oci_process_free(p);
		return r;
	}
	*out = p;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

int oci_spec_load(const char *path, oci_spec **out, cv_error_t *err)
{
	cleanup_free char *data = NULL;
	size_t len;
	int r = cv_read_file_at(AT_FDCWD, path, OCI_JSON_MAX_SIZE, CV_READ_REGULAR, &data, &len, err);
	if (r < 0)
		return r;
	return oci_spec_parse(data, len, base_name(path), out, err);
}

/* For oci/resources.c (update --resources): the same parser. */
int oci_resources_parse_obj_(jr_ctx *c, const jt_node *n, oci_resources *res)
{
	return parse_resources_obj(c, n, res);
}
