/* ignore-list: prints what cv_ignore_walk() keeps of a tree, for
 * ignore.bats to compare with git. Usage:
 *   ignore-list [-0] [--skip NAME] DIR
 * One path a line (NUL-terminated with -0), relative to DIR, a directory
 * with a trailing `/`, in the walk's order. --skip NAME answers
 * CV_IGNORE_WALK_SKIP for directories named NAME. Exit 1 with the error
 * on stderr when the walk fails. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "files/ignore.h"

struct opts {
	char sep;
	const char *skip;
};

static int print_entry(void *arg, int parent_fd, const char *name, const char *rel_path, const struct stat *st,
		       cv_error_t *err)
{
	const struct opts *o = arg;
	struct stat again;

	/* the walk's fd and name must name the entry it describes */
	if (fstatat(parent_fd, name, &again, AT_SYMLINK_NOFOLLOW) < 0 || again.st_ino != st->st_ino)
		return cv_error_plain(err, EIO, "`%s`: parent fd and name do not lead to the entry", rel_path);
	printf("%s%s%c", rel_path, S_ISDIR(st->st_mode) ? "/" : "", o->sep);
	if (S_ISDIR(st->st_mode) && o->skip && strcmp(name, o->skip) == 0)
		return CV_IGNORE_WALK_SKIP;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .sep = '\n' };
	cv_error_t err = NULL;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-0") == 0)
			o.sep = '\0';
		else if (strcmp(argv[i], "--skip") == 0 && i + 1 < argc)
			o.skip = argv[++i];
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: ignore-list [-0] [--skip NAME] DIR\n");
		return 2;
	}
	cleanup_close int fd = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[i]);
		return 1;
	}
	if (cv_ignore_walk(fd, print_entry, &o, &err) < 0) {
		fflush(stdout);
		fprintf(stderr, "ignore-list: %s\n", err->msg);
		cv_error_release(&err);
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
