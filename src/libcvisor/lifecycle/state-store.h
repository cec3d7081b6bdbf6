/* The state store: one directory per container under the state root
 * (--root), mode 0700, holding state.json (written atomically) and a lock
 * file. Commands on one container serialize on its lock, whether they run
 * in different processes or in threads of one; different containers
 * proceed in parallel. */
#ifndef CVISOR_STATE_STORE_H
#define CVISOR_STATE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "oci/state.h"

/* Resolves the state root: `root` if given, else /run/cvisor for root or
 * $XDG_RUNTIME_DIR/cvisor otherwise. Result is malloc'd. */
int cv_store_root(const char *root, char **out, cv_error_t *err);

/* Letters, digits and _+-. ; not "." or ".."; 1..1024 bytes. Error message:
 * `invalid container id "x": ...`. */
int cv_store_validate_id(const char *id, cv_error_t *err);

struct cv_store_entry {
	char *root; /* state root */
	char *id;
	int dirfd;  /* O_PATH|O_DIRECTORY of <root>/<id> */
	int lockfd; /* write lock (F_OFD_SETLKW) held while the entry is open */
};
/* The lock is an open file description lock: each cv_store_create/open
 * takes its own, so two threads of one process exclude each other as two
 * processes do. A child that inherits lockfd (clone or fork without
 * execve) holds the lock with us until it closes its copy: the container
 * process closes it first thing. Ids longer than NAME_MAX (255) pass
 * cv_store_validate_id but cv_store_create refuses them with ENAMETOOLONG
 * (they cannot name a directory). */

/* Creates <root>/<id> (root made 0700 if missing), takes its lock. Fails with
 * EEXIST and `container "ID" already exists` when it exists. */
int cv_store_create(const char *root, const char *id, struct cv_store_entry **out, cv_error_t *err);
/* Opens and locks an existing container; ENOENT with
 * `container "ID" does not exist` otherwise. */
int cv_store_open(const char *root, const char *id, struct cv_store_entry **out, cv_error_t *err);
int cv_store_read_state(struct cv_store_entry *e, oci_state **out, cv_error_t *err);
/* Atomic: write state.json.tmp, fsync is not needed on tmpfs, rename. */
int cv_store_write_state(struct cv_store_entry *e, const oci_state *st, cv_error_t *err);
/* Removes the directory and everything in it, then releases the entry. */
int cv_store_remove(struct cv_store_entry *e, cv_error_t *err);
/* Removes <root>/<id> when it holds no state, as a create killed before
 * writing one leaves it; 0 when there is no such directory. Takes the lock
 * first, so a create still running is waited for, and fails with EEXIST
 * when that create then published its container. */
int cv_store_remove_stale(const char *root, const char *id, cv_error_t *err);
/* Ids of every container under root, sorted. */
int cv_store_list(const char *root, char ***ids, size_t *n, cv_error_t *err);
void cv_store_close(struct cv_store_entry *e);

static inline void cv_store_closep(struct cv_store_entry **e)
{
	cv_store_close(*e);
}
#define cleanup_store_entry __attribute__((cleanup(cv_store_closep)))

#endif
