/* Unit tests for src/libcvisor/sandbox/watcher.c: a watcher told "done"
 * exits; one whose supervisor is gone (its pipe ends without the byte)
 * executes its ARGV with only the fds it was not told to close; and the
 * memory of a reaped watcher serves the next one, laid out afresh. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "sandbox/watcher.h"
#include "tap.h"

static char dir[] = "/tmp/cvisor-test-watcher-XXXXXX";

/* Whether the listing of /proc/self/fd in FILE names fd N. */
static bool listed(const char *file, int n)
{
	char line[32], want[16];
	snprintf(want, sizeof(want), "%d\n", n);
	cleanup_fclose FILE *f = fopen(file, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strcmp(line, want) == 0)
			return true;
	return false;
}

/* A watcher whose supervisor "dies" (our end of its pipe closed without
 * the byte): it lists its fds into OUT through sh, told to close DROP.
 * Returns its memory, once it is reaped. */
static void *orphaned(const char *out, int drop, size_t *size)
{
	char script[256];
	snprintf(script, sizeof(script), "ls /proc/self/fd >%s", out);
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct cv_watcher w = CV_WATCHER_INIT;
	cleanup_error cv_error_t e = NULL;
	if (!ok(cv_watcher_start(&w, argv, &drop, 1, &e) == 0, "watcher started (%s)", e ? e->msg : ""))
		return NULL;
	void *mem = w.mem;
	*size = w.mem_size;
	close(w.wfd);
	w.wfd = -1;
	cv_watcher_release(&w);
	ok(w.pid == -1 && w.mem == NULL, "reaped, its memory released");
	return mem;
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char out1[128], out2[128];
	snprintf(out1, sizeof(out1), "%s/one", dir);
	snprintf(out2, sizeof(out2), "%s/two", dir);

	/* told "done": it exits without executing anything */
	char ran[128], touch[160];
	snprintf(ran, sizeof(ran), "%s/ran", dir);
	snprintf(touch, sizeof(touch), "touch %s", ran);
	char *never[] = { "/bin/sh", "-c", touch, NULL };
	struct cv_watcher w = CV_WATCHER_INIT;
	cleanup_error cv_error_t e = NULL;
	ok(cv_watcher_start(&w, never, NULL, 0, &e) == 0, "a watcher starts");
	cv_watcher_done(&w);
	cv_watcher_release(&w);
	ok(w.pid == -1, "told done, it is reaped");
	ok(access(ran, F_OK) < 0, "and its ARGV never ran");

	/* two fds that an exec would inherit (no O_CLOEXEC), numbered above
	 * what ls opens for its listing */
	int p[2];
	if (pipe(p) < 0 || dup2(p[0], 40) < 0 || dup2(p[1], 41) < 0) {
		perror("pipe");
		return 1;
	}
	close(p[0]);
	close(p[1]);
	p[0] = 40;
	p[1] = 41;
	size_t size1 = 0, size2 = 0;
	void *m1 = orphaned(out1, p[0], &size1);
	ok(!listed(out1, p[0]), "the fd it was told to close is closed before its ARGV runs");
	ok(listed(out1, p[1]), "the other one is inherited (the listing is real)");

	/* had it been unmapped, this mapping would take its place */
	void *probe = mmap(NULL, size1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	void *m2 = orphaned(out2, p[1], &size2);
	ok(m1 && m1 == m2 && size1 == size2 && probe != m1,
	   "the next watcher runs on the memory of the one reaped before it");
	if (probe != MAP_FAILED)
		munmap(probe, size1);
	ok(!listed(out2, p[1]), "it closes the fd it was told to close");
	ok(listed(out2, p[0]), "and only that one: nothing is left of the last watcher's list");

	close(p[0]);
	close(p[1]);
	unlink(out1);
	unlink(out2);
	rmdir(dir);
	return tap_done();
}
