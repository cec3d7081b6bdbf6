/* fs/safe-path: resolving inside a rootfs never leads out of it (symlinks
 * pointing out, "..", absolute links, loops, non-directories), creating
 * what is missing stays inside, and procfs opens cross no symlink.
 *
 * Everything runs twice on a temporary tree: with openat2(RESOLVE_IN_ROOT),
 * then in a child where a seccomp filter makes openat2 fail with ENOSYS, so
 * that the fallback walk of kernels without openat2 meets the same cases. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "fs/safe-path.h"
#include "io.h"
#include "tap.h"

static char tmp[] = "/tmp/cvisor-test-safe-path-XXXXXX";
static char root[sizeof(tmp) + 8];

static int put(const char *rel, const char *content)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int r = cv_write_all(fd, content, strlen(content));
	close(fd);
	return r;
}

static int link_at(const char *target, const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	return symlink(target, path);
}

static int dir_at(const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	return mkdir(path, 0755);
}

/* root/                 the rootfs
 *   etc/passwd          "inside"
 *   file                a regular file
 *   dir/up -> ../../../..      relative, far above the root
 *   abs -> /etc/passwd         absolute: the rootfs's /etc/passwd
 *   rel-out -> ../secret       relative, one level out
 *   abs-out -> TMP/secret      absolute host path of the secret
 *   loop1 -> loop2, loop2 -> loop1, self -> self
 *   dangling -> /made/by/link  absolute, missing
 * secret                "outside", beside the root */
static int make_tree(void)
{
	char abs_out[512];
	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(abs_out, sizeof(abs_out), "%s/secret", tmp);
	return dir_at("root") || dir_at("root/etc") || dir_at("root/dir") || put("root/etc/passwd", "inside") ||
	       put("root/file", "x") || put("secret", "outside") || link_at("../../../..", "root/dir/up") ||
	       link_at("/etc/passwd", "root/abs") || link_at("../secret", "root/rel-out") ||
	       link_at(abs_out, "root/abs-out") || link_at("loop2", "root/loop1") || link_at("loop1", "root/loop2") ||
	       link_at("self", "root/self") || link_at("/made/by/link", "root/dangling");
}

/* The content of ROOT/PATH opened through cv_open_in_root, or the error. */
static void expect_open(int rootfd, const char *path, const char *want, int want_errno, const char *mode)
{
	cv_error_t err = NULL;
	int fd = cv_open_in_root(rootfd, path, O_RDONLY, 0, &err);
	if (want) {
		char buf[64] = "";
		ssize_t n = fd >= 0 ? cv_read_buf(fd, buf, sizeof(buf)) : -1;
		ok(n >= 0 && strcmp(buf, want) == 0, "%s: `%s` opens the rootfs's file (\"%.*s\")%s%s", mode, path,
		   (int)strcspn(buf, "\n"), buf, err ? ": " : "", err ? err->msg : "");
	} else
		ok(fd < 0 && err && err->errnum == want_errno, "%s: `%s` is refused with %s (%s)", mode, path,
		   strerror(want_errno), err ? err->msg : "opened");
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
}

static bool host_exists(const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	return access(path, F_OK) == 0;
}

static void suite(const char *mode)
{
	cleanup_close int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cv_error_t err = NULL;

	expect_open(rootfd, "/etc/passwd", "inside", 0, mode);
	expect_open(rootfd, "etc/passwd", "inside", 0, mode);
	expect_open(rootfd, "../../../../etc/passwd", "inside", 0, mode);
	expect_open(rootfd, "/etc/../../etc/./passwd", "inside", 0, mode);
	expect_open(rootfd, "abs", "inside", 0, mode);
	expect_open(rootfd, "dir/up/etc/passwd", "inside", 0, mode);
	expect_open(rootfd, "dir/up/../../etc/passwd", "inside", 0, mode);
	expect_open(rootfd, "rel-out", NULL, ENOENT, mode); /* ../secret is ROOT/secret: absent */
	expect_open(rootfd, "abs-out", NULL, ENOENT, mode); /* TMP/secret inside the root: absent */
	expect_open(rootfd, "loop1", NULL, ELOOP, mode);
	expect_open(rootfd, "self", NULL, ELOOP, mode);
	expect_open(rootfd, "file/passwd", NULL, ENOTDIR, mode);
	expect_open(rootfd, "etc/passwd/", NULL, ENOTDIR, mode);
	expect_open(rootfd, "abs/", NULL, ENOTDIR, mode);
	expect_open(rootfd, "nothing/here", NULL, ENOENT, mode);

	/* the root itself, however it is reached */
	static const char *const roots[] = { "/", "..", "dir/up", "dir/up/", "dir/../../.." };
	struct stat rst, st;
	fstat(rootfd, &rst);
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		int d = cv_open_in_root(rootfd, roots[i], O_PATH | O_DIRECTORY, 0, &err);
		ok(d >= 0 && fstat(d, &st) == 0 && st.st_dev == rst.st_dev && st.st_ino == rst.st_ino,
		   "%s: `%s` is the root itself", mode, roots[i]);
		if (d >= 0)
			close(d);
		cv_error_release(&err);
	}

	/* creating: inside the root whatever the links say */
	int fd = cv_mkdir_open_in_root(rootfd, "/new/a/b", false, &err);
	ok(fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && host_exists("root/new/a/b"),
	   "%s: cv_mkdir_open_in_root creates /new/a/b", mode);
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
	fd = cv_mkdir_open_in_root(rootfd, "dir/up/escaped", false, &err);
	ok(fd >= 0 && host_exists("root/escaped") && !host_exists("escaped"),
	   "%s: a directory made through dir/up (../../../..) lands in the root", mode);
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
	fd = cv_mkdir_open_in_root(rootfd, "rel-out/x", false, &err);
	ok(fd >= 0 && host_exists("root/secret/x") && !host_exists("secret/x") && !host_exists("x"),
	   "%s: a directory made through rel-out (../secret) lands in the root", mode);
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
	fd = cv_mkdir_open_in_root(rootfd, "dangling/file", true, &err);
	ok(fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && host_exists("root/made/by/link/file"),
	   "%s: a file made through a dangling absolute link lands in the root (%s)", mode, err ? err->msg : "");
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
	fd = cv_mkdir_open_in_root(rootfd, "etc/passwd", true, &err);
	ok(fd >= 0, "%s: an existing file is opened, not recreated", mode);
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
	fd = cv_mkdir_open_in_root(rootfd, "file/sub", false, &err);
	ok(fd < 0 && err && err->errnum == ENOTDIR, "%s: a directory under a file: ENOTDIR (%s)", mode,
	   err ? err->msg : "made");
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
	fd = cv_mkdir_open_in_root(rootfd, "loop1/sub", false, &err);
	ok(fd < 0 && err && err->errnum == ELOOP, "%s: under a symlink loop: ELOOP (%s)", mode,
	   err ? err->msg : "made");
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
	ok(!host_exists("made") && !host_exists("new") && !host_exists("sub"), "%s: nothing was made beside the root",
	   mode);

	/* procfs: no symlink crossed below /proc (self is expanded by us) */
	fd = cv_procfs_open("self/status", O_RDONLY, &err);
	char buf[4096] = "", want[32];
	snprintf(want, sizeof(want), "\nPid:\t%d\n", (int)getpid());
	ok(fd >= 0 && cv_read_buf(fd, buf, sizeof(buf)) > 0 && strstr(buf, want), "%s: /proc/self/status is ours",
	   mode);
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
	fd = cv_procfs_open("self/root/etc/hostname", O_RDONLY, &err);
	ok(fd < 0 && err, "%s: /proc/self/root/... is refused (%s)", mode, err ? err->msg : "opened");
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
	fd = cv_procfs_open("../etc/passwd", O_RDONLY, &err);
	ok(fd < 0 && err, "%s: ../ out of procfs is refused (%s)", mode, err ? err->msg : "opened");
	if (fd >= 0)
		close(fd);
	cv_error_release(&err);
}

/* cv_path_clean: ".." never above the root, "." for the root */
static void test_clean(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/", "." },           { "", "." },     { "/a/./b//c/", "a/b/c" },
		{ "../../x", "x" },     { "a/..", "." }, { "a/../../b", "b" },
		{ "/a/b/../c", "a/c" }, { "./.", "." },  { "..a/b..", "..a/b.." },
	};
	char out[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = cv_path_clean(cases[i].in, out, sizeof(out));
		ok(r == 0 && strcmp(out, cases[i].out) == 0, "cv_path_clean(\"%s\") = \"%s\" (got \"%s\")", cases[i].in,
		   cases[i].out, r == 0 ? out : strerror(-r));
	}
	ok(cv_path_clean("/abcdef/ghijkl", out, 8) == -ENAMETOOLONG, "cv_path_clean: too long for OUT: ENAMETOOLONG");
}

/* The suite again in a child whose openat2 fails with ENOSYS. */
static void fallback_suite(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		ok(0, "pipe");
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
		if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0) < 0 ||
		    seccomp_load(ctx) < 0)
			_exit(2);
		seccomp_release(ctx);
		ok(syscall(SYS_openat2, AT_FDCWD, ".", NULL, 0) < 0 && errno == ENOSYS, "fallback: openat2 is ENOSYS");
		suite("fallback");
		int counts[2] = { tap_count, tap_failures };
		_exit(write(p[1], counts, sizeof(counts)) == sizeof(counts) ? 0 : 3);
	}
	close(p[1]);
	int counts[2] = { 0, 0 }, status = -1;
	ssize_t n = cv_read_buf(p[0], (char *)counts, sizeof(counts) + 1);
	close(p[0]);
	waitpid(pid, &status, 0);
	if (n != (ssize_t)sizeof(counts) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		ok(0, "the fallback suite ran (status %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return;
	}
	tap_count = counts[0];
	tap_failures = counts[1];
}

int main(void)
{
	if (!mkdtemp(tmp) || make_tree() < 0) {
		ok(0, "make the tree in %s", tmp);
		return tap_done();
	}
	test_clean();
	suite("openat2");
	/* the second run makes the same things again */
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/root/new %s/root/escaped %s/root/secret %s/root/made", tmp, tmp, tmp,
		 tmp);
	if (system(cmd) != 0)
		ok(0, "reset the tree");
	fallback_suite();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd) != 0)
		ok(0, "remove %s", tmp);
	return tap_done();
}
