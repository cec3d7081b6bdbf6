/* The container process, run in the cloned child: create's (namespaces,
 * rootfs, console, then a wait for `start`) and exec's (the container's
 * namespaces, console), both ending in the one path that finishes a
 * process (cv_process_finish). Every failure is sent to the parent over
 * the sync socket; the child then exits. */
#ifndef CVISOR_PROCESS_H
#define CVISOR_PROCESS_H

#include <stdbool.h>
#include <sys/types.h>

#include "cgroups/cgroups.h"
#include "error.h"
#include "process/namespaces.h"
#include "oci/spec.h"
#include "seccomp/seccomp-filter.h"

struct cv_child_config {
	const oci_spec *spec;
	const char *rootfs;
	const char *id;
	const struct cv_ns_plan *plan;
	bool cloned_new_ns; /* the new namespaces came with clone3 */
	bool late_netns;    /* but the network namespace: cv_netns_maker's */
	int sync_fd;
	int exec_fifo_fd; /* exec.fifo, O_PATH (create); -1 for run */
	const struct cv_seccomp *seccomp;
	bool no_pivot;
	bool no_new_keyring;
	/* the new session keyring made before the process becomes root of its
	 * user namespace: charged to the caller's key quota, not to the uid
	 * that root maps to */
	bool keyring_as_caller;
	int preserve_fds; /* beyond stdio, including LISTEN_FDS */
	int listen_fds;   /* LISTEN_FDS passed through from the caller */
	/* v1 cgroup directories joined by the child first thing (may be NULL) */
	const struct cv_cgroup_self_join *cgroup_join;
	/* but joined once the mounts are done, where cgroup_late's are: the
	 * runtime's own setup (mounts, the network helper's fork) then runs
	 * outside the new v1 directories, ~0.2 ms sooner done (create.c) */
	bool cgroup_join_late;
	bool unshare_cgroupns; /* CLONE_NEWCGROUP left to the child, after the join */
	/* the v1 directories come later over sync_fd (CV_SYNC_CGROUP, see
	 * cv_cgroup_config.v1_after_clone): joined before a cgroup filesystem
	 * is mounted or, without one, once the mounts are done */
	bool cgroup_late;
	const int *mount_fds;                  /* cv_rootfs_idmap_prepare's fds, or NULL */
	const struct cv_rootfs_pruned *pruned; /* cv_rootfs_pruned_prepare's, or NULL */
	bool die_with_parent;                  /* SIGKILL when the runtime dies (cvisor do) */
	bool ns_handshake;                     /* stop after the namespaces for the runtime (NS_READY) */
	bool no_start_wait;                    /* after READY straight on to execve (cvisor do) */
	/* a sandbox's prepared run: START brings the program's arguments
	 * (process.args is a placeholder) and its stdin */
	bool late_args;
	/* cvisor do: the fds that become 0, 1 and 2 first thing (-1: keep
	 * the inherited one); NULL: keep all three */
	const int *stdio;
	int console_mask;   /* process.terminal: the fds the pty becomes (cv_console_make_stdio) */
	bool init;          /* fork before execve and stay as PID 1 (init.h) */
	int init_status_fd; /* the init's status fd, or -1 */
	int init_image_fd;  /* the init as a program of its own (init-image.c), or -1 */
	/* the init's way out of the cgroup at the end (cv_init_start) */
	const int *init_leave_fds;
	size_t init_nleave;
	/* the v1 memory cgroup kept from the init (cv_init_start), or NULL */
	const struct cv_cgroup_memory_apart *init_memory;
};

/* create's and run's container process, from its clone to execve. */
__attribute__((noreturn)) void cv_child_main(const struct cv_child_config *c);

struct cv_exec_child_config {
	const oci_process *p;
	const oci_linux *linux_; /* the container's */
	int init_pidfd;          /* the container's init, for its namespaces */
	int ns_flags;            /* every namespace of the container except pid */
	int root_fd;             /* without a mount namespace: the root to chroot to, else -1 */
	bool userns;
	int sync_fd;
	int preserve_fds;
	const struct cv_seccomp *seccomp;
	/* the container's v1 cgroups, joined first thing (may be NULL) */
	const struct cv_cgroup_self_join *cgroup_join;
};

/* exec's process, cloned into the container's pid namespace: its other
 * namespaces (or its root), its console, then cv_process_finish. */
__attribute__((noreturn)) void cv_exec_child_main(const struct cv_exec_child_config *x);

/* The last steps of every container process, create's and exec's alike,
 * in runc's order: the environment; rlimits, oomScoreAdj, scheduler, I/O
 * priority, personality, create's memory policy; the AppArmor profile and SELinux label (before
 * no_new_privs, which would forbid the transition); umask; the fds kept
 * over execve; exec's execCPUAffinity.final; without noNewPrivileges the
 * seccomp filter (it then needs CAP_SYS_ADMIN, so before the ids change);
 * groups, gid, uid and the capability sets; cwd; the program's path;
 * before_exec (create's wait for start); no_new_privs; with
 * noNewPrivileges the filter, as late as possible (a NOTIFY one before
 * before_exec, while the runtime still listens); execve, or the init
 * (init.h) that starts the program. Never returns: a failure is sent to
 * the runtime over sync_fd, then _exit(127). */
struct cv_process_finish {
	const oci_process *p;
	const oci_linux *linux_; /* personality */
	/* linux.memoryPolicy: create's init only, as in runc (exec's
	 * processes keep the runtime's default policy) */
	const oci_memory_policy *memory_policy;
	const struct cv_seccomp *seccomp;
	int sync_fd;
	int keep_fds; /* fds 3 .. 3+keep_fds-1 stay open over execve */
	/* in a user namespace, where setgroups may be denied (an unprivileged
	 * caller's maps): the groups then stay as they are */
	bool in_userns;
	bool exec_cpu_affinity; /* apply process.execCPUAffinity.final (exec) */
	char *const *extra_env; /* after process.env (LISTEN_FDS), or NULL */
	/* create's READY and wait for start, once the credentials are final;
	 * may be NULL */
	int (*before_exec)(void *arg, cv_error_t *err);
	void *arg;
	/* when set, the program's arguments are those before_exec puts here,
	 * not process.args: its path is looked up after before_exec */
	char **const *late_args;
	bool init;                 /* stay as PID 1 and start the program (init.h) */
	int init_status_fd;        /* the init's status fd, or -1 */
	int init_image_fd;         /* cv_init_start.image_fd */
	const int *init_leave_fds; /* cv_init_start.leave_fds */
	size_t init_nleave;
	const struct cv_cgroup_memory_apart *init_memory; /* cv_init_start.memory_*_fd, or NULL */
};
__attribute__((noreturn)) void cv_process_finish(const struct cv_process_finish *f);

/* Waits for our child pid, forwarding the runtime's signals to it; the exit
 * status is 128+signal when it was killed. */
int cv_wait_forwarding(pid_t pid, int pidfd, int *exit_status, cv_error_t *err);

#endif
