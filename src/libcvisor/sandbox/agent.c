/* The file agent of libcvisor's sandboxes (keeper.h): `cvisor-agent`,
 * run inside a sandbox as the program of a run, moves files and trees in
 * and out in the program's own view. Its own program, not a verb of the
 * cvisor binary: it links libarchive, which the static cvisor binary does
 * not carry. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "files/archive.h"
#include "files/ignore.h"
#include "io.h"
#include "sandbox/keeper.h"
#include "sandbox/sandbox.h"

static int agent_fail(int e, const char *what, const char *path)
{
	fprintf(stderr, "%s `%s`: %s\n", what, path, strerror(e));
	return e > 0 && e < 126 ? e : EIO;
}

static int copy_fd(int from, int to)
{
	char buf[65536];
	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		int r = cv_write_all(to, buf, (size_t)n);
		if (r < 0)
			return r;
	}
}

/* ---- trees ---- */

/* The paths the ignore rules keep, sorted: the archive's skip callback
 * looks them up (a path that appears after the walk is left out). */
struct kept {
	char **v;
	size_t n, cap;
};

static void kept_release(struct kept *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i]);
	free(k->v);
}

static int kept_add(void *arg, int parent_fd, const char *name, const char *rel_path, const struct stat *st,
		    cv_error_t *err)
{
	struct kept *k = arg;
	(void)parent_fd, (void)name, (void)st;
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		char **v = realloc(k->v, cap * sizeof(*v));
		if (!v)
			return cv_error(err, ENOMEM, "ignore rules");
		k->v = v;
		k->cap = cap;
	}
	if (!(k->v[k->n] = strdup(rel_path)))
		return cv_error(err, ENOMEM, "ignore rules");
	k->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool kept_skip(void *arg, const char *rel_path, bool is_dir)
{
	const struct kept *k = arg;
	(void)is_dir;
	return !bsearch(&rel_path, k->v, k->n, sizeof(*k->v), cmp_str);
}

int cv_keeper_archive_tree(int dirfd, int out_fd, enum cv_archive_format format, bool ignore, cv_error_t *err)
{
	if (!ignore)
		return cv_archive_write(dirfd, out_fd, format, NULL, NULL, err);
	__attribute__((cleanup(kept_release))) struct kept k = { 0 };
	if (cv_ignore_walk(dirfd, kept_add, &k, err) < 0)
		return -1;
	if (k.n)
		qsort(k.v, k.n, sizeof(*k.v), cmp_str);
	return cv_archive_write(dirfd, out_fd, format, kept_skip, &k, err);
}

/* ---- the agent ---- */

static int agent_error(cv_error_t *e)
{
	fprintf(stderr, "%s\n", *e && (*e)->msg ? (*e)->msg : "failed");
	int r = *e && (*e)->errnum > 0 && (*e)->errnum < 126 ? (*e)->errnum : EIO;
	cv_error_release(e);
	return r;
}

/* archive SRC FORMAT (ignore rules applied), archive-all SRC FORMAT (none):
 * the tree at SRC to stdout; extract DEST: stdin into DEST (made when
 * missing, where something is kept). */
static int agent_tree(const char *op, const char *path, const char *arg)
{
	cleanup_error cv_error_t e = NULL;
	if (strcmp(op, "extract") == 0) {
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return agent_fail(errno, "extract into", path);
		cleanup_free char *real = realpath(path, NULL);
		if (!real)
			return agent_fail(errno, "extract into", path);
		if (cv_keeper_not_kept(real)) {
			fprintf(stderr,
				"extract into `%s`: /proc, /sys, /dev, /run and /tmp are each run's own and not kept\n",
				path);
			return EXDEV;
		}
		cleanup_close int dir = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0)
			return agent_fail(errno, "extract into", path);
		if (cv_archive_extract(0, dir, NULL, &e) < 0) {
			cv_error_prefix(&e, "extract into `%s`", path);
			return agent_error(&e);
		}
		return 0;
	}
	enum cv_archive_format f;
	if (cv_archive_format_parse(arg, &f, &e) < 0)
		return agent_error(&e);
	cleanup_close int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return agent_fail(errno, "archive", path);
	if (cv_keeper_archive_tree(dir, 1, f, strcmp(op, "archive") == 0, &e) < 0) {
		cv_error_prefix(&e, "archive `%s`", path);
		return agent_error(&e);
	}
	return 0;
}

int cv_sandbox_agent(int argc, char **argv)
{
	bool tree = argc == 4 && (strcmp(argv[1], "archive") == 0 || strcmp(argv[1], "archive-all") == 0);
	tree |= argc == 3 && strcmp(argv[1], "extract") == 0;
	if (tree)
		return agent_tree(argv[1], argv[2], argv[3]);
	if (argc != 3 || (strcmp(argv[1], "read") != 0 && strcmp(argv[1], "write") != 0)) {
		fprintf(stderr, "usage: cvisor-agent read|write|extract PATH | archive|archive-all PATH FORMAT "
				"(run by libcvisor inside a sandbox)\n");
		return EINVAL;
	}
	const char *path = argv[2];
	if (strcmp(argv[1], "read") == 0) {
		/* O_NONBLOCK: a FIFO planted there must not hang the caller */
		cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		struct stat st;
		if (fd < 0)
			return agent_fail(errno, "read", path);
		if (fstat(fd, &st) < 0)
			return agent_fail(errno, "read", path);
		if (S_ISDIR(st.st_mode))
			return agent_fail(EISDIR, "read", path);
		if (!S_ISREG(st.st_mode))
			return agent_fail(EINVAL, "read (not a regular file)", path);
		if (fcntl(fd, F_SETFL, 0) < 0)
			return agent_fail(errno, "read", path);
		int r = copy_fd(fd, 1);
		return r < 0 ? agent_fail(-r, "read", path) : 0;
	}
	/* write: where the program would write it, but not into what the
	 * next run will not have */
	cleanup_free char *dir = strdup(path);
	if (!dir)
		return agent_fail(ENOMEM, "write", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	cleanup_free char *real = realpath(slash ? dir : ".", NULL);
	if (!real)
		return agent_fail(errno, "write", path);
	if (cv_keeper_not_kept(real)) {
		fprintf(stderr,
			"write `%s`: /proc, /sys, /dev, /run and /tmp are each run's own and not kept; write "
			"elsewhere (the workspace, " CV_SANDBOX_PERSISTENT_WORKSPACE ")\n",
			path);
		return EXDEV;
	}
	cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
	struct stat st;
	if (fd < 0)
		return agent_fail(errno, "write", path);
	if (fstat(fd, &st) < 0)
		return agent_fail(errno, "write", path);
	if (!S_ISREG(st.st_mode))
		return agent_fail(EINVAL, "write (not a regular file)", path);
	if (fcntl(fd, F_SETFL, 0) < 0)
		return agent_fail(errno, "write", path);
	int r = copy_fd(0, fd);
	if (r == 0 && close(steal_fd(&fd)) < 0)
		r = -errno;
	return r < 0 ? agent_fail(-r, "write", path) : 0;
}
