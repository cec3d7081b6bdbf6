/* runc's events/stats JSON (libcontainer's types/events.go field names). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stats.h"

static void list_clear(oci_blkio_list *l)
{
	free(l->v);
	l->v = NULL;
	l->len = 0;
}

void oci_stats_clear(oci_stats *s)
{
	free(s->cpu_usage.percpu);
	for (size_t i = 0; i < s->memory.raw_len; i++)
		free(s->memory.raw[i].key);
	free(s->memory.raw);
	list_clear(&s->blkio.service_bytes);
	list_clear(&s->blkio.serviced);
	list_clear(&s->blkio.queued);
	list_clear(&s->blkio.service_time);
	list_clear(&s->blkio.wait_time);
	list_clear(&s->blkio.merged);
	list_clear(&s->blkio.time);
	list_clear(&s->blkio.sectors);
	free(s->hugetlb);
	memset(s, 0, sizeof(*s));
}

int oci_blkio_add(oci_blkio_list *l, const oci_blkio_entry *e, cv_error_t *err)
{
	oci_blkio_entry *v = realloc(l->v, (l->len + 1) * sizeof(*v));
	if (!v)
		return cv_error(err, ENOMEM, "blkio statistics");
	v[l->len++] = *e;
	l->v = v;
	return 0;
}

/* Go's omitempty: a zero number is left out. */
static void ku64_omit(jw *w, const char *key, uint64_t v)
{
	if (v) {
		jw_key(w, key);
		jw_u64(w, v);
	}
}

static void ku64(jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	jw_u64(w, v);
}

static void emit_cpu(jw *w, const oci_stats *s)
{
	jw_key(w, "cpu");
	jw_open(w);
	jw_key(w, "usage");
	jw_open(w);
	ku64_omit(w, "total", s->cpu_usage.total);
	if (s->cpu_usage.percpu_len) {
		jw_key(w, "percpu");
		jw_aopen(w);
		for (size_t i = 0; i < s->cpu_usage.percpu_len; i++)
			jw_u64(w, s->cpu_usage.percpu[i]);
		jw_aclose(w);
	}
	ku64(w, "kernel", s->cpu_usage.kernel);
	ku64(w, "user", s->cpu_usage.user);
	jw_close(w);
	jw_key(w, "throttling");
	jw_open(w);
	ku64_omit(w, "periods", s->throttling.periods);
	ku64_omit(w, "throttledPeriods", s->throttling.throttled_periods);
	ku64_omit(w, "throttledTime", s->throttling.throttled_time);
	jw_close(w);
	jw_close(w);
}

static void emit_mem_entry(jw *w, const char *key, const oci_memory_entry *e)
{
	jw_key(w, key);
	jw_open(w);
	ku64(w, "limit", e->limit);
	ku64_omit(w, "usage", e->usage);
	ku64_omit(w, "max", e->max);
	ku64(w, "failcnt", e->failcnt);
	jw_close(w);
}

static void emit_memory(jw *w, const oci_stats *s)
{
	jw_key(w, "memory");
	jw_open(w);
	ku64_omit(w, "cache", s->memory.cache);
	emit_mem_entry(w, "usage", &s->memory.usage);
	emit_mem_entry(w, "swap", &s->memory.swap);
	emit_mem_entry(w, "kernel", &s->memory.kernel);
	emit_mem_entry(w, "kernelTCP", &s->memory.kernel_tcp);
	if (s->memory.raw_len) {
		jw_key(w, "raw");
		jw_open(w);
		for (size_t i = 0; i < s->memory.raw_len; i++)
			ku64(w, s->memory.raw[i].key, s->memory.raw[i].value);
		jw_close(w);
	}
	jw_close(w);
}

static void emit_blkio_list(jw *w, const char *key, const oci_blkio_list *l)
{
	if (!l->len)
		return;
	jw_key(w, key);
	jw_aopen(w);
	for (size_t i = 0; i < l->len; i++) {
		const oci_blkio_entry *e = &l->v[i];
		jw_open(w);
		ku64_omit(w, "major", e->major);
		ku64_omit(w, "minor", e->minor);
		if (e->op[0])
			jw_kstr(w, "op", e->op);
		ku64_omit(w, "value", e->value);
		jw_close(w);
	}
	jw_aclose(w);
}

static void emit_stats(jw *w, const oci_stats *s)
{
	jw_open(w);
	emit_cpu(w, s);
	emit_memory(w, s);
	jw_key(w, "pids");
	jw_open(w);
	ku64_omit(w, "current", s->pids.current);
	ku64_omit(w, "limit", s->pids.limit);
	jw_close(w);
	jw_key(w, "blkio");
	jw_open(w);
	emit_blkio_list(w, "ioServiceBytesRecursive", &s->blkio.service_bytes);
	emit_blkio_list(w, "ioServicedRecursive", &s->blkio.serviced);
	emit_blkio_list(w, "ioQueueRecursive", &s->blkio.queued);
	emit_blkio_list(w, "ioServiceTimeRecursive", &s->blkio.service_time);
	emit_blkio_list(w, "ioWaitTimeRecursive", &s->blkio.wait_time);
	emit_blkio_list(w, "ioMergedRecursive", &s->blkio.merged);
	emit_blkio_list(w, "ioTimeRecursive", &s->blkio.time);
	emit_blkio_list(w, "sectorsRecursive", &s->blkio.sectors);
	jw_close(w);
	jw_key(w, "hugetlb");
	jw_open(w);
	for (size_t i = 0; i < s->hugetlb_len; i++) {
		jw_key(w, s->hugetlb[i].page_size);
		jw_open(w);
		ku64_omit(w, "usage", s->hugetlb[i].usage);
		ku64_omit(w, "max", s->hugetlb[i].max);
		ku64(w, "failcnt", s->hugetlb[i].failcnt);
		jw_close(w);
	}
	jw_close(w);
	jw_close(w);
}

int oci_event_emit(const char *type, const char *id, const oci_stats *data, bool pretty, char **out, size_t *out_len,
		   cv_error_t *err)
{
	jw w;
	int r = jw_init(&w, pretty, err);
	if (r < 0)
		return r;
	jw_open(&w);
	jw_kstr(&w, "type", type);
	jw_kstr(&w, "id", id);
	if (data) {
		jw_key(&w, "data");
		emit_stats(&w, data);
	}
	jw_close(&w);
	r = jw_finish(&w, out, out_len, err);
	jw_release(&w);
	return r;
}
