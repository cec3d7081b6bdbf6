/* Destructors of the spec model; every one accepts NULL. */
#include "config.h"

#include <stdlib.h>

#include "json.h"
#include "spec.h"
#include "resources-internal.h"

static void free_id_mappings(oci_id_mappings *m)
{
	free(m->v);
	m->v = NULL;
	m->len = 0;
}

static void free_hook_list(oci_hook_list *l)
{
	for (size_t i = 0; i < l->len; i++) {
		free(l->v[i].path);
		oci_strv_clear(&l->v[i].args);
		oci_strv_clear(&l->v[i].env);
	}
	free(l->v);
}

static void free_caps(oci_capabilities *c)
{
	if (!c)
		return;
	oci_strv_clear(&c->bounding);
	oci_strv_clear(&c->effective);
	oci_strv_clear(&c->inheritable);
	oci_strv_clear(&c->permitted);
	oci_strv_clear(&c->ambient);
	free(c);
}

void oci_process_free(oci_process *p)
{
	if (!p)
		return;
	free(p->user.additional_gids);
	free(p->user.username);
	oci_strv_clear(&p->args);
	free(p->command_line);
	oci_strv_clear(&p->env);
	free(p->cwd);
	free_caps(p->capabilities);
	for (size_t i = 0; i < p->rlimits_len; i++)
		free(p->rlimits[i].type);
	free(p->rlimits);
	free(p->apparmor_profile);
	if (p->scheduler) {
		free(p->scheduler->policy);
		oci_strv_clear(&p->scheduler->flags);
		free(p->scheduler);
	}
	free(p->selinux_label);
	if (p->io_priority) {
		free(p->io_priority->class_);
		free(p->io_priority);
	}
	if (p->exec_cpu_affinity) {
		free(p->exec_cpu_affinity->initial);
		free(p->exec_cpu_affinity->final);
		free(p->exec_cpu_affinity);
	}
	free(p);
}

static void free_resources(oci_resources *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->devices_len; i++) {
		free(r->devices[i].type);
		free(r->devices[i].access);
	}
	free(r->devices);
	free(r->memory);
	if (r->cpu) {
		free(r->cpu->cpus);
		free(r->cpu->mems);
		free(r->cpu);
	}
	if (r->block_io) {
		free(r->block_io->weight_device);
		free(r->block_io->throttle_read_bps.v);
		free(r->block_io->throttle_write_bps.v);
		free(r->block_io->throttle_read_iops.v);
		free(r->block_io->throttle_write_iops.v);
		free(r->block_io);
	}
	for (size_t i = 0; i < r->hugepage_limits_len; i++)
		free(r->hugepage_limits[i].page_size);
	free(r->hugepage_limits);
	if (r->network) {
		for (size_t i = 0; i < r->network->priorities_len; i++)
			free(r->network->priorities[i].name);
		free(r->network->priorities);
		free(r->network);
	}
	for (size_t i = 0; i < r->rdma_len; i++)
		free(r->rdma[i].device);
	free(r->rdma);
	oci_kv_list_clear(&r->unified);
	free(r);
}

static void free_seccomp(oci_seccomp *s)
{
	if (!s)
		return;
	free(s->default_action);
	oci_strv_clear(&s->architectures);
	oci_strv_clear(&s->flags);
	free(s->listener_path);
	free(s->listener_metadata);
	for (size_t i = 0; i < s->syscalls_len; i++) {
		oci_seccomp_syscall *sc = &s->syscalls[i];
		oci_strv_clear(&sc->names);
		free(sc->action);
		for (size_t j = 0; j < sc->args_len; j++)
			free(sc->args[j].op);
		free(sc->args);
	}
	free(s->syscalls);
	free(s);
}

static void free_linux(oci_linux *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->namespaces_len; i++) {
		free(l->namespaces[i].type);
		free(l->namespaces[i].path);
	}
	free(l->namespaces);
	free_id_mappings(&l->uid_mappings);
	free_id_mappings(&l->gid_mappings);
	for (size_t i = 0; i < l->time_offsets_len; i++)
		free(l->time_offsets[i].clock);
	free(l->time_offsets);
	for (size_t i = 0; i < l->devices_len; i++) {
		free(l->devices[i].type);
		free(l->devices[i].path);
	}
	free(l->devices);
	free(l->cgroups_path);
	free_resources(l->resources);
	if (l->intel_rdt) {
		free(l->intel_rdt->clos_id);
		free(l->intel_rdt->l3_cache_schema);
		free(l->intel_rdt->mem_bw_schema);
		oci_strv_clear(&l->intel_rdt->schemata);
		free(l->intel_rdt);
	}
	oci_kv_list_clear(&l->sysctl);
	free_seccomp(l->seccomp);
	free(l->rootfs_propagation);
	oci_strv_clear(&l->masked_paths);
	oci_strv_clear(&l->readonly_paths);
	free(l->mount_label);
	if (l->personality) {
		free(l->personality->domain);
		oci_strv_clear(&l->personality->flags);
		free(l->personality);
	}
	for (size_t i = 0; i < l->net_devices_len; i++) {
		free(l->net_devices[i].host_name);
		free(l->net_devices[i].name);
	}
	free(l->net_devices);
	if (l->memory_policy) {
		free(l->memory_policy->mode);
		free(l->memory_policy->nodes);
		oci_strv_clear(&l->memory_policy->flags);
		free(l->memory_policy);
	}
	free(l);
}

void oci_spec_free(oci_spec *s)
{
	if (!s)
		return;
	free(s->oci_version);
	if (s->root) {
		free(s->root->path);
		free(s->root);
	}
	for (size_t i = 0; i < s->mounts_len; i++) {
		oci_mount *m = &s->mounts[i];
		free(m->destination);
		free(m->type);
		free(m->source);
		oci_strv_clear(&m->options);
		free_id_mappings(&m->uid_mappings);
		free_id_mappings(&m->gid_mappings);
	}
	free(s->mounts);
	oci_process_free(s->process);
	free(s->hostname);
	free(s->domainname);
	if (s->hooks) {
		free_hook_list(&s->hooks->prestart);
		free_hook_list(&s->hooks->create_runtime);
		free_hook_list(&s->hooks->create_container);
		free_hook_list(&s->hooks->start_container);
		free_hook_list(&s->hooks->poststart);
		free_hook_list(&s->hooks->poststop);
		free(s->hooks);
	}
	oci_kv_list_clear(&s->annotations);
	free_linux(s->linux_);
	free(s);
}

/* For oci/resources.c (update --resources). */
void oci_resources_free_(oci_resources *res)
{
	free_resources(res);
}
