/* Linux namespaces of the container: which to create and which to join,
 * uid/gid maps and time offsets (written by the parent), loopback. */
#ifndef CVISOR_NAMESPACES_H
#define CVISOR_NAMESPACES_H

#include <stdbool.h>
#include <sys/types.h>

#include "error.h"
#include "oci/spec.h"

struct cv_ns_plan {
	int new_flags;            /* CLONE_NEW* to create */
	int join_flags;           /* CLONE_NEW* joined through a path */
	const char *join_path[8]; /* indexed like cv_ns_types */
	int join_type[8];
	int njoin;
	const char *user_path; /* user namespace to join first, or NULL */
	const char *pid_path;  /* joined by the parent before clone */
};

/* CLONE_NEW* for an OCI namespace type, 0 when unknown. */
int cv_ns_flag(const char *type);
int cv_ns_plan_build(const oci_linux *linux_, struct cv_ns_plan *plan, cv_error_t *err);
/* In the child: setns every joined namespace except pid (user first). */
int cv_ns_join(const struct cv_ns_plan *plan, cv_error_t *err);
/* In the parent, for a new user namespace of pid. */
int cv_ns_write_id_maps(pid_t pid, const oci_linux *linux_, cv_error_t *err);
/* The files cv_ns_write_id_maps writes, in its order, when this process
 * may write them itself: "uid_map", "setgroups" ("deny") when
 * unprivileged, "gid_map", each's text formatted. 0 with *N set; 1 when a
 * map needs the setuid helpers (newuidmap), which only
 * cv_ns_write_id_maps runs; -ENOSPC for a map longer than CV_NS_MAP_TEXT. */
#define CV_NS_MAP_TEXT 512
struct cv_ns_map_file {
	const char *name;
	char text[CV_NS_MAP_TEXT];
	size_t len;
};
int cv_ns_id_map_files(const oci_linux *linux_, struct cv_ns_map_file files[3], size_t *n);
/* Whether this process runs in a user namespace other than the initial
 * one (podman's rootless mode runs the runtime as root in one), from
 * /proc/self/uid_map as runc and crun decide it. */
bool cv_ns_in_user_namespace(void);
/* In the parent, for a child that unshared CLONE_NEWTIME. */
int cv_ns_write_time_offsets(pid_t pid, const oci_linux *linux_, cv_error_t *err);
/* In a new network namespace: bring "lo" up. */
int cv_ns_loopback_up(cv_error_t *err);

/* A new network namespace made beside the container process: its making
 * (~0.5 ms of the kernel's, mostly sysctl tables) overlaps the container's
 * mounts. _start clones a helper sharing our memory and fds that unshares
 * it, brings "lo" up and opens it for us (with no helper, on architectures
 * without raw system calls or when the clone fails, it is made here, at
 * once); _join, before
 * anything shows the namespace (sysfs, sysctl, hooks), enters it: owned by
 * our user namespace, as one made by our clone would be. _join again does
 * nothing. _reap waits for the helper; in a pid namespace of our own
 * (OWN_PIDNS), the helper's pid is then given back, so the next process
 * is pid 2, as it would be without it. */
struct cv_netns_maker {
	pid_t pid;    /* the helper, 0 once waited for, or -1 */
	int last_pid; /* /proc/sys/kernel/ns_last_pid, or -1 */
};
#define CV_NETNS_MAKER_INIT                                                                                            \
	{                                                                                                              \
		.pid = -1, .last_pid = -1                                                                              \
	}
int cv_netns_maker_start(struct cv_netns_maker *m, bool own_pidns, cv_error_t *err);
int cv_netns_maker_join(struct cv_netns_maker *m, cv_error_t *err);
void cv_netns_maker_reap(struct cv_netns_maker *m);

#endif
