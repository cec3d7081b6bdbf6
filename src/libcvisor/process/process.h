/* The container process's own setup, run in the cloned child: namespaces,
 * rootfs, console, process attributes, credentials, capabilities, seccomp,
 * then a wait for `start` and execve. Every failure is sent to the parent
 * over the sync socket; the child then exits. */
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
	bool cloned_new_ns;        /* the new namespaces came with clone3 */
	int sync_fd;
	int exec_fifo_fd;          /* exec.fifo, O_PATH (create); -1 for run */
	const struct cv_seccomp *seccomp;
	bool no_pivot;
	bool no_new_keyring;
	int preserve_fds;          /* beyond stdio, including LISTEN_FDS */
	int listen_fds;            /* LISTEN_FDS passed through from the caller */
	/* v1 cgroup directories joined by the child first thing (may be NULL) */
	struct cv_cgroup_self_join *cgroup_join;
	bool unshare_cgroupns;     /* CLONE_NEWCGROUP left to the child, after the join */
	const int *mount_fds;      /* cv_rootfs_idmap_prepare's fds, or NULL */
	const struct cv_rootfs_pruned *pruned; /* cv_rootfs_pruned_prepare's, or NULL */
	bool die_with_parent;      /* SIGKILL when the runtime dies (cvisor do) */
	bool ns_handshake;         /* stop after the namespaces for the runtime (NS_READY) */
	bool no_start_wait;        /* after READY straight on to execve (cvisor do) */
	/* cvisor do: the fds that become 0, 1 and 2 first thing (-1: keep
	 * the inherited one); NULL: keep all three */
	const int *stdio;
	int console_mask;          /* process.terminal: the fds the pty becomes (cv_console_make_stdio) */
	bool init;                 /* fork before execve and stay as PID 1 (init.h) */
	int init_status_fd;        /* the init's status fd, or -1 */
};

__attribute__((noreturn)) void cv_child_main(const struct cv_child_config *c);

/* execvp-like lookup of file in the PATH of env (or the default PATH):
 * the result is malloc'd. Shared with exec. */
int cv_find_executable(const char *file, char *const *env, char **out, cv_error_t *err);
/* Sets the final credentials: groups, gid, uid (keeping capabilities over
 * the switch), then the capability sets. */
/* After loading a filter: when notify_fd >= 0, tells the runtime its
 * number (write only; the runtime takes it with pidfd_getfd and hands it
 * to the agent), waits until that is done, and closes it. */
int cv_seccomp_hand_off(int sync_fd, int notify_fd, cv_error_t *err);
/* Drops the bounding set, sets the groups (none unless additionalGids),
 * ids and capabilities of P. IN_USERNS: setgroups may be denied there (an
 * unprivileged caller's maps); the groups then stay as they are. */
int cv_process_set_user_caps(const oci_process *p, bool in_userns, cv_error_t *err);
/* Waits for our child pid, forwarding the runtime's signals to it; the exit
 * status is 128+signal when it was killed. */
int cv_wait_forwarding(pid_t pid, int pidfd, int *exit_status, cv_error_t *err);

#endif
