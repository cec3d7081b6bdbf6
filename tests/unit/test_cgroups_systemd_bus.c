/* The systemd driver's D-Bus messages, against a fake Manager
 * (fake-systemd.c) on a private dbus-daemon: StartTransientUnit with the
 * unit, mode and every property as systemd would decode them, the wait for
 * JobRemoved (ignoring other jobs', also when ours comes before the reply),
 * a failed job, an error reply, StopUnit and a unit already gone. The client
 * is cvisor's own (dbus.c). Skips when dbus-daemon is missing (Debian
 * package dbus). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroups/cgroups-systemd.h"
#include "tap.h"

static pid_t spawn(char *const argv[], char *line, size_t size)
{
	int p[2];
	pid_t pid;
	FILE *f;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	if (pid < 0 || !f || !fgets(line, (int)size, f)) {
		if (f)
			fclose(f);
		return pid < 0 ? -1 : -pid;
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return pid;
}

static void stop(pid_t pid)
{
	if (pid > 0 && kill(pid, SIGTERM) == 0)
		waitpid(pid, NULL, 0);
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

int main(void)
{
	char dir[] = "/tmp/cvisor-sdbus-XXXXXX", conf[128], logp[128], addr[512], ready[64];
	const char *daemon = "/usr/bin/dbus-daemon";
	char fake[] = BUILDDIR "/tests/unit/fake-systemd";
	pid_t dpid, fpid;
	FILE *f;
	cv_error_t err = NULL;
	oci_memory mem = { .limit = { true, 64 << 20 } };
	oci_cpu cpu = { .cpus = (char *)"1", .quota = { true, 25000 } };
	oci_resources res = { .memory = &mem, .cpu = &cpu, .has_pids = true, .pids_limit = { true, 32 } };
	struct cv_sd_props props;
	const char *log;

	if (access(daemon, X_OK) < 0) {
		printf("1..0 # SKIP dbus-daemon not installed (Debian package dbus)\n");
		return 0;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(conf, sizeof(conf), "%s/bus.conf", dir);
	snprintf(logp, sizeof(logp), "%s/calls.log", dir);
	f = fopen(conf, "we");
	if (!f)
		return 1;
	fprintf(f,
		"<busconfig><type>session</type><listen>unix:path=%s/bus</listen><auth>EXTERNAL</auth>"
		"<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>"
		"<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n",
		dir);
	fclose(f);
	{
		char cf[160];
		snprintf(cf, sizeof(cf), "--config-file=%s", conf);
		char *argv[] = { (char *)daemon, cf, (char *)"--nofork", (char *)"--print-address=1", NULL };
		dpid = spawn(argv, addr, sizeof(addr));
	}
	ok(dpid > 0 && *addr, "private dbus-daemon at %s", addr);
	{
		char *argv[] = { fake, addr, logp, NULL };
		fpid = dpid > 0 ? spawn(argv, ready, sizeof(ready)) : -1;
	}
	ok(fpid > 0 && strcmp(ready, "ready") == 0, "fake systemd owns org.freedesktop.systemd1");
	if (dpid <= 0 || fpid <= 0)
		goto out;

	ok(cv_sd_scope_properties(&res, true, 1234, "machine.slice", "cvisor container t1", &props, &err) == 0,
	   "properties");
	ok(cv_sd_start_scope(addr, false, "cvisor-t1.scope", &props, &err) == 0, "start scope, job done: %s",
	   err ? err->msg : "");
	cv_error_release(&err);
	log = slurp(logp);
	is_str(log,
	       "StartTransientUnit cvisor-t1.scope fail\n"
	       "prop Description s cvisor container t1\n"
	       "prop Slice s machine.slice\n"
	       "prop PIDs au 1234\n"
	       "prop Delegate b true\n"
	       "prop DefaultDependencies b false\n"
	       "prop MemoryMax t 67108864\n"
	       "prop CPUQuotaPerSecUSec t 250000\n"
	       "prop AllowedCPUs ay 02\n"
	       "prop TasksMax t 32\n",
	       "the fake systemd decoded the call and every property");
	ok(cv_sd_start_scope(addr, false, "fail.scope", &props, &err) < 0 && strstr(err->msg, "job failed"),
	   "a failed job is an error: %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_sd_start_scope(addr, false, "early.scope", &props, &err) == 0,
	   "the job's JobRemoved before the call's reply: %s", err ? err->msg : "");
	cv_error_release(&err);
	is_str(cv_sd_start_scope(addr, false, "exists.scope", &props, &err) < 0 ? err->msg : "",
	       "systemd cgroup driver: StartTransientUnit exists.scope: org.freedesktop.systemd1.UnitExists: "
	       "Unit exists.scope already exists.",
	       "an error reply names the error and systemd's message");
	cv_error_release(&err);
	{
		/* the user bus: the driver finds it in the environment */
		char *saved = getenv("DBUS_SESSION_BUS_ADDRESS");
		saved = saved ? strdup(saved) : NULL;
		setenv("DBUS_SESSION_BUS_ADDRESS", addr, 1);
		ok(cv_sd_start_scope(NULL, true, "user.scope", &props, &err) == 0,
		   "user bus from DBUS_SESSION_BUS_ADDRESS: %s", err ? err->msg : "");
		cv_error_release(&err);
		if (saved)
			setenv("DBUS_SESSION_BUS_ADDRESS", saved, 1);
		else
			unsetenv("DBUS_SESSION_BUS_ADDRESS");
		free(saved);
	}
	cv_sd_props_clear(&props);
	ok(cv_sd_stop_unit(addr, false, "cvisor-t1.scope", &err) == 0 &&
		   strstr(slurp(logp), "StopUnit cvisor-t1.scope replace\n"),
	   "stop unit: %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_sd_stop_unit(addr, false, "gone.scope", &err) == 0, "stopping a unit already gone is fine: %s",
	   err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_sd_stop_unit("unix:path=/nonexistent/bus", false, "x.scope", &err) < 0 && strstr(err->msg, "connect"),
	   "no bus: %s", err ? err->msg : "");
	cv_error_release(&err);
out:
	stop(fpid);
	stop(dpid);
	unlink(logp);
	unlink(conf);
	{
		char b[160];
		snprintf(b, sizeof(b), "%s/bus", dir);
		unlink(b);
	}
	rmdir(dir);
	return tap_done();
}
