/* A stand-in for systemd's Manager on a private bus, for
 * test_cgroups_systemd_bus: it takes the name org.freedesktop.systemd1,
 * answers StartTransientUnit and StopUnit with a job path, writes every call
 * and property it received to a log file, then emits JobRemoved (after a
 * JobRemoved of another job, which the client must ignore). A unit named
 * "fail.scope" ends its job "failed"; "early.scope" has its JobRemoved sent
 * before the call's reply; StartTransientUnit of "exists.scope" answers
 * UnitExists; StopUnit of "gone.scope" answers NoSuchUnit.
 * Usage: fake-systemd BUS_ADDRESS LOG_FILE (prints "ready"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

static FILE *call_log;
static uint32_t next_job = 1;
static const char *pending_unit;
static char pending_result[16];
static char pending_job[64];

static int log_props(sd_bus_message *m)
{
	int r = sd_bus_message_enter_container(m, 'a', "(sv)");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
		const char *name, *sig;
		char type;
		if ((r = sd_bus_message_read(m, "s", &name)) < 0 || (r = sd_bus_message_peek_type(m, &type, &sig)) < 0)
			return r;
		if ((r = sd_bus_message_enter_container(m, 'v', sig)) < 0)
			return r;
		fprintf(call_log, "prop %s %s", name, sig);
		if (strcmp(sig, "s") == 0) {
			const char *s;
			r = sd_bus_message_read(m, "s", &s);
			fprintf(call_log, " %s", s);
		} else if (strcmp(sig, "b") == 0) {
			int b;
			r = sd_bus_message_read(m, "b", &b);
			fprintf(call_log, " %s", b ? "true" : "false");
		} else if (strcmp(sig, "t") == 0) {
			uint64_t t;
			r = sd_bus_message_read(m, "t", &t);
			fprintf(call_log, " %" PRIu64, t);
		} else if (strcmp(sig, "au") == 0) {
			const uint32_t *a;
			size_t n;
			r = sd_bus_message_read_array(m, 'u', (const void **)&a, &n);
			for (size_t i = 0; r >= 0 && i < n / sizeof(*a); i++)
				fprintf(call_log, " %" PRIu32, a[i]);
		} else if (strcmp(sig, "ay") == 0) {
			const uint8_t *a;
			size_t n;
			r = sd_bus_message_read_array(m, 'y', (const void **)&a, &n);
			for (size_t i = 0; r >= 0 && i < n; i++)
				fprintf(call_log, " %02x", a[i]);
		} else
			r = sd_bus_message_skip(m, sig);
		fprintf(call_log, "\n");
		if (r < 0 || (r = sd_bus_message_exit_container(m)) < 0 || (r = sd_bus_message_exit_container(m)) < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

static int job_removed(sd_bus *b)
{
	/* someone else's job first: only the one the reply named counts */
	int r = sd_bus_emit_signal(b, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "JobRemoved",
				   "uoss", 100000 + next_job, "/org/freedesktop/systemd1/job/100000", "other.service",
				   "failed");
	if (r >= 0)
		r = sd_bus_emit_signal(b, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "JobRemoved",
				       "uoss", next_job, pending_job, pending_unit, pending_result);
	next_job++;
	pending_unit = NULL;
	return r;
}

static int reply_job(sd_bus_message *m, const char *unit, const char *result)
{
	static char unit_copy[256];
	int r;

	snprintf(unit_copy, sizeof(unit_copy), "%s", unit);
	snprintf(pending_job, sizeof(pending_job), "/org/freedesktop/systemd1/job/%" PRIu32, next_job);
	snprintf(pending_result, sizeof(pending_result), "%s", result);
	pending_unit = unit_copy;
	if (strcmp(unit, "early.scope") == 0 && (r = job_removed(sd_bus_message_get_bus(m))) < 0)
		return r;
	return sd_bus_reply_method_return(m, "o", pending_job);
}

static int start_unit(sd_bus_message *m, void *data, sd_bus_error *e)
{
	const char *unit, *mode;
	int r = sd_bus_message_read(m, "ss", &unit, &mode);
	if (r < 0)
		return r;
	fprintf(call_log, "StartTransientUnit %s %s\n", unit, mode);
	if ((r = log_props(m)) < 0)
		return r;
	if ((r = sd_bus_message_skip(m, "a(sa(sv))")) < 0)
		return r;
	fflush(call_log);
	if (strcmp(unit, "exists.scope") == 0)
		return sd_bus_error_setf(e, "org.freedesktop.systemd1.UnitExists", "Unit %s already exists.", unit);
	return reply_job(m, unit, strcmp(unit, "fail.scope") == 0 ? "failed" : "done");
}

static int stop_unit(sd_bus_message *m, void *data, sd_bus_error *e)
{
	const char *unit, *mode;
	int r = sd_bus_message_read(m, "ss", &unit, &mode);
	if (r < 0)
		return r;
	fprintf(call_log, "StopUnit %s %s\n", unit, mode);
	fflush(call_log);
	if (strcmp(unit, "gone.scope") == 0)
		return sd_bus_error_setf(e, "org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded.", unit);
	return reply_job(m, unit, "done");
}

static const sd_bus_vtable manager[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("StartTransientUnit", "ssa(sv)a(sa(sv))", "o", start_unit, 0),
	SD_BUS_METHOD("StopUnit", "ss", "o", stop_unit, 0),
	SD_BUS_SIGNAL("JobRemoved", "uoss", 0),
	SD_BUS_VTABLE_END,
};

int main(int argc, char **argv)
{
	sd_bus *b = NULL;
	int r;

	if (argc != 3)
		return 2;
	call_log = fopen(argv[2], "we");
	if (!call_log)
		return 1;
	if ((r = sd_bus_new(&b)) < 0 || (r = sd_bus_set_address(b, argv[1])) < 0 ||
	    (r = sd_bus_set_bus_client(b, 1)) < 0 || (r = sd_bus_start(b)) < 0 ||
	    (r = sd_bus_add_object_vtable(b, NULL, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
					  manager, NULL)) < 0 ||
	    (r = sd_bus_request_name(b, "org.freedesktop.systemd1", 0)) < 0) {
		fprintf(stderr, "fake-systemd: %s\n", strerror(-r));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		r = sd_bus_process(b, NULL);
		if (r < 0)
			return 1;
		if (r > 0)
			continue;
		/* the reply is out: now the job ends, as systemd's would */
		if (pending_unit) {
			if (job_removed(b) < 0)
				return 1;
			continue;
		}
		if (sd_bus_wait(b, UINT64_MAX) < 0)
			return 1;
	}
}
