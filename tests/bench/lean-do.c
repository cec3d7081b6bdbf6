/* lean-do [--memory SIZE] [--processes N] PROGRAM [ARGS...]: a reference
 * for bench.sh --mode do, not a runtime. The isolation bench.sh gives
 * bubblewrap (user, pid, net, ipc and uts namespaces, a read-only host
 * root, tmpfs on /tmp /run /root /etc/ssh and /dev with six host nodes
 * bound in, /etc/shadow and /etc/gshadow over /dev/null, a new /proc,
 * loopback up, no capabilities, no_new_privs, the seccomp filter on fd 9
 * when one is there) in straight system calls: no config, no checks of
 * it, no state, no relays, a pid 1 that only forks the program and reaps
 * it. What such a launcher costs on a machine is what `cvisor do`'s
 * generality is measured against. With --memory or --processes, what
 * cvisor do makes for them: a cgroup under our own in each hierarchy that
 * has the controller (memory and pids on v1 and hybrid, one directory on
 * v2), its limit written, joined by the child first thing, removed once
 * the program's pid 1 is reaped.
 * Built statically by bench.sh; needs root. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>

#define NEWROOT "/tmp/.lean-root"

static void remove_cgroups(void);
static pid_t maker; /* the process that made the cgroups removes them */
static pid_t child; /* in them, ended first */

static void die(const char *what)
{
	perror(what);
	if (getpid() == maker) {
		if (child > 0 && kill(child, SIGKILL) == 0)
			(void)waitpid(child, NULL, 0);
		remove_cgroups();
	}
	_exit(127);
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s) || close(fd) < 0)
		die(path);
}

static void bind_node(const char *name)
{
	char src[64], dst[96];
	snprintf(src, sizeof(src), "/dev/%s", name);
	snprintf(dst, sizeof(dst), NEWROOT "/dev/%s", name);
	int fd = open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0 || close(fd) < 0 || mount(src, dst, NULL, MS_BIND, NULL) < 0)
		die(dst);
}

/* The limits' cgroups: each directory made, its limit written, its
 * membership file open for the child's join. */
struct cg {
	char dir[512];
	int join;
};
static struct cg cgs[2];
static size_t ncgs;

/* Our own cgroup in the hierarchy whose /proc/self/cgroup line has KEY as
 * its controllers ("memory", "pids", or "" for v2). */
static void own_cgroup(const char *key, char *out, size_t size)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024];
	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = '\0';
		b[1 + strcspn(b + 1, "\n")] = '\0';
		if (!strcmp(a + 1, key))
			snprintf(out, size, "%s", b + 1);
	}
	if (f)
		fclose(f);
	if (!out[0]) {
		errno = ENOENT;
		die(key[0] ? "our cgroup in /proc/self/cgroup (v1 controller)"
			   : "our cgroup in /proc/self/cgroup (v2)");
	}
}

static void make_cgroup(const char *mount, const char *key, const char *const *files, const char *const *values,
			size_t n, const char *join)
{
	char own[512], path[640];
	own_cgroup(key, own, sizeof(own));
	struct cg *c = &cgs[ncgs];
	snprintf(c->dir, sizeof(c->dir), "%s%s/lean-do-%d", mount, own, (int)getpid());
	maker = getpid();
	if (mkdir(c->dir, 0755) < 0)
		die(c->dir);
	ncgs++;
	for (size_t i = 0; i < n; i++) {
		if (!values[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", c->dir, files[i]);
		write_file(path, values[i]);
	}
	snprintf(path, sizeof(path), "%s/%s", c->dir, join);
	if ((c->join = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		die(path);
}

/* SIZE as cvisor do takes it, but whole: a number, then "k", "m", "g" or
 * "t" with an optional "ib" or "b", any case; in bytes (a static buffer:
 * one size a run) */
static const char *bytes(const char *s)
{
	static char out[24];
	static const char *const units = "kmgt";
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	const char *u = *end ? strchr(units, *end | 0x20) : NULL;
	if (u) {
		unsigned shift = 10 * (unsigned)(u - units + 1);
		if (v > (~0ULL >> shift))
			errno = ERANGE;
		v <<= shift;
		end++;
		if ((*end | 0x20) == 'i')
			end++;
		if ((*end | 0x20) == 'b')
			end++;
	} else if ((*end | 0x20) == 'b') {
		end++;
	}
	if (errno || end == s || *end || (s[0] < '0' || s[0] > '9')) {
		fprintf(stderr, "lean-do: --memory: not a size: %s\n", s);
		exit(2);
	}
	snprintf(out, sizeof(out), "%llu", v);
	return out;
}

static void make_cgroups(const char *memory, const char *processes)
{
	struct statfs sf;
	if (!memory && !processes)
		return;
	if (statfs("/sys/fs/cgroup", &sf) < 0)
		die("/sys/fs/cgroup");
	if (sf.f_type == CGROUP2_SUPER_MAGIC) {
		const char *files[] = { "memory.max", "pids.max" }, *values[] = { memory, processes };
		make_cgroup("/sys/fs/cgroup", "", files, values, 2, "cgroup.procs");
		return;
	}
	if (memory) {
		const char *files[] = { "memory.limit_in_bytes" }, *values[] = { memory };
		make_cgroup("/sys/fs/cgroup/memory", "memory", files, values, 1, "tasks");
	}
	if (processes) {
		const char *files[] = { "pids.max" }, *values[] = { processes };
		make_cgroup("/sys/fs/cgroup/pids", "pids", files, values, 1, "tasks");
	}
}

static void remove_cgroups(void)
{
	for (size_t i = 0; i < ncgs; i++)
		if (rmdir(cgs[i].dir) < 0)
			perror(cgs[i].dir);
}

/* The filter on fd 9 (bench.sh's copy of cvisor do's), if any. */
static struct sock_fprog read_filter(void)
{
	static struct sock_filter insns[BPF_MAXINSNS];
	struct sock_fprog prog = { 0, insns };
	struct stat st;
	if (fstat(9, &st) < 0 || !S_ISREG(st.st_mode))
		return prog;
	ssize_t n = read(9, insns, sizeof(insns));
	if (n < 0 || n % (ssize_t)sizeof(insns[0]))
		die("read the seccomp filter on fd 9");
	prog.len = (unsigned short)(n / (ssize_t)sizeof(insns[0]));
	close(9);
	return prog;
}

static void sandbox(void)
{
	if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
		die("become root of the user namespace");
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = { .ifr_name = "lo" };
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		die("loopback");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0 || close(s) < 0)
		die("loopback up");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("make / private");
	/* a tmpfs on /tmp holds the new root's mount point */
	if (mount("tmpfs", "/tmp", "tmpfs", 0, "mode=0755") < 0 || mkdir(NEWROOT, 0755) < 0 ||
	    mount("/", NEWROOT, NULL, MS_BIND | MS_REC, NULL) < 0)
		die("new root");
	static const char *const tmpfs[] = { "tmp", "run", "root", "etc/ssh", "dev" };
	for (size_t i = 0; i < sizeof(tmpfs) / sizeof(tmpfs[0]); i++) {
		char dst[96];
		snprintf(dst, sizeof(dst), NEWROOT "/%s", tmpfs[i]);
		if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
			die(dst);
	}
	static const char *const nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		bind_node(nodes[i]);
	if (mount("/dev/null", NEWROOT "/etc/shadow", NULL, MS_BIND, NULL) < 0 ||
	    mount("/dev/null", NEWROOT "/etc/gshadow", NULL, MS_BIND, NULL) < 0)
		die("hide the shadow files");
	/* the host's mounts read-only, then ours writable again */
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY }, rw = { .attr_clr = MOUNT_ATTR_RDONLY };
	if (syscall(SYS_mount_setattr, AT_FDCWD, NEWROOT, AT_RECURSIVE, &ro, sizeof(ro)) < 0)
		die("read-only root");
	for (size_t i = 0; i < sizeof(tmpfs) / sizeof(tmpfs[0]); i++) {
		char dst[96];
		snprintf(dst, sizeof(dst), NEWROOT "/%s", tmpfs[i]);
		if (syscall(SYS_mount_setattr, AT_FDCWD, dst, 0, &rw, sizeof(rw)) < 0)
			die(dst);
	}
	if (chdir(NEWROOT) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 ||
	    chdir("/") < 0)
		die("pivot_root");
}

int main(int argc, char **argv)
{
	const char *memory = NULL, *processes = NULL;
	while (argc > 2 && (!strcmp(argv[1], "--memory") || !strcmp(argv[1], "--processes"))) {
		*(argv[1][2] == 'm' ? &memory : &processes) = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: lean-do [--memory SIZE] [--processes N] PROGRAM [ARGS...]\n");
		return 2;
	}
	struct sock_fprog filter = read_filter();
	make_cgroups(memory ? bytes(memory) : NULL, processes);
	int sync[2];
	if (pipe2(sync, O_CLOEXEC) < 0)
		die("pipe");
	struct clone_args ca = { .flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
					  CLONE_NEWUTS,
				 .exit_signal = SIGCHLD };
	pid_t pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0)
		die("clone3");
	if (pid > 0) {
		char p[64];
		child = pid;
		close(sync[0]);
		for (size_t i = 0; i < ncgs; i++)
			close(cgs[i].join);
		snprintf(p, sizeof(p), "/proc/%d/uid_map", (int)pid);
		write_file(p, "0 65534 1\n");
		snprintf(p, sizeof(p), "/proc/%d/setgroups", (int)pid);
		write_file(p, "deny");
		snprintf(p, sizeof(p), "/proc/%d/gid_map", (int)pid);
		write_file(p, "0 65534 1\n");
		close(sync[1]);
		int st;
		if (waitpid(pid, &st, 0) < 0)
			die("waitpid");
		child = 0;
		remove_cgroups();
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	close(sync[1]);
	for (size_t i = 0; i < ncgs; i++)
		if (write(cgs[i].join, "0", 1) != 1 || close(cgs[i].join) < 0)
			die("join the limits' cgroup");
	char b;
	if (read(sync[0], &b, 1) < 0)
		die("wait for the id maps");
	close(sync[0]);
	sandbox();
	/* pid 1: forks the program, reaps it, exits with its status */
	pid_t prog = fork();
	if (prog < 0)
		die("fork");
	if (prog == 0) {
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			die("mount /proc");
		for (int c = 0; c <= CAP_LAST_CAP; c++)
			if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
				die("drop the bounding set");
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
		if (syscall(SYS_capset, &h, d) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			die("drop capabilities");
		if (filter.len && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0) < 0)
			die("load the seccomp filter");
		execvp(argv[1], argv + 1);
		die(argv[1]);
	}
	int st;
	while (waitpid(prog, &st, 0) < 0)
		;
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}
