/* The systemd cgroup driver (--systemd-cgroup): the container's cgroup is a
 * transient scope unit that systemd creates over D-Bus, in the slice named by
 * cgroupsPath ("slice:prefix:name"). The resource properties systemd gets are
 * built by a pure function, so they are testable without a bus; the D-Bus
 * calls (StartTransientUnit, StopUnit and the wait for their job's
 * JobRemoved) go through cvisor's own client, dbus.c. Used by cgroups.c
 * only. */
#ifndef CVISOR_CGROUPS_SYSTEMD_H
#define CVISOR_CGROUPS_SYSTEMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "oci/spec.h"

/* One unit property as StartTransientUnit takes it: a(sv). `sig` is the
 * variant's D-Bus signature, one of "s", "b", "t", "au" (one pid in u64) and
 * "ay" (bytes/len). */
struct cv_sd_prop {
	const char *name;
	const char *sig;
	uint64_t u64;
	bool b;
	char *str;
	uint8_t *bytes;
	size_t len;
};

struct cv_sd_props {
	struct cv_sd_prop *v;
	size_t n;
};
void cv_sd_props_clear(struct cv_sd_props *p);

/* The scope's properties: Description, Slice, PIDs=[pid], Delegate,
 * DefaultDependencies=false, then what linux.resources maps to (MemoryMax,
 * MemoryLow, MemorySwapMax, CPUWeight, CPUQuota*, AllowedCPUs,
 * AllowedMemoryNodes, TasksMax, IOWeight on v2; MemoryLimit, CPUShares,
 * CPUQuota*, TasksMax, BlockIOWeight on v1). The cgroupfs code writes every
 * resource again into the scope afterwards: these only keep systemd from
 * resetting them (daemon-reload). */
int cv_sd_scope_properties(const oci_resources *r, bool v2, pid_t pid, const char *slice, const char *description,
			   struct cv_sd_props *out, cv_error_t *err);

/* A cpuset list ("0-3,8") as systemd's bitmask bytes: bit i%8 of byte i/8 is
 * cpu (or node) i. */
int cv_sd_cpuset_bits(const char *list, uint8_t **out, size_t *len, cv_error_t *err);

/* cpu.cfs_quota_us per period as CPUQuotaPerSecUSec, rounded up to a whole
 * percent (10 ms/s) as systemd stores it; quota <= 0 is unlimited
 * (UINT64_MAX). period 0 means systemd's default of 100 ms. */
uint64_t cv_sd_quota_per_sec(int64_t quota, uint64_t period);

/* The cgroup path of a slice: "a-b.slice" -> "/a.slice/a-b.slice",
 * "-.slice" -> "/". Names with "/", an empty dash-separated part, or not
 * ending in ".slice" are refused. */
int cv_sd_expand_slice(const char *slice, char **out, cv_error_t *err);

/* Creates the scope `unit` in `slice` with PIDs=[pid] and the resources over
 * the system bus (the user bus when `user`), and waits for the start job.
 * `bus_address` overrides the bus (tests), NULL for the default. */
int cv_sd_start_scope(const char *bus_address, bool user, const char *unit, const struct cv_sd_props *props,
		      cv_error_t *err);
/* Stops the unit and waits for the job; a unit that is already gone is fine. */
int cv_sd_stop_unit(const char *bus_address, bool user, const char *unit, cv_error_t *err);

#endif
