/* Container resource statistics and events in runc's JSON schema (`runc
 * events`, read by containerd and podman): {"type":"stats","id":ID,
 * "data":{cpu, memory, pids, blkio, hugetlb}} and {"type":"oom","id":ID}.
 * Zero values are left out where runc's schema omits them (omitempty). */
#ifndef CVISOR_OCI_STATS_H
#define CVISOR_OCI_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct {
	uint64_t major, minor;
	char op[16]; /* "Read", "Write", "Sync", "Async", "Discard", "Total" */
	uint64_t value;
} oci_blkio_entry;

typedef struct {
	oci_blkio_entry *v;
	size_t len;
} oci_blkio_list;

typedef struct {
	uint64_t limit, usage, max, failcnt;
} oci_memory_entry;

typedef struct {
	char *key;
	uint64_t value;
} oci_stat_kv;

typedef struct {
	char page_size[32]; /* "2MB" */
	uint64_t usage, max, failcnt;
} oci_hugetlb_stats;

typedef struct {
	struct {
		uint64_t total, kernel, user; /* nanoseconds */
		uint64_t *percpu;
		size_t percpu_len;
	} cpu_usage;
	struct {
		uint64_t periods, throttled_periods, throttled_time;
	} throttling;
	struct {
		uint64_t cache;
		oci_memory_entry usage, swap, kernel, kernel_tcp;
		oci_stat_kv *raw;
		size_t raw_len;
	} memory;
	struct {
		uint64_t current, limit;
	} pids;
	struct {
		oci_blkio_list service_bytes, serviced, queued, service_time, wait_time, merged, time, sectors;
	} blkio;
	oci_hugetlb_stats *hugetlb;
	size_t hugetlb_len;
} oci_stats;

void oci_stats_clear(oci_stats *s);
/* Appends to a list (malloc'd growth). */
int oci_blkio_add(oci_blkio_list *l, const oci_blkio_entry *e, cv_error_t *err);

/* One event line: TYPE "stats" carries `data`, "oom" none. *out is malloc'd,
 * NUL-terminated, without a trailing newline. */
int oci_event_emit(const char *type, const char *id, const oci_stats *data, bool pretty, char **out, size_t *out_len,
		   cv_error_t *err);

#endif
