/* One interface for every cgroup layout: unified (v2), legacy (v1) and hybrid
 * (v1 controllers plus a cgroup2 mount at /sys/fs/cgroup/unified). Callers
 * never look at the layout; v1/v2 differences live in cgroups-v1.c and
 * cgroups-v2.c behind this header. */
#ifndef CVISOR_CGROUPS_H
#define CVISOR_CGROUPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "log.h"
#include "oci/spec.h"
#include "oci/stats.h"

enum cv_cgroup_layout {
	CV_CGROUP_UNIFIED = 2, /* cgroup2 at /sys/fs/cgroup */
	CV_CGROUP_LEGACY = 1,  /* v1 only */
	CV_CGROUP_HYBRID = 3,  /* v1 controllers + cgroup2 at /sys/fs/cgroup/unified */
};

/* Detected once per process and cached. */
int cv_cgroup_layout(enum cv_cgroup_layout *out, cv_error_t *err);

struct cv_cgroup; /* opaque: the container's directories, one per hierarchy */

/* annotations["org.cvisor.cgroup.controllers"]: which hierarchies a container
 * joins, for containers (the `cvisor do` sandbox) that need only a few and
 * should not pay a mkdir, an rmdir and the setup writes in every one (a
 * `run` of /bin/true on a hybrid host: 6.4 ms with all ten, 5.7 ms with
 * "memory,pids").
 *
 * The value is a comma-separated list of controller names, no spaces, e.g.
 * "memory,pids,cpu,cpuacct". Known names: cpu cpuacct cpuset memory pids
 * blkio io devices freezer net_cls net_prio perf_event hugetlb rdma misc
 * unified. An empty element or any other name is an error.
 * - Absent: every hierarchy, as always.
 * - v1 / hybrid: a directory only in the v1 hierarchies that hold at least
 *   one listed controller (co-mounted "cpu,cpuacct" counts if either is
 *   listed); named hierarchies (name=systemd) never. In the others the
 *   container stays in the runtime's own cgroup. On hybrid the cgroup2
 *   hierarchy (/sys/fs/cgroup/unified) is joined when "unified" is listed or
 *   when it holds a listed controller (there: hugetlb). Listed names that no
 *   hierarchy of the host holds are ignored, but at least one must match
 *   (else create fails: "no cgroup hierarchy of this host holds a listed
 *   controller").
 * - pure v2: one directory as always; the list is still validated.
 * - linux.resources that set something need their controller listed:
 *   memory -> memory, cpu shares/quota/period/burst/realtime/idle -> cpu,
 *   cpu.cpus/mems -> cpuset, pids.limit -> pids, blockIO -> blkio (io on
 *   v2), hugepageLimits -> hugetlb, network.classID -> net_cls,
 *   network.priorities -> net_prio, rdma -> rdma, unified -> unified
 *   (hybrid), a non-empty devices list -> devices (v1 and hybrid; v2 uses an
 *   eBPF program, no controller; `cvisor spec`'s config has one, a deny-all
 *   rule: drop it or list "devices"). Errors read `annotation
 *   org.cvisor.cgroup.controllers "pids": linux.resources.memory needs the
 *   memory controller, which the list leaves out`.
 *   Without "devices" the container has no devices cgroup, so the default
 *   allow-list (null zero full random urandom tty console ptmx pts, mknod)
 *   is not enforced either: a process with CAP_MKNOD outside a user
 *   namespace could make and open any device node, and a node bind-mounted
 *   in is usable. List "devices" unless the container lacks CAP_MKNOD, has
 *   its own user namespace, and gets no device node from the host.
 * - Without freezer (and, on hybrid, without "unified") pause/resume fail;
 *   update fails for a resource whose hierarchy is missing; stats report
 *   what exists; kill/ps/delete use whichever directory holds the processes.
 * - Refused with --systemd-cgroup: systemd gives a scope a directory in every
 *   hierarchy it manages, whatever the runtime joins.
 * The directories made are saved with the container (cv_cgroup_save) with
 * the list itself, so later commands act on exactly those. */
#define CV_CGROUP_ANNOTATION_CONTROLLERS "org.cvisor.cgroup.controllers"

/* Parses the annotation's value into a bit set of controllers (bit i is
 * name i of the known list above, in that order); errors name the
 * annotation and the value. */
int cv_cgroup_controllers_parse(const char *value, uint32_t *mask, cv_error_t *err);
/* The controller name of bit `bit` of a parsed mask; NULL out of range. */
const char *cv_cgroup_controller_name(unsigned bit);
/* Fails when `r` sets something whose controller the list (`value`, parsed
 * into `mask`) leaves out, on a host of the given layout. */
int cv_cgroup_controllers_check(const char *value, uint32_t mask, const oci_resources *r, enum cv_cgroup_layout layout,
				cv_error_t *err);

struct cv_cgroup_config {
	const char *id;                 /* container id, used for the default path */
	const char *cgroups_path;       /* linux.cgroupsPath; NULL/empty = default */
	const oci_resources *resources; /* may be NULL */
	bool systemd;                   /* --systemd-cgroup */
	bool rootless;                  /* failures to create are warnings, not errors */
	/* linux.devices: the nodes the runtime creates are allowed in the
	 * device cgroup after the resources' own rules. May be NULL. */
	const oci_device *devices;
	size_t devices_len;
	/* CV_CGROUP_ANNOTATION_CONTROLLERS's value; NULL: every hierarchy */
	const char *controllers;
	/* no directory anywhere (a sandbox run with no limit and no figures
	 * to read): the cgroup made is empty, as a rootless one without
	 * delegation; resources must be NULL */
	bool none;
	/* On a host with v1 hierarchies (hybrid, legacy): cv_cgroup_create
	 * makes only the v2 directory, for clone3(CLONE_INTO_CGROUP), and
	 * cv_cgroup_create_v1 the v1 ones and the resources once the
	 * container process exists, while it prepares its root (~0.4 ms of
	 * mkdir in ten hierarchies off the path to the program). The process
	 * joins them itself (cv_cgroup_self_join_open, sent to it). */
	bool v1_after_clone;
};

/* Everything cv_cgroup_create would refuse about cfg->controllers (names,
 * resources it leaves out, --systemd-cgroup), without touching the host but
 * for the layout's statfs: for callers that must fail before making anything
 * else. 0 when cfg->controllers is NULL. */
int cv_cgroup_config_validate(const struct cv_cgroup_config *cfg, cv_error_t *err);

/* Creates the directories (recording which ones cvisor made) and applies the
 * resources. On failure nothing it created is left behind. */
int cv_cgroup_create(const struct cv_cgroup_config *cfg, struct cv_cgroup **out, cv_error_t *err);
/* The v1 directories and the resources deferred by
 * cv_cgroup_config.v1_after_clone (nothing otherwise). On failure the
 * caller destroys cg, as after any failure once the process exists. */
int cv_cgroup_create_v1(struct cv_cgroup *cg, const struct cv_cgroup_config *cfg, cv_error_t *err);
/* Whether cv_cgroup_create_v1 has directories to make. */
bool cv_cgroup_v1_pending(const struct cv_cgroup *cg);
/* Moves pid into every directory of the container's cgroup. */
int cv_cgroup_enter(struct cv_cgroup *cg, pid_t pid, cv_error_t *err);
/* An O_RDONLY|O_DIRECTORY fd of the v2 directory in any layout (hybrid's
 * cgroup2 hierarchy too), for clone3(CLONE_INTO_CGROUP); -1 when there is
 * none. Owned by cg. */
int cv_cgroup_clone_fd(struct cv_cgroup *cg);

/* Joining the v1 directories from inside: the runtime opens every v1 `tasks`
 * file before clone (cv_cgroup_self_join_open), the still single-threaded
 * child writes "0" to each first thing (cv_cgroup_self_join), which moves it
 * without the global threadgroup lock that a pid written from outside takes
 * (an RCU grace period, ~10 ms, per create). The v2 directory is not in the
 * set: clone3(CLONE_INTO_CGROUP) with cv_cgroup_clone_fd places the child
 * there. Rootless failures are warnings, as in cv_cgroup_enter. */
struct cv_cgroup_self_join {
	int *fd;
	const char **path; /* borrowed from the cgroup, for messages */
	size_t n;
	bool rootless;
	struct cv_cgroup *cg;
};
int cv_cgroup_self_join_open(struct cv_cgroup *cg, struct cv_cgroup_self_join *j, cv_error_t *err);
/* In the child; closes the files, and its copies of the cgroup's directory
 * fds: the container process keeps no host directory open (a way out of
 * the rootfs, CVE-2024-21626). */
int cv_cgroup_self_join(const struct cv_cgroup_self_join *j, cv_error_t *err);
/* One `tasks` file of them (PATH: its directory, for messages). */
int cv_cgroup_self_join_one(int tasks, const char *path, bool rootless, cv_error_t *err);
void cv_cgroup_self_join_close(struct cv_cgroup_self_join *j);

/* Leaving from inside, at the end: an O_WRONLY fd (O_CLOEXEC) of the file
 * that moves its writer ("0") into the directory above the topmost one
 * cvisor made, for each directory of CG (v1 `tasks`, v2 `cgroup.procs`),
 * in *FDS (malloc'd, *N of them). A sandbox's init writes them once its
 * namespace is empty, so that the cgroup can go before the init's own
 * exit (process/init-loop.h). None (*N 0) when one cannot be opened:
 * the init then stays to its exit. */
int cv_cgroup_leave_open(const struct cv_cgroup *cg, int **fds, size_t *n, cv_error_t *err);

/* The v1 memory directory, for a sandbox's init that shares the runtime's
 * memory (lifecycle/shared-launch.h): the OOM killer of a memory cgroup
 * kills every process that shares its victim's memory, the runtime too.
 * The init joins it with the others (its cgroup namespace is rooted
 * there), leaves it before the program starts, and the program joins it
 * alone before its execve (process/init.h). Fills OUT with a copy of the
 * directory's `tasks` fd of J and its leave fd, taken out of FDS (of
 * cv_cgroup_leave_open; *N one less): 1. 0 when there is no v1 memory
 * directory, or no way out of every directory (OUT -1s). */
struct cv_cgroup_memory_apart {
	int leave; /* `tasks` of the directory above the one cvisor made */
	int join;  /* the directory's own `tasks` */
};
int cv_cgroup_memory_apart(const struct cv_cgroup *cg, const struct cv_cgroup_self_join *j, int *fds, size_t *n,
			   struct cv_cgroup_memory_apart *out, cv_error_t *err);

/* Persisting: the directories as "hierarchy" -> absolute path pairs (keys are
 * controller names, "unified" for the v2 directory) and the set cvisor
 * created, so a later command can act on and remove exactly those. */
int cv_cgroup_save(const struct cv_cgroup *cg, oci_kv_list *paths, cv_error_t *err);
int cv_cgroup_load(const oci_kv_list *paths, struct cv_cgroup **out, cv_error_t *err);

int cv_cgroup_pids(struct cv_cgroup *cg, pid_t **pids, size_t *n, cv_error_t *err);
/* Signals every process (cgroup.kill for SIGKILL on v2 when present). */
int cv_cgroup_kill(struct cv_cgroup *cg, int signal, cv_error_t *err);
int cv_cgroup_freeze(struct cv_cgroup *cg, bool freeze, cv_error_t *err);
int cv_cgroup_frozen(struct cv_cgroup *cg, bool *frozen, cv_error_t *err);
int cv_cgroup_update(struct cv_cgroup *cg, const oci_resources *resources, cv_error_t *err);
/* Removes the directories cvisor created, waiting (bounded) for them to empty. */
int cv_cgroup_destroy(struct cv_cgroup *cg, cv_error_t *err);
void cv_cgroup_free(struct cv_cgroup *cg);

/* Removes the directories right below this process's own cgroup, in the v2
 * hierarchy and the v1 ones holding one of CONTROLLERS (comma-separated;
 * NULL: every hierarchy), for which stale(name, arg) says so (empty ones: a
 * cgroup that still holds processes stays). *removed counts the directories
 * removed. For `cvisor gc`: what a runtime that died left with the default
 * path. */
int cv_cgroup_remove_stale(const char *controllers, bool (*stale)(const char *name, void *arg), void *arg,
			   unsigned *removed, cv_error_t *err);

/* Resource statistics in runc's schema, from whichever hierarchy holds each
 * controller (v1 files, or the cgroup2 ones). Missing files leave zeros. */
int cv_cgroup_stats(struct cv_cgroup *cg, oci_stats *out, cv_error_t *err);

/* OOM notifications: v1 memory.oom_control through an eventfd registered in
 * cgroup.event_control, v2 the oom_kill counter of memory.events watched with
 * inotify. cv_cgroup_oom_fd is the fd to poll for POLLIN; after it fires,
 * cv_cgroup_oom_read returns how many OOM events happened since last time. */
struct cv_cgroup_oom;
int cv_cgroup_oom_open(struct cv_cgroup *cg, struct cv_cgroup_oom **out, cv_error_t *err);
int cv_cgroup_oom_fd(const struct cv_cgroup_oom *o);
int cv_cgroup_oom_read(struct cv_cgroup_oom *o, uint64_t *events, cv_error_t *err);
void cv_cgroup_oom_free(struct cv_cgroup_oom *o);
static inline void cv_cgroup_oom_freep(struct cv_cgroup_oom **o)
{
	cv_cgroup_oom_free(*o);
}
#define cleanup_cgroup_oom __attribute__((cleanup(cv_cgroup_oom_freep)))

static inline void cv_cgroup_freep(struct cv_cgroup **c)
{
	cv_cgroup_free(*c);
}
#define cleanup_cgroup __attribute__((cleanup(cv_cgroup_freep)))

#endif
