/* oci_spec -> JSON. Only properties that are set are written, in the order
 * runc writes them, so `cvisor spec` output reads like `runc spec`'s. */
#include "config.h"

#include "json.h"
#include "spec.h"

static void emit_process(jw *w, const oci_process *p)
{
	jw_open(w);
	if (p->terminal) {
		jw_key(w, "terminal");
		jw_bool(w, true);
	}
	if (p->has_console_size) {
		jw_key(w, "consoleSize");
		jw_open(w);
		jw_key(w, "height");
		jw_u64(w, p->console_height);
		jw_key(w, "width");
		jw_u64(w, p->console_width);
		jw_close(w);
	}
	jw_key(w, "user");
	jw_open(w);
	jw_key(w, "uid");
	jw_u64(w, p->user.uid);
	jw_key(w, "gid");
	jw_u64(w, p->user.gid);
	jw_kopt_u32(w, "umask", p->user.umask);
	if (p->user.additional_gids_len) {
		jw_key(w, "additionalGids");
		jw_aopen(w);
		for (size_t i = 0; i < p->user.additional_gids_len; i++)
			jw_u64(w, p->user.additional_gids[i]);
		jw_aclose(w);
	}
	jw_kstr(w, "username", p->user.username);
	jw_close(w);
	jw_kstrv(w, "args", &p->args);
	jw_kstr(w, "commandLine", p->command_line);
	jw_kstrv(w, "env", &p->env);
	jw_kstr(w, "cwd", p->cwd);
	if (p->capabilities) {
		const oci_capabilities *c = p->capabilities;
		jw_key(w, "capabilities");
		jw_open(w);
		jw_kstrv(w, "bounding", &c->bounding);
		jw_kstrv(w, "effective", &c->effective);
		jw_kstrv(w, "inheritable", &c->inheritable);
		jw_kstrv(w, "permitted", &c->permitted);
		jw_kstrv(w, "ambient", &c->ambient);
		jw_close(w);
	}
	if (p->rlimits_len) {
		jw_key(w, "rlimits");
		jw_aopen(w);
		for (size_t i = 0; i < p->rlimits_len; i++) {
			jw_open(w);
			jw_kstr(w, "type", p->rlimits[i].type);
			jw_key(w, "hard");
			jw_u64(w, p->rlimits[i].hard);
			jw_key(w, "soft");
			jw_u64(w, p->rlimits[i].soft);
			jw_close(w);
		}
		jw_aclose(w);
	}
	if (p->no_new_privileges) {
		jw_key(w, "noNewPrivileges");
		jw_bool(w, true);
	}
	jw_kstr(w, "apparmorProfile", p->apparmor_profile);
	jw_kopt_i64(w, "oomScoreAdj", p->oom_score_adj);
	if (p->scheduler) {
		const oci_scheduler *s = p->scheduler;
		jw_key(w, "scheduler");
		jw_open(w);
		jw_kstr(w, "policy", s->policy);
		jw_kopt_i64(w, "nice", s->nice);
		jw_kopt_i64(w, "priority", s->priority);
		jw_kstrv(w, "flags", &s->flags);
		jw_kopt_u64(w, "runtime", s->runtime);
		jw_kopt_u64(w, "deadline", s->deadline);
		jw_kopt_u64(w, "period", s->period);
		jw_close(w);
	}
	jw_kstr(w, "selinuxLabel", p->selinux_label);
	if (p->io_priority) {
		jw_key(w, "ioPriority");
		jw_open(w);
		jw_kstr(w, "class", p->io_priority->class_);
		jw_key(w, "priority");
		jw_i64(w, p->io_priority->priority);
		jw_close(w);
	}
	if (p->exec_cpu_affinity) {
		jw_key(w, "execCPUAffinity");
		jw_open(w);
		jw_kstr(w, "initial", p->exec_cpu_affinity->initial);
		jw_kstr(w, "final", p->exec_cpu_affinity->final);
		jw_close(w);
	}
	jw_close(w);
}

static void emit_hook_list(jw *w, const char *key, const oci_hook_list *l)
{
	if (!l->len)
		return;
	jw_key(w, key);
	jw_aopen(w);
	for (size_t i = 0; i < l->len; i++) {
		jw_open(w);
		jw_kstr(w, "path", l->v[i].path);
		jw_kstrv(w, "args", &l->v[i].args);
		jw_kstrv(w, "env", &l->v[i].env);
		jw_kopt_i64(w, "timeout", l->v[i].timeout);
		jw_close(w);
	}
	jw_aclose(w);
}

static void emit_throttle(jw *w, const char *key, const oci_throttle_list *l)
{
	if (!l->len)
		return;
	jw_key(w, key);
	jw_aopen(w);
	for (size_t i = 0; i < l->len; i++) {
		jw_open(w);
		jw_key(w, "major");
		jw_i64(w, l->v[i].major);
		jw_key(w, "minor");
		jw_i64(w, l->v[i].minor);
		jw_key(w, "rate");
		jw_u64(w, l->v[i].rate);
		jw_close(w);
	}
	jw_aclose(w);
}

static void emit_resources(jw *w, const oci_resources *r)
{
	jw_key(w, "resources");
	jw_open(w);
	if (r->devices_len) {
		jw_key(w, "devices");
		jw_aopen(w);
		for (size_t i = 0; i < r->devices_len; i++) {
			const oci_device_cgroup *d = &r->devices[i];
			jw_open(w);
			jw_key(w, "allow");
			jw_bool(w, d->allow);
			jw_kstr(w, "type", d->type);
			jw_kopt_i64(w, "major", d->major);
			jw_kopt_i64(w, "minor", d->minor);
			jw_kstr(w, "access", d->access);
			jw_close(w);
		}
		jw_aclose(w);
	}
	if (r->memory) {
		const oci_memory *m = r->memory;
		jw_key(w, "memory");
		jw_open(w);
		jw_kopt_i64(w, "limit", m->limit);
		jw_kopt_i64(w, "reservation", m->reservation);
		jw_kopt_i64(w, "swap", m->swap);
		jw_kopt_i64(w, "kernel", m->kernel);
		jw_kopt_i64(w, "kernelTCP", m->kernel_tcp);
		jw_kopt_u64(w, "swappiness", m->swappiness);
		jw_kopt_bool(w, "disableOOMKiller", m->disable_oom_killer);
		jw_kopt_bool(w, "useHierarchy", m->use_hierarchy);
		jw_kopt_bool(w, "checkBeforeUpdate", m->check_before_update);
		jw_close(w);
	}
	if (r->cpu) {
		const oci_cpu *c = r->cpu;
		jw_key(w, "cpu");
		jw_open(w);
		jw_kopt_u64(w, "shares", c->shares);
		jw_kopt_i64(w, "quota", c->quota);
		jw_kopt_u64(w, "burst", c->burst);
		jw_kopt_u64(w, "period", c->period);
		jw_kopt_i64(w, "realtimeRuntime", c->realtime_runtime);
		jw_kopt_u64(w, "realtimePeriod", c->realtime_period);
		jw_kstr(w, "cpus", c->cpus);
		jw_kstr(w, "mems", c->mems);
		jw_kopt_i64(w, "idle", c->idle);
		jw_close(w);
	}
	if (r->has_pids) {
		jw_key(w, "pids");
		jw_open(w);
		jw_key(w, "limit");
		jw_i64(w, r->pids_limit.v);
		jw_close(w);
	}
	if (r->block_io) {
		const oci_block_io *b = r->block_io;
		jw_key(w, "blockIO");
		jw_open(w);
		jw_kopt_u32(w, "weight", b->weight);
		jw_kopt_u32(w, "leafWeight", b->leaf_weight);
		if (b->weight_device_len) {
			jw_key(w, "weightDevice");
			jw_aopen(w);
			for (size_t i = 0; i < b->weight_device_len; i++) {
				const oci_weight_device *d = &b->weight_device[i];
				jw_open(w);
				jw_key(w, "major");
				jw_i64(w, d->major);
				jw_key(w, "minor");
				jw_i64(w, d->minor);
				jw_kopt_u32(w, "weight", d->weight);
				jw_kopt_u32(w, "leafWeight", d->leaf_weight);
				jw_close(w);
			}
			jw_aclose(w);
		}
		emit_throttle(w, "throttleReadBpsDevice", &b->throttle_read_bps);
		emit_throttle(w, "throttleWriteBpsDevice", &b->throttle_write_bps);
		emit_throttle(w, "throttleReadIOPSDevice", &b->throttle_read_iops);
		emit_throttle(w, "throttleWriteIOPSDevice", &b->throttle_write_iops);
		jw_close(w);
	}
	if (r->hugepage_limits_len) {
		jw_key(w, "hugepageLimits");
		jw_aopen(w);
		for (size_t i = 0; i < r->hugepage_limits_len; i++) {
			jw_open(w);
			jw_kstr(w, "pageSize", r->hugepage_limits[i].page_size);
			jw_key(w, "limit");
			jw_u64(w, r->hugepage_limits[i].limit);
			jw_close(w);
		}
		jw_aclose(w);
	}
	if (r->network) {
		jw_key(w, "network");
		jw_open(w);
		jw_kopt_u32(w, "classID", r->network->class_id);
		if (r->network->priorities_len) {
			jw_key(w, "priorities");
			jw_aopen(w);
			for (size_t i = 0; i < r->network->priorities_len; i++) {
				jw_open(w);
				jw_kstr(w, "name", r->network->priorities[i].name);
				jw_key(w, "priority");
				jw_u64(w, r->network->priorities[i].priority);
				jw_close(w);
			}
			jw_aclose(w);
		}
		jw_close(w);
	}
	if (r->rdma_len) {
		jw_key(w, "rdma");
		jw_open(w);
		for (size_t i = 0; i < r->rdma_len; i++) {
			jw_key(w, r->rdma[i].device);
			jw_open(w);
			jw_kopt_u32(w, "hcaHandles", r->rdma[i].hca_handles);
			jw_kopt_u32(w, "hcaObjects", r->rdma[i].hca_objects);
			jw_close(w);
		}
		jw_close(w);
	}
	jw_kkv(w, "unified", &r->unified);
	jw_close(w);
}

static void emit_seccomp(jw *w, const oci_seccomp *s)
{
	jw_key(w, "seccomp");
	jw_open(w);
	jw_kstr(w, "defaultAction", s->default_action);
	jw_kopt_u32(w, "defaultErrnoRet", s->default_errno_ret);
	jw_kstrv(w, "architectures", &s->architectures);
	jw_kstrv(w, "flags", &s->flags);
	jw_kstr(w, "listenerPath", s->listener_path);
	jw_kstr(w, "listenerMetadata", s->listener_metadata);
	if (s->syscalls_len) {
		jw_key(w, "syscalls");
		jw_aopen(w);
		for (size_t i = 0; i < s->syscalls_len; i++) {
			const oci_seccomp_syscall *sc = &s->syscalls[i];
			jw_open(w);
			jw_kstrv(w, "names", &sc->names);
			jw_kstr(w, "action", sc->action);
			jw_kopt_u32(w, "errnoRet", sc->errno_ret);
			if (sc->args_len) {
				jw_key(w, "args");
				jw_aopen(w);
				for (size_t j = 0; j < sc->args_len; j++) {
					jw_open(w);
					jw_key(w, "index");
					jw_u64(w, sc->args[j].index);
					jw_key(w, "value");
					jw_u64(w, sc->args[j].value);
					jw_kopt_u64(w, "valueTwo", sc->args[j].value_two);
					jw_kstr(w, "op", sc->args[j].op);
					jw_close(w);
				}
				jw_aclose(w);
			}
			jw_close(w);
		}
		jw_aclose(w);
	}
	jw_close(w);
}

static void emit_linux(jw *w, const oci_linux *l)
{
	jw_key(w, "linux");
	jw_open(w);
	jw_kid_mappings(w, "uidMappings", &l->uid_mappings);
	jw_kid_mappings(w, "gidMappings", &l->gid_mappings);
	jw_kkv(w, "sysctl", &l->sysctl);
	if (l->resources)
		emit_resources(w, l->resources);
	jw_kstr(w, "cgroupsPath", l->cgroups_path);
	if (l->namespaces_len) {
		jw_key(w, "namespaces");
		jw_aopen(w);
		for (size_t i = 0; i < l->namespaces_len; i++) {
			jw_open(w);
			jw_kstr(w, "type", l->namespaces[i].type);
			jw_kstr(w, "path", l->namespaces[i].path);
			jw_close(w);
		}
		jw_aclose(w);
	}
	if (l->time_offsets_len) {
		jw_key(w, "timeOffsets");
		jw_open(w);
		for (size_t i = 0; i < l->time_offsets_len; i++) {
			jw_key(w, l->time_offsets[i].clock);
			jw_open(w);
			jw_key(w, "secs");
			jw_i64(w, l->time_offsets[i].secs);
			jw_key(w, "nanosecs");
			jw_u64(w, l->time_offsets[i].nanosecs);
			jw_close(w);
		}
		jw_close(w);
	}
	if (l->devices_len) {
		jw_key(w, "devices");
		jw_aopen(w);
		for (size_t i = 0; i < l->devices_len; i++) {
			const oci_device *d = &l->devices[i];
			jw_open(w);
			jw_kstr(w, "path", d->path);
			jw_kstr(w, "type", d->type);
			jw_key(w, "major");
			jw_i64(w, d->major);
			jw_key(w, "minor");
			jw_i64(w, d->minor);
			jw_kopt_u32(w, "fileMode", d->file_mode);
			jw_kopt_u32(w, "uid", d->uid);
			jw_kopt_u32(w, "gid", d->gid);
			jw_close(w);
		}
		jw_aclose(w);
	}
	if (l->net_devices_len) {
		jw_key(w, "netDevices");
		jw_open(w);
		for (size_t i = 0; i < l->net_devices_len; i++) {
			jw_key(w, l->net_devices[i].host_name);
			jw_open(w);
			jw_kstr(w, "name", l->net_devices[i].name);
			jw_close(w);
		}
		jw_close(w);
	}
	if (l->seccomp)
		emit_seccomp(w, l->seccomp);
	jw_kstr(w, "rootfsPropagation", l->rootfs_propagation);
	jw_kstrv(w, "maskedPaths", &l->masked_paths);
	jw_kstrv(w, "readonlyPaths", &l->readonly_paths);
	jw_kstr(w, "mountLabel", l->mount_label);
	if (l->intel_rdt) {
		const oci_intel_rdt *r = l->intel_rdt;
		jw_key(w, "intelRdt");
		jw_open(w);
		jw_kstr(w, "closID", r->clos_id);
		jw_kstr(w, "l3CacheSchema", r->l3_cache_schema);
		jw_kstr(w, "memBwSchema", r->mem_bw_schema);
		jw_kstrv(w, "schemata", &r->schemata);
		jw_kopt_bool(w, "enableMonitoring", r->enable_monitoring);
		jw_close(w);
	}
	if (l->personality) {
		jw_key(w, "personality");
		jw_open(w);
		jw_kstr(w, "domain", l->personality->domain);
		jw_kstrv(w, "flags", &l->personality->flags);
		jw_close(w);
	}
	if (l->memory_policy) {
		jw_key(w, "memoryPolicy");
		jw_open(w);
		jw_kstr(w, "mode", l->memory_policy->mode);
		jw_kstr(w, "nodes", l->memory_policy->nodes);
		jw_kstrv(w, "flags", &l->memory_policy->flags);
		jw_close(w);
	}
	jw_close(w);
}

static void emit_spec(jw *w, const oci_spec *s)
{
	jw_open(w);
	jw_kstr(w, "ociVersion", s->oci_version);
	if (s->process) {
		jw_key(w, "process");
		emit_process(w, s->process);
	}
	if (s->root) {
		jw_key(w, "root");
		jw_open(w);
		jw_kstr(w, "path", s->root->path);
		if (s->root->readonly) {
			jw_key(w, "readonly");
			jw_bool(w, true);
		}
		jw_close(w);
	}
	jw_kstr(w, "hostname", s->hostname);
	jw_kstr(w, "domainname", s->domainname);
	if (s->mounts_len) {
		jw_key(w, "mounts");
		jw_aopen(w);
		for (size_t i = 0; i < s->mounts_len; i++) {
			const oci_mount *m = &s->mounts[i];
			jw_open(w);
			jw_kstr(w, "destination", m->destination);
			jw_kstr(w, "type", m->type);
			jw_kstr(w, "source", m->source);
			jw_kstrv(w, "options", &m->options);
			jw_kid_mappings(w, "uidMappings", &m->uid_mappings);
			jw_kid_mappings(w, "gidMappings", &m->gid_mappings);
			jw_close(w);
		}
		jw_aclose(w);
	}
	if (s->hooks) {
		const oci_hooks *h = s->hooks;
		jw_key(w, "hooks");
		jw_open(w);
		emit_hook_list(w, "prestart", &h->prestart);
		emit_hook_list(w, "createRuntime", &h->create_runtime);
		emit_hook_list(w, "createContainer", &h->create_container);
		emit_hook_list(w, "startContainer", &h->start_container);
		emit_hook_list(w, "poststart", &h->poststart);
		emit_hook_list(w, "poststop", &h->poststop);
		jw_close(w);
	}
	jw_kkv(w, "annotations", &s->annotations);
	if (s->linux_)
		emit_linux(w, s->linux_);
	jw_close(w);
}

int oci_spec_emit(const oci_spec *spec, bool pretty, char **out, size_t *out_len, cv_error_t *err)
{
	jw w;
	int r = jw_init(&w, pretty, err);
	if (r < 0)
		return r;
	emit_spec(&w, spec);
	r = jw_finish(&w, out, out_len, err);
	jw_release(&w);
	return r;
}

int oci_process_emit(const oci_process *p, bool pretty, char **out, size_t *out_len, cv_error_t *err)
{
	jw w;
	int r = jw_init(&w, pretty, err);
	if (r < 0)
		return r;
	emit_process(&w, p);
	r = jw_finish(&w, out, out_len, err);
	jw_release(&w);
	return r;
}
