/* The cgroup manager against this machine's real hierarchies: creates a
 * container cgroup under the caller's own cgroups, applies resources, moves a
 * forked child in, freezes, kills and destroys it, and checks that nothing
 * is left behind. Needs root; skipped otherwise. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroups/cgroups-internal.h"
#include "tap.h"

static bool exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* The end of a live test: SIGKILL through the (loaded) cgroup kills the
 * child, destroy removes every directory, and everything is freed. */
static void kill_destroy_free(struct cv_cgroup *loaded, pid_t child, int wfd, char (*paths)[512], size_t npaths,
			      oci_kv_list *saved)
{
	cv_error_t err = NULL;
	ok(cv_cgroup_kill(loaded, SIGKILL, &err) == 0, "kill through the loaded object");
	cv_error_release(&err);
	int status = 0;
	ok(waitpid(child, &status, 0) == child && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	   "child killed by SIGKILL");
	close(wfd);
	ok(cv_cgroup_destroy(loaded, &err) == 0, "destroy %s", err ? err->msg : "");
	cv_error_release(&err);
	for (size_t i = 0; i < npaths; i++)
		ok(!exists(paths[i]), "removed %s", paths[i]);
	cv_cgroup_free(loaded);
	for (size_t i = 0; i < saved->len; i++) {
		free(saved->v[i].key);
		free(saved->v[i].value);
	}
	free(saved->v);
}

static char *slurp(const char *dir, const char *file)
{
	static char buf[4096];
	char path[1024];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return strcpy(buf, "(missing)");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (strcmp(file, "devices.list") != 0)
		buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static pid_t spawn_waiter(int *wfd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;
		close(p[1]);
		(void)!read(p[0], &c, 1);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

static void lifecycle(enum cv_cgroup_layout layout)
{
	char id[64];
	cv_error_t err = NULL;
	struct cv_cgroup *cg = NULL;
	oci_memory mem = { .limit = { true, 64 << 20 }, .reservation = { true, 32 << 20 }, .swappiness = { true, 10 } };
	oci_cpu cpu = { .shares = { true, 512 }, .quota = { true, 50000 }, .period = { true, 100000 }, .cpus = "0" };
	oci_device_cgroup devs[] = { { .allow = false, .access = "rwm" } };
	oci_kv unified_kv[] = { { "cgroup.max.descendants", "7" } };
	oci_resources res = { .memory = &mem,
			      .cpu = &cpu,
			      .has_pids = true,
			      .pids_limit = { true, 10 },
			      .devices = devs,
			      .devices_len = 1,
			      .unified = { .v = unified_kv, .len = layout == CV_CGROUP_LEGACY ? 0 : 1 } };
	struct cv_cgroup_config cfg = { .id = id, .resources = &res };
	struct cv_cg_dir *d;
	char paths[16][512];
	size_t npaths = 0;

	snprintf(id, sizeof(id), "cvisor-live-%d", (int)getpid());
	if (!ok(cv_cgroup_create(&cfg, &cg, &err) == 0, "create %s", err ? err->msg : "")) {
		cv_error_release(&err);
		return;
	}
	for (size_t i = 0; i < cg->n && npaths < 16; i++) {
		snprintf(paths[npaths++], 512, "%s", cg->dirs[i].path);
		ok(exists(cg->dirs[i].path) && cg->dirs[i].created, "created %s", cg->dirs[i].path);
	}
	if (layout != CV_CGROUP_UNIFIED) {
		d = cv_cg_find(cg, "memory");
		ok(d && strcmp(slurp(d->path, "memory.limit_in_bytes"), "67108864") == 0, "memory.limit_in_bytes");
		ok(d && strcmp(slurp(d->path, "memory.soft_limit_in_bytes"), "33554432") == 0,
		   "memory.soft_limit_in_bytes");
		ok(d && strcmp(slurp(d->path, "memory.swappiness"), "10") == 0, "memory.swappiness");
		d = cv_cg_find(cg, "cpu");
		ok(d && strcmp(slurp(d->path, "cpu.shares"), "512") == 0, "cpu.shares");
		ok(d && strcmp(slurp(d->path, "cpu.cfs_quota_us"), "50000") == 0, "cpu.cfs_quota_us");
		d = cv_cg_find(cg, "cpuset");
		ok(d && strcmp(slurp(d->path, "cpuset.cpus"), "0") == 0, "cpuset.cpus");
		ok(d && strcmp(slurp(d->path, "cpuset.mems"), "(missing)") != 0 && *slurp(d->path, "cpuset.mems"),
		   "cpuset.mems inherited from the parent: %s", d ? slurp(d->path, "cpuset.mems") : "");
		d = cv_cg_find(cg, "pids");
		ok(d && strcmp(slurp(d->path, "pids.max"), "10") == 0, "pids.max");
		d = cv_cg_find(cg, "devices");
		ok(d && strstr(slurp(d->path, "devices.list"), "c 1:3 rwm"), "devices.list allows /dev/null");
	}
	if (layout == CV_CGROUP_UNIFIED) {
		d = cv_cg_find(cg, "unified");
		ok(d && strcmp(slurp(d->path, "memory.max"), "67108864") == 0, "memory.max");
		ok(d && strcmp(slurp(d->path, "memory.low"), "33554432") == 0, "memory.low");
		ok(d && strcmp(slurp(d->path, "cpu.weight"), "20") == 0, "cpu.weight from shares 512: %s",
		   d ? slurp(d->path, "cpu.weight") : "");
		ok(d && strcmp(slurp(d->path, "cpu.max"), "50000 100000") == 0, "cpu.max");
		ok(d && strcmp(slurp(d->path, "cpuset.cpus"), "0") == 0, "cpuset.cpus");
		ok(d && strcmp(slurp(d->path, "pids.max"), "10") == 0, "pids.max");
	}
	if (layout != CV_CGROUP_LEGACY) {
		d = cv_cg_find(cg, "unified");
		ok(d && strcmp(slurp(d->path, "cgroup.max.descendants"), "7") == 0, "unified: cgroup.max.descendants");
	}

	/* A value the kernel refuses names the file, the value and the errno. */
	{
		oci_cpu bad = { .cpus = "999" };
		oci_resources r2 = { .cpu = &bad };
		int r = cv_cgroup_update(cg, &r2, &err);
		ok(r < 0 && err, "update refuses cpuset.cpus 999");
		ok(err &&
			   strncmp(err->msg, "write cpuset.cpus \"999\": ", strlen("write cpuset.cpus \"999\": ")) ==
				   0 &&
			   err->errnum != 0 && strlen(err->msg) > strlen("write cpuset.cpus \"999\": "),
		   "the error names file, value and errno: %s", err ? err->msg : "");
		cv_error_release(&err);
	}
	/* update */
	{
		oci_memory m2 = { .limit = { true, 32 << 20 } };
		oci_resources r2 = { .memory = &m2, .has_pids = true, .pids_limit = { true, -1 } };
		ok(cv_cgroup_update(cg, &r2, &err) == 0, "update %s", err ? err->msg : "");
		cv_error_release(&err);
		d = cv_cg_find(cg, layout == CV_CGROUP_UNIFIED ? "unified" : "memory");
		ok(d && strcmp(slurp(d->path, layout == CV_CGROUP_UNIFIED ? "memory.max" : "memory.limit_in_bytes"),
			       "33554432") == 0,
		   "updated memory limit");
		d = cv_cg_find(cg, layout == CV_CGROUP_UNIFIED ? "unified" : "pids");
		ok(d && strcmp(slurp(d->path, "pids.max"), "max") == 0, "pids.max back to max");
	}

	/* enter, pids, freeze, save/load, kill, destroy */
	int wfd = -1;
	pid_t child = spawn_waiter(&wfd);
	pid_t *pids = NULL;
	size_t n = 0;
	bool frozen = true;
	ok(cv_cgroup_enter(cg, child, &err) == 0, "enter %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_cgroup_pids(cg, &pids, &n, &err) == 0 && n == 1 && pids[0] == child, "pids lists the child");
	free(pids);
	ok(cv_cgroup_frozen(cg, &frozen, &err) == 0 && !frozen, "not frozen");
	ok(cv_cgroup_freeze(cg, true, &err) == 0, "freeze %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_cgroup_frozen(cg, &frozen, &err) == 0 && frozen, "frozen");
	{
		char st[64];
		snprintf(st, sizeof(st), "/proc/%d", (int)child);
		char *s = slurp(st, "wchan");
		ok(strstr(s, "refrigerator") || strstr(s, "do_freezer_trap") || strstr(s, "signal") || *s,
		   "the child is stopped (wchan %s)", s);
	}
	ok(cv_cgroup_freeze(cg, false, &err) == 0 && cv_cgroup_frozen(cg, &frozen, &err) == 0 && !frozen, "thawed");
	cv_error_release(&err);

	/* The device rules hold for a process in the container's cgroup. */
	{
		int p[2], q[2];
		char verdict[2] = "??";
		pid_t dc;
		if (pipe2(p, O_CLOEXEC) == 0 && pipe2(q, O_CLOEXEC) == 0 && (dc = fork()) >= 0) {
			if (dc == 0) {
				char c[2];
				(void)!read(q[0], c, 1);
				int a = open("/dev/null", O_RDWR | O_CLOEXEC);
				int b = open("/dev/kmsg", O_RDONLY | O_CLOEXEC);
				c[0] = a >= 0 ? 'y' : 'n';
				c[1] = b >= 0 ? 'y' : (errno == EPERM ? 'p' : 'n');
				(void)!write(p[1], c, 2);
				_exit(0);
			}
			close(p[1]);
			ok(cv_cgroup_enter(cg, dc, &err) == 0, "enter a second child");
			cv_error_release(&err);
			(void)!write(q[1], "x", 1);
			close(q[0]);
			close(q[1]);
			(void)!read(p[0], verdict, 2);
			close(p[0]);
			waitpid(dc, NULL, 0);
		}
		ok(verdict[0] == 'y' && verdict[1] == 'p',
		   "in the container cgroup /dev/null opens, /dev/kmsg is EPERM (%c%c)", verdict[0], verdict[1]);
	}

	oci_kv_list saved = { 0 };
	struct cv_cgroup *loaded = NULL;
	int sr = cv_cgroup_save(cg, &saved, &err);
	ok(sr == 0 && saved.len == 2 * cg->n, "save (%zu entries: path and created per hierarchy)", saved.len);
	ok(cv_cgroup_load(&saved, &loaded, &err) == 0 && loaded->n == cg->n && loaded->layout == layout,
	   "load gives the same layout and directories");
	cv_cgroup_free(cg);
	kill_destroy_free(loaded, child, wfd, paths, npaths, &saved);
}

/* org.cvisor.cgroup.controllers on v1/hybrid: only the listed hierarchies
 * get a directory, the list survives save/load, and what is missing fails
 * clearly. */
static void subset(enum cv_cgroup_layout layout)
{
	char id[64];
	cv_error_t err = NULL;
	struct cv_cgroup *cg = NULL, *loaded = NULL;
	oci_memory mem = { .limit = { true, 32 << 20 } };
	oci_resources res = { .memory = &mem, .has_pids = true, .pids_limit = { true, 12 } };
	struct cv_cgroup_config cfg = { .id = id, .resources = &res, .controllers = "memory,pids" };
	char paths[4][512];
	size_t npaths = 0;

	snprintf(id, sizeof(id), "cvisor-live-sub-%d", (int)getpid());
	if (!ok(cv_cgroup_create(&cfg, &cg, &err) == 0, "create with memory,pids %s", err ? err->msg : "")) {
		cv_error_release(&err);
		return;
	}
	ok(cg->n == 2 && cv_cg_find(cg, "memory") && cv_cg_find(cg, "pids"), "two directories: memory and pids (%zu)",
	   cg->n);
	ok(!cv_cg_find(cg, "freezer") && !cv_cg_find(cg, "devices") && !cv_cg_find(cg, "blkio") &&
		   !cv_cg_find(cg, "cpu") && !cv_cg_find(cg, "unified") && !cv_cg_find(cg, "name=systemd"),
	   "none in freezer, devices, blkio, cpu, unified, name=systemd");
	for (size_t i = 0; i < cg->n && npaths < 4; i++) {
		snprintf(paths[npaths++], 512, "%s", cg->dirs[i].path);
		ok(exists(cg->dirs[i].path), "created %s", cg->dirs[i].path);
	}
	{
		char p[256];
		snprintf(p, sizeof(p), "/sys/fs/cgroup/freezer/%s", id);
		ok(!exists(p), "no directory %s", p);
	}
	ok(strcmp(slurp(cv_cg_find(cg, "memory")->path, "memory.limit_in_bytes"), "33554432") == 0, "memory limit");
	ok(strcmp(slurp(cv_cg_find(cg, "pids")->path, "pids.max"), "12") == 0, "pids limit");

	oci_kv_list saved = { 0 };
	bool found = false;
	ok(cv_cgroup_save(cg, &saved, &err) == 0, "save");
	for (size_t i = 0; i < saved.len; i++)
		found |= strcmp(saved.v[i].key, CV_CG_CONTROLLERS_KEY) == 0 &&
			 strcmp(saved.v[i].value, "memory,pids") == 0;
	ok(found, "the list is saved with the paths");
	cv_cgroup_free(cg);
	ok(cv_cgroup_load(&saved, &loaded, &err) == 0 && loaded->n == 2 && loaded->layout == layout && loaded->filter &&
		   strcmp(loaded->filter, "memory,pids") == 0,
	   "load: the same two directories, the host's layout and the list");
	cv_error_release(&err);
	if (!loaded)
		return;
	ok(cv_cgroup_freeze(loaded, true, &err) < 0 && err &&
		   strcmp(err->msg, "cannot pause: the container has no freezer cgroup (annotation "
				    "org.cvisor.cgroup.controllers \"memory,pids\")") == 0,
	   "freeze fails naming the annotation: %s", err ? err->msg : "");
	cv_error_release(&err);
	{
		bool frozen = true;
		ok(cv_cgroup_frozen(loaded, &frozen, &err) == 0 && !frozen, "frozen? reads as not frozen");
	}
	{
		oci_cpu c = { .shares = { true, 256 } };
		oci_resources r2 = { .cpu = &c };
		ok(cv_cgroup_update(loaded, &r2, &err) < 0 && err &&
			   strcmp(err->msg, "linux.resources.cpu: the container has no cpu cgroup (annotation "
					    "org.cvisor.cgroup.controllers \"memory,pids\")") == 0,
		   "update of cpu fails naming the annotation: %s", err ? err->msg : "");
		cv_error_release(&err);
		oci_memory m2 = { .limit = { true, 16 << 20 } };
		r2 = (oci_resources){ .memory = &m2 };
		ok(cv_cgroup_update(loaded, &r2, &err) == 0 &&
			   strcmp(slurp(cv_cg_find(loaded, "memory")->path, "memory.limit_in_bytes"), "16777216") == 0,
		   "update of memory works");
		cv_error_release(&err);
	}
	int wfd = -1;
	pid_t child = spawn_waiter(&wfd), *pids = NULL;
	size_t n = 0;
	ok(cv_cgroup_enter(loaded, child, &err) == 0, "enter %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cv_cgroup_pids(loaded, &pids, &n, &err) == 0 && n == 1 && pids[0] == child, "pids lists the child");
	free(pids);
	{
		oci_stats st;
		memset(&st, 0, sizeof(st));
		ok(cv_cgroup_stats(loaded, &st, &err) == 0, "stats report what exists %s", err ? err->msg : "");
		cv_error_release(&err);
		oci_stats_clear(&st);
	}
	kill_destroy_free(loaded, child, wfd, paths, npaths, &saved);

	/* cpu,cpuacct co-mounted or not: listing cpuacct alone joins its hierarchy */
	cfg = (struct cv_cgroup_config){ .id = id, .controllers = "cpuacct" };
	if (ok(cv_cgroup_create(&cfg, &cg, &err) == 0, "create with cpuacct %s", err ? err->msg : "")) {
		ok(cg->n == 1 && cv_cg_find(cg, "cpuacct") && (strchr(cg->dirs[0].key, ',') || !cv_cg_find(cg, "cpu")),
		   "only the hierarchy holding cpuacct (%s)", cg->n ? cg->dirs[0].key : "-");
		ok(cv_cgroup_destroy(cg, &err) == 0, "destroy");
		cv_cgroup_free(cg);
	}
	cv_error_release(&err);
	if (layout == CV_CGROUP_HYBRID) {
		cfg = (struct cv_cgroup_config){ .id = id, .controllers = "memory,unified" };
		if (ok(cv_cgroup_create(&cfg, &cg, &err) == 0, "create with memory,unified %s", err ? err->msg : "")) {
			ok(cg->n == 2 && cv_cg_find(cg, "memory") && cv_cg_find(cg, "unified"), "memory and unified");
			ok(cv_cgroup_destroy(cg, &err) == 0, "destroy");
			cv_cgroup_free(cg);
		}
		cv_error_release(&err);
	}
	/* hybrid hosts may bind hugetlb to the cgroup2 hierarchy: listing it joins that one */
	{
		char ctl[256] = "";
		int fd = open("/sys/fs/cgroup/unified/cgroup.controllers", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			(void)!read(fd, ctl, sizeof(ctl) - 1);
			close(fd);
		}
		if (layout == CV_CGROUP_HYBRID && strstr(ctl, "hugetlb") &&
		    access("/sys/fs/cgroup/hugetlb", F_OK) != 0) {
			cfg = (struct cv_cgroup_config){ .id = id, .controllers = "hugetlb" };
			if (ok(cv_cgroup_create(&cfg, &cg, &err) == 0, "create with hugetlb %s", err ? err->msg : "")) {
				ok(cg->n == 1 && cv_cg_find(cg, "unified"),
				   "hugetlb lives in the cgroup2 hierarchy: joined");
				ok(cv_cgroup_destroy(cg, &err) == 0, "destroy");
				cv_cgroup_free(cg);
			}
			cv_error_release(&err);
		}
	}
	/* a listed controller the host has in no hierarchy: nothing matches */
	cfg = (struct cv_cgroup_config){ .id = id, .controllers = "perf_event,misc,rdma" };
	cg = NULL;
	if (access("/sys/fs/cgroup/perf_event", F_OK) != 0 && access("/sys/fs/cgroup/misc", F_OK) != 0 &&
	    access("/sys/fs/cgroup/rdma", F_OK) != 0) {
		ok(cv_cgroup_create(&cfg, &cg, &err) < 0 && err &&
			   strcmp(err->msg, "annotation org.cvisor.cgroup.controllers \"perf_event,misc,rdma\": no "
					    "cgroup hierarchy of this host holds a listed controller") == 0,
		   "no hierarchy matches: %s", err ? err->msg : "");
		cv_error_release(&err);
	}
}

/* A pre-existing absolute path is used but never removed. */
static void existing_path(void)
{
	char own[512], dir[800], cp[600];
	cv_error_t err = NULL;
	struct cv_cgroup *cg = NULL;
	char *mine;
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[512];

	own[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if ((mine = strstr(line, ":memory:"))) {
			snprintf(own, sizeof(own), "%s", mine + 8);
			own[strcspn(own, "\n")] = '\0';
		}
	if (f)
		fclose(f);
	snprintf(cp, sizeof(cp), "%s/cvisor-pre-%d", strcmp(own, "/") ? own : "", (int)getpid());
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory%s", cp);
	if (!ok(mkdir(dir, 0755) == 0, "pre-create %s", dir))
		return;
	struct cv_cgroup_config cfg = { .id = "x", .cgroups_path = cp };
	ok(cv_cgroup_create(&cfg, &cg, &err) == 0, "create on an absolute path %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(cg && cv_cg_find(cg, "memory") && !cv_cg_find(cg, "memory")->created,
	   "existing memory dir not marked created");
	ok(cv_cgroup_destroy(cg, &err) == 0, "destroy");
	ok(exists(dir), "the pre-existing directory is kept");
	cv_cgroup_free(cg);
	rmdir(dir);
}

static void bpf_devices(void)
{
	char own[512] = "/", dir[600], line[512];
	FILE *f = fopen("/proc/self/cgroup", "re");
	cv_error_t err = NULL;
	int dfd, wfd[2], rfd[2];
	oci_device_cgroup rules[] = {
		{ .allow = false, .access = "rwm" },
		{ .allow = true, .type = "c", .major = { true, 1 }, .minor = { true, 3 }, .access = "rw" }
	};

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			snprintf(own, sizeof(own), "%s", line + 3);
			own[strcspn(own, "\n")] = '\0';
		}
	if (f)
		fclose(f);
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/unified%s%scvisor-bpf-%d", own, strcmp(own, "/") ? "/" : "",
		 (int)getpid());
	if (!ok(mkdir(dir, 0755) == 0, "mkdir %s", dir))
		return;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(cv_cg_devices_bpf_attach(dfd, rules, 2, NULL, 0, &err) == 0, "attach device program %s",
	   err ? err->msg : "");
	cv_error_release(&err);
	if (pipe2(wfd, O_CLOEXEC) < 0 || pipe2(rfd, O_CLOEXEC) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		char c, res[2];
		(void)!read(wfd[0], &c, 1);
		int a = open("/dev/null", O_RDWR | O_CLOEXEC);
		int b = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		res[0] = a >= 0 ? 'y' : 'n';
		res[1] = b >= 0 ? 'y' : (errno == EPERM ? 'p' : 'n');
		(void)!write(rfd[1], res, 2);
		_exit(0);
	}
	char pidbuf[32], res[2] = "??";
	int pfd = openat(dfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
	ok(pfd >= 0 && write(pfd, pidbuf, strlen(pidbuf)) > 0, "child in the cgroup");
	close(pfd);
	(void)!write(wfd[1], "x", 1);
	(void)!read(rfd[0], res, 2);
	waitpid(pid, NULL, 0);
	ok(res[0] == 'y', "/dev/null allowed by the program");
	ok(res[1] == 'p', "/dev/zero denied with EPERM (%c)", res[1]);
	close(dfd);
	ok(rmdir(dir) == 0, "remove %s", dir);
}

/* cv_cgroup_config.v1_after_clone on v1/hybrid: the first step makes only
 * the v2 directory (none on legacy) and writes nothing; the second the v1
 * ones with the resources, the controllers list still honoured; a value the
 * kernel refuses fails there and the caller's destroy leaves nothing. */
static void v1_after_clone(enum cv_cgroup_layout layout)
{
	char id[64];
	cv_error_t err = NULL;
	struct cv_cgroup *cg = NULL;
	oci_memory mem = { .limit = { true, 32 << 20 } };
	oci_resources res = { .memory = &mem };
	struct cv_cgroup_config cfg = { .id = id, .resources = &res, .v1_after_clone = true };
	char p[512];

	snprintf(id, sizeof(id), "cvisor-live-late-%d", (int)getpid());
	if (!ok(cv_cgroup_create(&cfg, &cg, &err) == 0, "create, v1 later %s", err ? err->msg : "")) {
		cv_error_release(&err);
		return;
	}
	ok(cv_cgroup_v1_pending(cg), "v1 pending");
	ok(cg->n == (layout == CV_CGROUP_HYBRID ? 1u : 0u) && (layout != CV_CGROUP_HYBRID || cv_cg_find(cg, "unified")),
	   "first step: only the v2 directory (%zu)", cg->n);
	struct cv_cg_dir *u = cv_cg_find(cg, "unified");
	ok(!cv_cg_find(cg, "memory"), "no memory directory yet");
	int r = cv_cgroup_create_v1(cg, &cfg, &err);
	ok(r == 0, "second step %s", err ? err->msg : "");
	cv_error_release(&err);
	ok(!cv_cgroup_v1_pending(cg), "nothing pending");
	ok(cv_cg_find(cg, "memory") && cv_cg_find(cg, "pids") && cv_cg_find(cg, "devices") &&
		   (layout != CV_CGROUP_HYBRID || (u && cv_cg_find(cg, "unified") == cg->dirs)),
	   "second step: the v1 directories, after the v2 one (%zu)", cg->n);
	snprintf(p, sizeof(p), "%s", cv_cg_find(cg, "memory") ? cv_cg_find(cg, "memory")->path : "/nonexistent");
	ok(exists(p) && strcmp(slurp(p, "memory.limit_in_bytes"), "33554432") == 0, "the memory limit is written in %s",
	   p);
	size_t made = cg->n;
	ok(cv_cgroup_create_v1(cg, &cfg, &err) == 0 && cg->n == made, "a second call does nothing (%zu)", cg->n);
	ok(cv_cgroup_destroy(cg, &err) == 0 && !exists(p), "destroyed %s", err ? err->msg : "");
	cv_error_release(&err);
	cv_cgroup_free(cg);
	cg = NULL;

	/* the controllers list: only those, in the second step too */
	cfg.controllers = "memory";
	if (ok(cv_cgroup_create(&cfg, &cg, &err) == 0 && cv_cgroup_create_v1(cg, &cfg, &err) == 0,
	       "create with memory, v1 later %s", err ? err->msg : "")) {
		ok(cg->n == 1 && cv_cg_find(cg, "memory"), "one directory: memory (%zu)", cg->n);
		ok(cv_cgroup_destroy(cg, &err) == 0, "destroyed");
	}
	cv_error_release(&err);
	cv_cgroup_free(cg);
	cg = NULL;
	cfg.controllers = NULL;

	/* refused in the second step: the error names the file */
	oci_cpu cpu = { .cpus = "999" };
	res.cpu = &cpu;
	if (ok(cv_cgroup_create(&cfg, &cg, &err) == 0, "create with cpus 999, v1 later %s", err ? err->msg : "")) {
		r = cv_cgroup_create_v1(cg, &cfg, &err);
		ok(r < 0 && err && strstr(err->msg, "cpuset.cpus"), "the second step fails: %s", err ? err->msg : "");
		cv_error_release(&err);
		ok(cv_cgroup_destroy(cg, &err) == 0 && !exists(p), "the caller's destroy leaves nothing");
	}
	cv_error_release(&err);
	cv_cgroup_free(cg);
}

int main(void)
{
	enum cv_cgroup_layout layout;
	cv_error_t err = NULL;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root to create cgroups\n");
		return 0;
	}
	int r = cv_cgroup_layout(&layout, &err);
	if (!ok(r == 0, "layout detected"))
		return tap_done();
	tap_diag("layout: %s", layout == CV_CGROUP_UNIFIED  ? "unified"
			       : layout == CV_CGROUP_HYBRID ? "hybrid"
							    : "legacy");
	lifecycle(layout);
	if (layout != CV_CGROUP_UNIFIED) {
		existing_path();
		subset(layout);
		v1_after_clone(layout);
	}
	if (layout != CV_CGROUP_LEGACY && layout != CV_CGROUP_UNIFIED)
		bpf_devices();
	return tap_done();
}
