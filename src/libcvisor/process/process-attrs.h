/* Per-process attributes of process.* and linux.*: rlimits, scheduler, I/O
 * priority, oomScoreAdj, personality, the AppArmor profile and SELinux
 * label, sysctl. Each error names the field. */
#ifndef CVISOR_PROCESS_ATTRS_H
#define CVISOR_PROCESS_ATTRS_H

#include <sched.h>

#include <stdbool.h>

#include "error.h"
#include "oci/spec.h"

/* Checks what can be checked before the process exists (names of rlimit
 * types, scheduler policy, ioprio class, personality domain; cpu
 * lists): run in the runtime, so bad input fails before anything is
 * made. */
int cv_attrs_validate(const oci_process *p, const oci_linux *linux_, cv_error_t *err);
/* NOFILE false: every rlimit but RLIMIT_NOFILE; true: that one alone. The
 * runtime's own fds stay open until execve: RLIMIT_NOFILE comes last, or a
 * low limit (16) leaves the runtime no fd for the cwd. */
int cv_rlimits_apply(const oci_process *p, bool nofile, cv_error_t *err);
int cv_oom_score_adj_apply(const oci_process *p, cv_error_t *err);
int cv_scheduler_apply(const oci_process *p, cv_error_t *err);
/* execCPUAffinity: a cpu list ("0-3,7") into a CPU_ALLOC'd set (NULL for
 * an empty or absent list); FIELD names it in errors. */
int cv_cpu_list_parse(const char *list, const char *field, cpu_set_t **set, size_t *size, cv_error_t *err);
/* The same for a NUMA node list (linux.memoryPolicy.nodes): a cpu_set_t's
 * bits are laid out as the kernel's nodemask (unsigned longs). */
int cv_node_list_parse(const char *list, const char *field, cpu_set_t **set, size_t *size, cv_error_t *err);
/* sched_setaffinity of the calling process to LIST; nothing when empty. */
int cv_cpu_affinity_apply(const char *list, const char *field, cv_error_t *err);
static inline void cv_cpuset_freep(cpu_set_t **s)
{
	if (*s)
		CPU_FREE(*s);
}
#define cleanup_cpuset __attribute__((cleanup(cv_cpuset_freep)))
int cv_io_priority_apply(const oci_process *p, cv_error_t *err);
int cv_personality_apply(const oci_linux *linux_, cv_error_t *err);
/* chdir to CWD (FIELD names it in errors) resolved inside the current root,
 * never through a magic link: /proc/self/fd/N of a directory fd the
 * runtime still holds would put the cwd on the host (CVE-2024-21626). */
int cv_cwd_apply(const char *cwd, const char *field, cv_error_t *err);
/* The AppArmor profile and SELinux label the next execve takes on. */
int cv_lsm_apply(const oci_process *p, cv_error_t *err);
/* new_flags: the CLONE_NEW* the container owns, to refuse a sysctl whose
 * namespace it shares with the host. */
int cv_sysctl_apply(const oci_linux *linux_, int new_flags, cv_error_t *err);

#endif
