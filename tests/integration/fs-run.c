/* fs-run: drives the filesystem module alone, without the rest of the
 * lifecycle, so mounts, devices, masked paths and pivot_root can be tested
 * by themselves. Usage: fs-run [--no-pivot] [--netns] [--cgroupns] [--userns] BUNDLE
 * It unshares mount and pid namespaces (plus the optional ones), forks,
 * and the child calls cv_rootfs_prepare/cv_rootfs_finalize on BUNDLE's
 * config.json, then execs process.args. Exit status is the child's.
 * --userns follows the runtime's order: idmapped mounts are prepared with
 * cv_rootfs_idmap_prepare first, then a child unshares a user namespace,
 * gets linux.uidMappings/gidMappings written from outside, and unshares
 * the rest there (so its mount namespace belongs to the new user one). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "fs/mounts.h"
#include "oci/spec.h"

static int write_map(pid_t pid, const char *file, const oci_id_mappings *m)
{
	char path[64], buf[4096];
	size_t n = 0;
	for (size_t i = 0; i < m->len && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%u %u %u\n", m->v[i].container_id, m->v[i].host_id,
				      m->v[i].size);
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n) {
		perror(path);
		return -1;
	}
	close(fd);
	return 0;
}

static int wait_status(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void sink(int level, const char *msg, void *data)
{
	(void)data;
	fprintf(stderr, "fs-run: %s: %s\n", level == CV_LOG_WARNING ? "warning" : "debug", msg);
}

int main(int argc, char **argv)
{
	struct cv_rootfs_config cfg = { .console_fd = -1 };
	int flags = CLONE_NEWNS | CLONE_NEWPID, i;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--no-pivot") == 0)
			cfg.no_pivot = true;
		else if (strcmp(argv[i], "--netns") == 0)
			flags |= CLONE_NEWNET, cfg.new_netns = true;
		else if (strcmp(argv[i], "--cgroupns") == 0)
			flags |= CLONE_NEWCGROUP, cfg.new_cgroupns = true;
		else if (strcmp(argv[i], "--userns") == 0)
			cfg.new_userns = true;
		else {
			fprintf(stderr, "fs-run: unknown flag %s\n", argv[i]);
			return 125;
		}
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: fs-run [--no-pivot] [--netns] [--cgroupns] [--userns] BUNDLE\n");
		return 125;
	}
	cv_log_set_sink(sink, NULL, getenv("FS_RUN_DEBUG") ? CV_LOG_DEBUG : CV_LOG_WARNING);
	cleanup_error cv_error_t err = NULL;
	oci_spec *spec = NULL;
	char cfgpath[PATH_MAX], rootfs[PATH_MAX], tmp[PATH_MAX * 2];
	snprintf(cfgpath, sizeof(cfgpath), "%s/config.json", argv[i]);
	if (oci_spec_load(cfgpath, &spec, &err) < 0) {
		fprintf(stderr, "fs-run: %s\n", err->msg);
		return 125;
	}
	if (chdir(argv[i]) < 0) {
		perror("fs-run: chdir bundle");
		return 125;
	}
	snprintf(tmp, sizeof(tmp), "%s", spec->root->path);
	if (!realpath(tmp, rootfs)) {
		perror("fs-run: rootfs");
		return 125;
	}
	cfg.spec = spec;
	cfg.rootfs = rootfs;
	/* the runtime's order: made before the container's namespaces */
	struct cv_rootfs_pruned pruned;
	if (cv_rootfs_pruned_prepare(spec, rootfs, &pruned, &err) < 0) {
		fprintf(stderr, "fs-run: %s\n", err->msg);
		return 125;
	}
	cfg.pruned = &pruned;
	int *mount_fds = NULL;
	if (cfg.new_userns) {
		/* the namespaces the kernel wants owned by the new user namespace
		 * for what the spec mounts (mqueue: ipc, sysfs: net) */
		for (size_t n = 0; spec->linux_ && n < spec->linux_->namespaces_len; n++) {
			const char *t = spec->linux_->namespaces[n].type;
			if (strcmp(t, "ipc") == 0)
				flags |= CLONE_NEWIPC;
			else if (strcmp(t, "uts") == 0)
				flags |= CLONE_NEWUTS;
			else if (strcmp(t, "network") == 0)
				flags |= CLONE_NEWNET, cfg.new_netns = true;
			else if (strcmp(t, "cgroup") == 0)
				flags |= CLONE_NEWCGROUP, cfg.new_cgroupns = true;
		}
		if (cv_rootfs_idmap_prepare(spec, &mount_fds, &err) < 0) {
			fprintf(stderr, "fs-run: %s\n", err->msg);
			return 125;
		}
		cfg.mount_fds = mount_fds;
		int go[2], ready[2];
		char c = 0;
		if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ready, O_CLOEXEC) < 0) {
			perror("fs-run: pipe");
			return 125;
		}
		pid_t ns = fork();
		if (ns < 0) {
			perror("fs-run: fork");
			return 125;
		}
		if (ns > 0) {
			close(go[0]);
			close(ready[1]);
			cv_rootfs_idmap_release(mount_fds, spec->mounts_len); /* the child has its copies */
			if (read(ready[0], &c, 1) != 1 || !spec->linux_ ||
			    write_map(ns, "uid_map", &spec->linux_->uid_mappings) < 0 ||
			    write_map(ns, "gid_map", &spec->linux_->gid_mappings) < 0) {
				fprintf(stderr, "fs-run: user namespace setup failed\n");
				kill(ns, SIGKILL);
				wait_status(ns);
				return 125;
			}
			if (write(go[1], &c, 1) != 1)
				return 125;
			int st = wait_status(ns);
			oci_spec_free(spec);
			return st;
		}
		close(go[1]);
		close(ready[0]);
		if (unshare(CLONE_NEWUSER) < 0 || write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) {
			perror("fs-run: unshare user namespace");
			_exit(125);
		}
		if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
			perror("fs-run: become root in the user namespace");
			_exit(125);
		}
	}
	if (unshare(flags) < 0) {
		perror("fs-run: unshare");
		return 125;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("fs-run: fork");
		return 125;
	}
	if (pid == 0) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (cv_rootfs_prepare(&cfg, &err) < 0 || cv_rootfs_finalize(&cfg, &err) < 0) {
			fprintf(stderr, "fs-run: %s\n", err->msg);
			_exit(125);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* FS_RUN_TIME=1: how long the filesystem module took, for benchmarks */
		if (getenv("FS_RUN_TIME"))
			fprintf(stderr, "fs-run: rootfs setup %ld us\n",
				(long)((t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000));
		if (spec->process->cwd && chdir(spec->process->cwd) < 0) {
			perror("fs-run: chdir cwd");
			_exit(125);
		}
		if (spec->process->env.v)
			environ = spec->process->env.v;
		execvp(spec->process->args.v[0], spec->process->args.v);
		perror("fs-run: execve");
		_exit(127);
	}
	int st = wait_status(pid);
	oci_spec_free(spec);
	return st;
}
