#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <spawn.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "find-program.h"
#include "log.h"
#include "raw-syscall.h"
#include "unix-socket.h"
#include "process/namespaces.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const struct {
	const char *name;
	int flag;
} ns_types[] = {
	{ "pid", CLONE_NEWPID }, { "network", CLONE_NEWNET }, { "mount", CLONE_NEWNS },      { "ipc", CLONE_NEWIPC },
	{ "uts", CLONE_NEWUTS }, { "user", CLONE_NEWUSER },   { "cgroup", CLONE_NEWCGROUP }, { "time", CLONE_NEWTIME },
};

int cv_ns_flag(const char *type)
{
	for (size_t i = 0; i < sizeof(ns_types) / sizeof(ns_types[0]); i++)
		if (type && strcmp(type, ns_types[i].name) == 0)
			return ns_types[i].flag;
	return 0;
}

int cv_ns_plan_build(const oci_linux *linux_, struct cv_ns_plan *plan, cv_error_t *err)
{
	memset(plan, 0, sizeof(*plan));
	if (!linux_)
		return 0;
	for (size_t i = 0; i < linux_->namespaces_len; i++) {
		const oci_namespace *ns = &linux_->namespaces[i];
		int flag = cv_ns_flag(ns->type);
		if (!flag)
			return cv_error(err, EINVAL, "linux.namespaces[%zu].type: unknown namespace \"%s\"", i,
					ns->type ? ns->type : "");
		if ((plan->new_flags | plan->join_flags) & flag)
			return cv_error(err, EINVAL, "linux.namespaces: \"%s\" listed twice", ns->type);
		if (!ns->path || !ns->path[0]) {
			plan->new_flags |= flag;
			continue;
		}
		plan->join_flags |= flag;
		if (flag == CLONE_NEWUSER)
			plan->user_path = ns->path;
		else if (flag == CLONE_NEWPID)
			plan->pid_path = ns->path;
		else {
			plan->join_path[plan->njoin] = ns->path;
			plan->join_type[plan->njoin++] = flag;
		}
	}
	if (plan->user_path && (plan->new_flags & CLONE_NEWPID))
		return cv_error(err, ENOTSUP,
				"linux.namespaces: a new pid namespace inside a joined user namespace "
				"(\"%s\") is not supported",
				plan->user_path);
	if ((plan->new_flags | plan->join_flags) & CLONE_NEWUSER) {
		if ((plan->new_flags & CLONE_NEWUSER) && linux_->uid_mappings.len == 0)
			return cv_error(err, EINVAL, "linux.uidMappings: required with a new user namespace");
		if ((plan->new_flags & CLONE_NEWUSER) && linux_->gid_mappings.len == 0)
			return cv_error(err, EINVAL, "linux.gidMappings: required with a new user namespace");
	}
	if (linux_->time_offsets_len && !(plan->new_flags & CLONE_NEWTIME))
		return cv_error(err, EINVAL, "linux.timeOffsets: requires a new time namespace");
	return 0;
}

static int join_one(const char *path, int flag, cv_error_t *err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "open namespace `%s`", path);
	if (setns(fd, flag) < 0)
		return cv_error_errno(err, "setns `%s`", path);
	return 0;
}

int cv_ns_join(const struct cv_ns_plan *plan, cv_error_t *err)
{
	int r;
	/* The user namespace first: it grants the capabilities the others need. */
	if (plan->user_path) {
		r = join_one(plan->user_path, CLONE_NEWUSER, err);
		if (r < 0)
			return r;
	}
	for (int i = 0; i < plan->njoin; i++) {
		r = join_one(plan->join_path[i], plan->join_type[i], err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The kernel's text of a map, as snprintf: the length it needs. */
static size_t format_map(const oci_id_mappings *m, char *buf, size_t cap)
{
	size_t off = 0;
	for (size_t i = 0; i < m->len; i++) {
		int k = snprintf(off < cap ? buf + off : NULL, off < cap ? cap - off : 0, "%u %u %u\n",
				 m->v[i].container_id, m->v[i].host_id, m->v[i].size);
		off += k > 0 ? (size_t)k : 0;
	}
	return off;
}

static int write_map(pid_t pid, const char *file, const oci_id_mappings *m, cv_error_t *err)
{
	char path[64];
	size_t cap = format_map(m, NULL, 0) + 1;
	cleanup_free char *buf = malloc(cap);
	if (!buf)
		return cv_error(err, ENOMEM, "write %s", file);
	size_t off = format_map(m, buf, cap);
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "open `%s`", path);
	/* The kernel takes the whole map in one write. */
	if (write(fd, buf, off) != (ssize_t)off)
		return cv_error_errno(err, "write %s `%.*s`", file, (int)(off ? off - 1 : 0), buf);
	return 0;
}

/* The one map the kernel lets an unprivileged process write itself: its
 * own id, once. */
static bool own_id_only(const oci_id_mappings *m, uint32_t id)
{
	return m->len == 1 && m->v[0].size == 1 && m->v[0].host_id == id;
}

/* newuidmap/newgidmap PID ID HOST-ID SIZE...: the setuid helpers of Debian's
 * uidmap, which allow what /etc/subuid and /etc/subgid grant the caller.
 * Their messages (in the C locale) become the error. */
static int run_map_helper(const char *helper, pid_t pid, const oci_id_mappings *m, const char *field, cv_error_t *err)
{
	char path[PATH_MAX], out[512];
	int fds[2];

	if (!cv_find_program(helper, path, sizeof(path)))
		return cv_error(
			err, ENOENT,
			"%s: mapping more than your own id needs %s (Debian package uidmap), which is not in PATH",
			field, helper);
	size_t argc = 2 + 3 * m->len + 1;
	cleanup_free char **argv = calloc(argc, sizeof(*argv));
	cleanup_free char *nums = malloc((1 + 3 * m->len) * 12);
	if (!argv || !nums)
		return cv_error(err, ENOMEM, "%s", field);
	char *n = nums;
	argv[0] = path;
	argv[1] = n;
	n += sprintf(n, "%d", (int)pid) + 1;
	for (size_t i = 0; i < m->len; i++) {
		const uint32_t v[3] = { m->v[i].container_id, m->v[i].host_id, m->v[i].size };
		for (int k = 0; k < 3; k++) {
			argv[2 + 3 * i + k] = n;
			n += sprintf(n, "%u", v[k]) + 1;
		}
	}
	if (pipe2(fds, O_CLOEXEC) < 0)
		return cv_error_errno(err, "%s: pipe", field);
	cleanup_close int rd = fds[0];
	cleanup_close int wr = fds[1];
	posix_spawn_file_actions_t fa;
	char *const env[] = { NULL };
	pid_t child;
	int r = posix_spawn_file_actions_init(&fa);
	if (r == 0 && (r = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) == 0 &&
	    (r = posix_spawn_file_actions_adddup2(&fa, wr, 1)) == 0 &&
	    (r = posix_spawn_file_actions_adddup2(&fa, wr, 2)) == 0)
		r = posix_spawn(&child, path, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		return cv_error(err, r, "%s: run `%s`", field, path);
	close(steal_fd(&wr));
	size_t len = 0;
	for (;;) {
		ssize_t k = read(rd, out + len, sizeof(out) - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
		if (len == sizeof(out) - 1)
			break; /* enough for the message; the rest is dropped with the pipe */
	}
	out[len] = '\0';
	while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = '\0';
	int status;
	pid_t w;
	do
		w = waitpid(child, &status, 0);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return cv_error_errno(err, "%s: wait for %s", field, helper);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return cv_error_plain(err, EPERM, "%s: %s refused the map%s%s", field, helper, len ? ": " : "", out);
}

int cv_ns_write_id_maps(pid_t pid, const oci_linux *linux_, cv_error_t *err)
{
	const oci_id_mappings *u = &linux_->uid_mappings, *g = &linux_->gid_mappings;
	int r;

	if (geteuid() == 0) {
		r = write_map(pid, "uid_map", u, err);
		return r < 0 ? r : write_map(pid, "gid_map", g, err);
	}
	/* Without privilege the kernel lets a process map exactly its own uid,
	 * and its own gid once setgroups is denied; anything more goes
	 * through the setuid helpers, as runc and crun do. */
	r = own_id_only(u, geteuid()) ? write_map(pid, "uid_map", u, err)
				      : run_map_helper("newuidmap", pid, u, "linux.uidMappings", err);
	if (r < 0)
		return r;
	if (!own_id_only(g, getegid()))
		return run_map_helper("newgidmap", pid, g, "linux.gidMappings", err);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
	cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "deny", 4) != 4)
		return cv_error_errno(err, "write `deny` to `%s`", path);
	return write_map(pid, "gid_map", g, err);
}

int cv_ns_id_map_files(const oci_linux *linux_, struct cv_ns_map_file files[3], size_t *n)
{
	const oci_id_mappings *u = &linux_->uid_mappings, *g = &linux_->gid_mappings;
	bool root = geteuid() == 0;
	if (!root && (!own_id_only(u, geteuid()) || !own_id_only(g, getegid())))
		return 1;
	*n = 0;
	const oci_id_mappings *maps[2] = { u, g };
	for (int i = 0; i < 2; i++) {
		if (i == 1 && !root) {
			files[*n].name = "setgroups";
			files[*n].len = 4;
			memcpy(files[(*n)++].text, "deny", 5);
		}
		struct cv_ns_map_file *f = &files[(*n)++];
		f->name = i == 0 ? "uid_map" : "gid_map";
		f->len = format_map(maps[i], f->text, sizeof(f->text));
		if (f->len >= sizeof(f->text))
			return -ENOSPC;
	}
	return 0;
}

bool cv_ns_in_user_namespace(void)
{
	char buf[128];
	unsigned long inside, outside, count;
	int used = 0;

	cleanup_close int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return false; /* no procfs: nothing says we are in one */
	buf[n] = '\0';
	/* the initial namespace maps every id to itself, in one line */
	return !(sscanf(buf, " %lu %lu %lu %n", &inside, &outside, &count, &used) == 3 && buf[used] == '\0' &&
		 inside == 0 && outside == 0 && count == 4294967295UL);
}

int cv_ns_write_time_offsets(pid_t pid, const oci_linux *linux_, cv_error_t *err)
{
	char path[64], line[96];
	if (!linux_ || !linux_->time_offsets_len)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/timens_offsets", (int)pid);
	cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return cv_error_errno(err, "open `%s`", path);
	for (size_t i = 0; i < linux_->time_offsets_len; i++) {
		const oci_time_offset *t = &linux_->time_offsets[i];
		int n = snprintf(line, sizeof(line), "%s %lld %u\n", t->clock, (long long)t->secs, t->nanosecs);
		if (write(fd, line, (size_t)n) != n)
			return cv_error_errno(err, "linux.timeOffsets.%s: write `%s`", t->clock, path);
	}
	return 0;
}

int cv_ns_loopback_up(cv_error_t *err)
{
	struct ifreq ifr;
	cleanup_close int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return cv_error_errno(err, "loopback: socket");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return cv_error_errno(err, "loopback: get flags of `lo`");
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return cv_error_errno(err, "loopback: bring `lo` up");
	return 0;
}

/* The helper is a task that shares our memory and fd table, so that its
 * start copies no page tables and write-protects none of our pages (a
 * fork's cost, which on a virtual machine with costly page faults exceeded
 * the namespace's own). It shares our thread pointer too, so errno and the
 * C library's locks: it makes raw system calls only and leaves its answer
 * here, read once it has exited. One helper per process at a time: the
 * container process starts one. The mm is shared, so is its dumpable flag:
 * the helper is exactly as reachable through /proc as we are. */
static struct {
	int fd; /* the new namespace, opened into our (shared) fd table */
	int errnum;
	const char *what; /* a string literal */
} netns_answer = { .fd = -1 };

#if CV_HAVE_RAW_SYSCALL
static char netns_stack[16384] __attribute__((aligned(16)));

__attribute__((no_sanitize_address)) static int netns_helper(void *arg)
{
	(void)arg;
	long r = cv_raw_syscall1(SYS_unshare, CLONE_NEWNET);
	long s = -1;
	if (r < 0) {
		netns_answer.what = "unshare network namespace";
		goto out;
	}
	r = s = cv_raw_syscall3(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (r < 0) {
		netns_answer.what = "loopback: socket";
		goto out;
	}
	struct ifreq ifr = { .ifr_name = "lo" };
	r = cv_raw_syscall3(SYS_ioctl, s, SIOCGIFFLAGS, &ifr);
	if (r < 0) {
		netns_answer.what = "loopback: get flags of `lo`";
		goto out;
	}
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	r = cv_raw_syscall3(SYS_ioctl, s, SIOCSIFFLAGS, &ifr);
	if (r < 0) {
		netns_answer.what = "loopback: bring `lo` up";
		goto out;
	}
	r = cv_raw_syscall3(SYS_openat, AT_FDCWD, "/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (r < 0)
		netns_answer.what = "open the new network namespace";
	else
		netns_answer.fd = (int)r;
out:
	if (s >= 0)
		cv_raw_syscall1(SYS_close, s);
	if (r < 0)
		netns_answer.errnum = (int)-r;
	return 0;
}

static pid_t netns_helper_start(void)
{
	netns_answer.fd = -1;
	netns_answer.errnum = 0;
	netns_answer.what = NULL;
	return clone(netns_helper, netns_stack + sizeof(netns_stack), CLONE_VM | CLONE_FILES | SIGCHLD, NULL);
}
#else
static pid_t netns_helper_start(void)
{
	errno = ENOSYS;
	return -1;
}
#endif

int cv_netns_maker_start(struct cv_netns_maker *m, bool own_pidns, cv_error_t *err)
{
	pid_t pid = netns_helper_start();
	if (pid > 0) {
		m->pid = pid;
		/* a pid namespace's last pid is set by whoever may checkpoint
		 * and restore in it: we, until the capabilities go */
		if (own_pidns)
			m->last_pid = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
		return 0;
	}
	/* no helper (a pids limit, say): made here, in line */
	if (unshare(CLONE_NEWNET) < 0)
		return cv_error_errno(err, "unshare network namespace");
	return cv_ns_loopback_up(err);
}

/* pid: the helper while it runs, 0 once waited for */
static void netns_helper_wait(struct cv_netns_maker *m)
{
	while (m->pid > 0 && waitpid(m->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (m->pid > 0)
		m->pid = 0;
}

int cv_netns_maker_join(struct cv_netns_maker *m, cv_error_t *err)
{
	if (m->pid <= 0)
		return 0;
	netns_helper_wait(m);
	cleanup_close int fd = steal_fd(&netns_answer.fd);
	if (netns_answer.errnum)
		return cv_error(err, netns_answer.errnum, "%s", netns_answer.what);
	if (fd < 0)
		return cv_error(err, EPROTO, "network namespace: the helper made none");
	if (setns(fd, CLONE_NEWNET) < 0)
		return cv_error_errno(err, "enter the new network namespace");
	return 0;
}

void cv_netns_maker_reap(struct cv_netns_maker *m)
{
	netns_helper_wait(m);
	if (netns_answer.fd >= 0)
		close(steal_fd(&netns_answer.fd));
	if (m->last_pid >= 0) {
		/* only the numbering: a failure changes nothing else */
		if (write(m->last_pid, "1", 1) != 1)
			cv_debug("network namespace: give the helper's pid back: %s", strerror(errno));
		close(m->last_pid);
		m->last_pid = -1;
	}
}
