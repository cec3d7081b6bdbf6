/* Unit tests for src/libcvisor/lifecycle/state-store.c: ids, the life of
 * an entry under a private root, and its lock excluding a second thread of
 * the same process. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "lifecycle/state-store.h"
#include "tap.h"

static bool id_ok(const char *id)
{
	cleanup_error cv_error_t e = NULL;
	return cv_store_validate_id(id, &e) == 0 && !e;
}

static bool id_refused(const char *id, const char *why)
{
	cleanup_error cv_error_t e = NULL;
	int r = cv_store_validate_id(id, &e);
	return r == -EINVAL && e && strstr(e->msg, "invalid container id") && strstr(e->msg, why);
}

static void ids(void)
{
	char max[1026];
	memset(max, 'a', 1024);
	max[1024] = '\0';
	ok(id_ok("a") && id_ok("A-b_c+d.e") && id_ok("0") && id_ok("..."), "letters, digits and _+-. are ids");
	ok(id_ok(max), "1024 bytes is an id");
	max[1024] = 'a';
	max[1025] = '\0';
	ok(id_refused(max, "longer than 1024 bytes"), "1025 bytes is not");
	ok(id_refused("", "must not be empty"), "empty");
	ok(id_refused(".", "must not be \".\" or \"..\"") && id_refused("..", "must not be"), ". and ..");
	ok(id_refused("a/b", "only letters, digits and _+-. are allowed"), "a slash");
	ok(id_refused("a b", "only letters") && id_refused("caf\xc3\xa9", "only letters") &&
		   id_refused("~new~x", "only"),
	   "a space, non-ASCII, ~ (the store's own temporary names)");
	ok(id_refused(NULL, "must not be empty"), "NULL");
}

static char root[PATH_MAX];

static bool exists(const char *name)
{
	char p[PATH_MAX * 2];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", root, name);
	return stat(p, &st) == 0;
}

static void life(void)
{
	cleanup_error cv_error_t e = NULL;
	struct cv_store_entry *a = NULL, *b = NULL;
	char **v = NULL;
	size_t n = 99;

	ok(cv_store_list(root, &v, &n, &e) == 0 && n == 0 && v && !v[0], "a root that does not exist lists nothing");
	free(v);
	ok(cv_store_create(root, "c1", &a, &e) == 0 && a && a->lockfd >= 0, "create c1 (making the root)");
	ok(exists("c1/lock"), "its directory and lock file exist");
	int r = cv_store_create(root, "c1", &b, &e);
	ok(r == -EEXIST && e && strcmp(e->msg, "container \"c1\" already exists") == 0, "a second create: `%s`",
	   e ? e->msg : "");
	cv_error_release(&e);

	oci_state st = { .oci_version = "1.3.0",
			 .id = "c1",
			 .status = "created",
			 .pid = 42,
			 .pid_start = 7,
			 .bundle = "/b",
			 .rootfs = "/b/rootfs",
			 .created = "2026-01-01T00:00:00Z",
			 .owner = "root" };
	ok(cv_store_write_state(a, &st, &e) == 0, "write the state");
	oci_state *got = NULL;
	ok(cv_store_read_state(a, &got, &e) == 0 && got && got->pid == 42 && got->pid_start == 7 &&
		   strcmp(got->status, "created") == 0 && strcmp(got->bundle, "/b") == 0,
	   "read it back");
	oci_state_free(got);
	ok(!exists("c1/state.json.tmp"), "no temporary state file left");

	char longid[300];
	memset(longid, 'x', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	ok(cv_store_create(root, longid, &b, &e) == -ENAMETOOLONG && e &&
		   strstr(e->msg, "the limit of a directory name"),
	   "a 299-byte id is an id but no directory name");
	cv_error_release(&e);
	ok(cv_store_create(root, "c2", &b, &e) == 0, "create c2");
	cv_store_close(b);
	b = NULL;
	/* what the store leaves half-made is not a container */
	char junk[PATH_MAX * 2];
	snprintf(junk, sizeof(junk), "%s/~new~abc", root);
	mkdir(junk, 0700);
	ok(cv_store_list(root, &v, &n, &e) == 0 && n == 2 && strcmp(v[0], "c1") == 0 && strcmp(v[1], "c2") == 0,
	   "list: c1 and c2, sorted, no temporary entry");
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
	rmdir(junk);

	ok(cv_store_remove(a, &e) == 0, "remove c1");
	a = NULL;
	ok(!exists("c1"), "its directory is gone");
	r = cv_store_open(root, "c1", &a, &e);
	ok(r == -ENOENT && e && strcmp(e->msg, "container \"c1\" does not exist") == 0, "open c1 now: `%s`",
	   e ? e->msg : "");
	cv_error_release(&e);
	ok(cv_store_open(root, "c2", &b, &e) == 0 && cv_store_remove(b, &e) == 0, "open and remove c2");
}

/* ---- the lock against a second thread ---- */

struct waiter {
	const char *id;
	atomic_int state; /* 0 not started, 1 about to open, 2 opened, 3 failed */
	int err;
	char msg[256];
	struct cv_store_entry *e;
};

static void *open_in_thread(void *arg)
{
	struct waiter *w = arg;
	cleanup_error cv_error_t e = NULL;
	atomic_store(&w->state, 1);
	int r = cv_store_open(root, w->id, &w->e, &e);
	w->err = -r;
	snprintf(w->msg, sizeof(w->msg), "%s", e ? e->msg : "");
	atomic_store(&w->state, r == 0 ? 2 : 3);
	return NULL;
}

/* Starts a thread opening id and waits until it is inside the open (or
 * done): then gives it time to get the lock, if it could. */
static void start_waiter(pthread_t *t, struct waiter *w)
{
	pthread_create(t, NULL, open_in_thread, w);
	while (atomic_load(&w->state) == 0)
		sched_yield();
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

static void lock(void)
{
	cleanup_error cv_error_t e = NULL;
	struct cv_store_entry *held = NULL;
	pthread_t t;

	if (!ok(cv_store_create(root, "locked", &held, &e) == 0, "create `locked`"))
		return;
	struct waiter w = { .id = "locked" };
	start_waiter(&t, &w);
	ok(atomic_load(&w.state) == 1, "a second thread opening it waits for the lock (state %d)",
	   atomic_load(&w.state));
	/* closing another fd of the lock file drops a process's record lock;
	 * this one belongs to its open file description */
	char p[PATH_MAX * 2];
	snprintf(p, sizeof(p), "%s/locked/lock", root);
	int other = open(p, O_RDWR | O_CLOEXEC);
	ok(other >= 0 && close(other) == 0, "open and close the lock file once more");
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	ok(atomic_load(&w.state) == 1, "the second thread still waits (state %d)", atomic_load(&w.state));
	cv_store_close(held);
	pthread_join(t, NULL);
	ok(atomic_load(&w.state) == 2 && w.e, "once the first closes the entry, the second has it");

	/* removed while a thread waits: the waiter finds it gone */
	struct waiter w2 = { .id = "locked" };
	start_waiter(&t, &w2);
	ok(atomic_load(&w2.state) == 1, "a third thread waits for the second");
	ok(cv_store_remove(w.e, &e) == 0, "the second removes it");
	pthread_join(t, NULL);
	ok(atomic_load(&w2.state) == 3 && w2.err == ENOENT &&
		   strcmp(w2.msg, "container \"locked\" does not exist") == 0,
	   "the third finds it gone: `%s`", w2.msg);
	cv_store_close(w2.e);
}

int main(void)
{
	char tmpl[] = "/tmp/cvisor-test-store-XXXXXX";
	if (!mkdtemp(tmpl))
		return 1;
	snprintf(root, sizeof(root), "%s/root/nested", tmpl);

	ids();
	life();
	lock();

	cleanup_error cv_error_t e = NULL;
	char *r = NULL;
	ok(cv_store_root("/x", &r, &e) == 0 && strcmp(r, "/x") == 0, "an explicit root is taken as is");
	free(r);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", tmpl);
	return tap_done();
}
