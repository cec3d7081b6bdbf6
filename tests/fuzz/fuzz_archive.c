/* libFuzzer target: archive extraction (cv_archive_extract), the input a
 * cache restore takes from a backend. Each input is extracted into a fresh
 * directory WORK/box/t, removed afterwards. Besides memory errors it checks
 * that nothing ever appears beside t in WORK/box (an entry that escaped
 * the target) and that a failure has a message. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/archive.h"
#include "io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char box[PATH_MAX], target[PATH_MAX];
static int input = -1;

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_DP || type == FTW_D)
		(void)chmod(path, 0700); /* an extracted 0000 directory */
	if (remove(path) < 0)
		abort();
	return 0;
}

static void cleanup_work(void)
{
	if (box[0])
		(void)nftw(box, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void)
{
	char tmpl[] = "/tmp/fuzz_archive.XXXXXX";
	if (!mkdtemp(tmpl))
		abort();
	snprintf(box, sizeof(box), "%s", tmpl);
	snprintf(target, sizeof(target), "%s/t", tmpl);
	atexit(cleanup_work);
	if ((input = memfd_create("fuzz_archive", MFD_CLOEXEC)) < 0)
		abort();
}

/* The box holds t and nothing else. */
static void check_box(void)
{
	DIR *d = opendir(box);
	struct dirent *de;
	if (!d)
		abort();
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "t")) {
			fprintf(stderr, "fuzz_archive: `%s` escaped the target\n", de->d_name);
			abort();
		}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (input < 0)
		setup();
	if (ftruncate(input, 0) < 0 || cv_write_all(input, data, size) < 0 || lseek(input, 0, SEEK_SET) < 0)
		abort();
	if (mkdir(target, 0700) < 0)
		abort();
	int dfd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		abort();
	/* small limits: iterations stay fast, and the limits are exercised */
	struct cv_archive_limits lim = { .max_bytes = 1 << 20, .max_entries = 256, .max_path = 512 };
	cv_error_t err = NULL;
	if (cv_archive_extract(input, dfd, &lim, &err) < 0 && (!err || !err->msg || !*err->msg))
		abort();
	cv_error_release(&err);
	close(dfd);
	check_box();
	if (nftw(target, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		abort();
	return 0;
}
