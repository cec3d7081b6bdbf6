/* fs-run: drives the filesystem module alone, without the rest of the
 * lifecycle, so mounts, devices, masked paths and pivot_root can be tested
 * by themselves. Usage: fs-run [--no-pivot] [--netns] [--cgroupns] BUNDLE
 * It unshares mount and pid namespaces (plus the optional ones), forks,
 * and the child calls cv_rootfs_prepare/cv_rootfs_finalize on BUNDLE's
 * config.json, then execs process.args. Exit status is the child's. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "mounts.h"
#include "oci/spec.h"

static void sink(enum cv_log_level level, const char *msg, void *data)
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
		else {
			fprintf(stderr, "fs-run: unknown flag %s\n", argv[i]);
			return 125;
		}
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: fs-run [--no-pivot] [--netns] [--cgroupns] BUNDLE\n");
		return 125;
	}
	cv_log_set_sink(sink, NULL, getenv("FS_RUN_DEBUG") ? CV_LOG_DEBUG : CV_LOG_WARNING);
	cleanup_error cv_error_t err = NULL;
	oci_spec *spec = NULL;
	char cfgpath[PATH_MAX], rootfs[PATH_MAX], tmp[PATH_MAX * 2];
	snprintf(cfgpath, sizeof cfgpath, "%s/config.json", argv[i]);
	if (oci_spec_load(cfgpath, &spec, &err) < 0) {
		fprintf(stderr, "fs-run: %s\n", err->msg);
		return 125;
	}
	if (chdir(argv[i]) < 0) {
		perror("fs-run: chdir bundle");
		return 125;
	}
	snprintf(tmp, sizeof tmp, "%s", spec->root->path);
	if (!realpath(tmp, rootfs)) {
		perror("fs-run: rootfs");
		return 125;
	}
	cfg.spec = spec;
	cfg.rootfs = rootfs;
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
		if (cv_rootfs_prepare(&cfg, &err) < 0 || cv_rootfs_finalize(&cfg, &err) < 0) {
			fprintf(stderr, "fs-run: %s\n", err->msg);
			_exit(125);
		}
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
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 125;
	oci_spec_free(spec);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
