/* Pure conversions between OCI resource values and cgroup file contents.
 * No I/O here: everything is unit tested in tests/unit/test_cgroups.c. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cgroups/cgroups-internal.h"

/* runc's linear mapping of the v1 shares range [2, 262144] onto the v2 weight
 * range [1, 10000]. crun 1.11+ switched to a quadratic curve that maps the
 * default 1024 shares to weight 100; we keep runc's mapping because podman,
 * containerd and Kubernetes document their values against it and `runc
 * update` / `crun update` on older releases agree with it. */
uint64_t cv_cg_shares_to_weight(uint64_t shares)
{
	if (shares == 0)
		return 0;
	if (shares < 2)
		shares = 2;
	if (shares > 262144)
		shares = 262144;
	return 1 + ((shares - 2) * 9999) / 262142;
}

/* blkio.weight [10, 1000] onto io.weight [1, 10000], as runc does. */
uint64_t cv_cg_blkio_to_io_weight(uint64_t weight)
{
	if (weight == 0)
		return 0;
	if (weight < 10)
		weight = 10;
	if (weight > 1000)
		weight = 1000;
	return 1 + ((weight - 10) * 9999) / 990;
}

int cv_cg_swap_to_v2(int64_t swap, int64_t limit, int64_t *out, cv_error_t *err)
{
	/* v1 compatibility: an unlimited memory limit without an explicit swap
	 * means unlimited swap too. */
	if (limit == -1 && swap == 0) {
		*out = -1;
		return 0;
	}
	if (swap == -1 || swap == 0) {
		*out = swap;
		return 0;
	}
	if (swap < 0)
		return cv_error(err, EINVAL, "linux.resources.memory.swap: invalid value %" PRId64, swap);
	if (limit == 0 || limit == -1)
		return cv_error(
			err, EINVAL,
			"linux.resources.memory.swap: a swap limit needs a memory limit (linux.resources.memory.limit)");
	if (limit < 0)
		return cv_error(err, EINVAL, "linux.resources.memory.limit: invalid value %" PRId64, limit);
	if (swap < limit)
		return cv_error(err, EINVAL,
				"linux.resources.memory.swap (%" PRId64
				") must be at least linux.resources.memory.limit (%" PRId64
				"): it counts memory plus swap",
				swap, limit);
	*out = swap - limit;
	return 0;
}

void cv_cg_fmt_max(int64_t v, char *buf, size_t size)
{
	if (v < 0)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%" PRId64, v);
}

void cv_cg_fmt_pids(int64_t limit, char *buf, size_t size)
{
	if (limit <= 0)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%" PRId64, limit);
}

void cv_cg_fmt_cpu_max(bool quota_set, int64_t quota, bool period_set, uint64_t period, const char *cur_quota,
		       uint64_t cur_period, char *buf, size_t size)
{
	char q[32];

	if (quota_set)
		cv_cg_fmt_max(quota, q, sizeof(q));
	else
		snprintf(q, sizeof(q), "%s", cur_quota && *cur_quota ? cur_quota : "max");
	if (!period_set || period == 0)
		period = cur_period ? cur_period : 100000;
	snprintf(buf, size, "%s %" PRIu64, q, period);
}

static int fmt_num(char *dst, size_t size, bool set, int64_t v)
{
	if (!set || v < 0)
		return snprintf(dst, size, "*");
	return snprintf(dst, size, "%" PRId64, v);
}

int cv_cg_fmt_device_rule(const oci_device_cgroup *r, char *buf, size_t size, cv_error_t *err)
{
	const char *type = r->type && *r->type ? r->type : "a";
	const char *access = r->access && *r->access ? r->access : "rwm";
	char maj[24], min[24];

	if (strcmp(type, "a") != 0 && strcmp(type, "b") != 0 && strcmp(type, "c") != 0)
		return cv_error(err, EINVAL, "linux.resources.devices: invalid type \"%s\" (expected a, b or c)", type);
	if (strspn(access, "rwm") != strlen(access) || strlen(access) > 3)
		return cv_error(err, EINVAL,
				"linux.resources.devices: invalid access \"%s\" (expected a subset of rwm)", access);
	fmt_num(maj, sizeof(maj), r->major.set, r->major.v);
	fmt_num(min, sizeof(min), r->minor.set, r->minor.v);
	if (strcmp(type, "a") == 0)
		snprintf(buf, size, "a *:* %s", access); /* the kernel ignores numbers for "a" */
	else
		snprintf(buf, size, "%s %s:%s %s", type, maj, min, access);
	return 0;
}

static bool valid_rdma_dev(const char *s)
{
	if (!s || !*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (*s == ' ' || *s == '\n' || *s == '/' || *s == '=')
			return false;
	return true;
}

int cv_cg_fmt_rdma(const oci_rdma *r, char *buf, size_t size, cv_error_t *err)
{
	int n;

	if (!valid_rdma_dev(r->device))
		return cv_error(err, EINVAL, "linux.resources.rdma: invalid device name \"%s\"",
				r->device ? r->device : "");
	if (!r->hca_handles.set && !r->hca_objects.set)
		return cv_error(err, EINVAL, "linux.resources.rdma.%s: neither hcaHandles nor hcaObjects is set",
				r->device);
	n = snprintf(buf, size, "%s", r->device);
	if (r->hca_handles.set)
		n += snprintf(buf + n, size - n, " hca_handle=%" PRIu32, r->hca_handles.v);
	if (r->hca_objects.set)
		snprintf(buf + n, size - n, " hca_object=%" PRIu32, r->hca_objects.v);
	return 0;
}

bool cv_cg_valid_page_size(const char *s)
{
	size_t digits;

	if (!s)
		return false;
	digits = strspn(s, "0123456789");
	if (digits == 0 || digits > 10 || s[0] == '0')
		return false;
	return strcmp(s + digits, "KB") == 0 || strcmp(s + digits, "MB") == 0 || strcmp(s + digits, "GB") == 0;
}

bool cv_cg_valid_unified_key(const char *k)
{
	return k && *k && k[0] != '.' && !strchr(k, '/') && strlen(k) < 256;
}
