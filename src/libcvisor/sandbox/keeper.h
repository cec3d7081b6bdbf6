/* The keeper: one process of the sealed cvisor binary per library sandbox
 * (CvisorSandbox, see cvisor.h), started by libcvisor through the helper's
 * spawn (lifecycle/helper.h), so that nothing of a sandbox runs in the
 * calling program's image (CVE-2019-5736).
 *
 * It owns the sandbox's persistent root: in a mount namespace of its own it
 * mounts a tmpfs (the upper layers; it lives only as long as a namespace
 * holds it, so nothing of it is ever on the host's disk) on the directory
 * `/run/cvisor-keepers/keeper-<pid>` and, in it, a copy-on-write overlay of
 * every mount of the host's root but /proc, /sys, /dev, /run and /tmp (each
 * run gets its own), assembled as one tree; a mount it cannot overlay
 * (a file bind, an unsupported filesystem) is bound read-only. The program's
 * own workspace, CV_SANDBOX_PERSISTENT_WORKSPACE, is made in the upper
 * layer, owned by the program's host identity. Each run is a child of the
 * keeper running cv_sandbox_do() with policy.persistent_root on that tree,
 * so runs see what earlier runs wrote, and two sandboxes (two keepers, two
 * namespaces) never see each other's. The keeper also keeps the
 * sandbox's network for network "outbound": a holder process's network
 * namespace given slirp4netns once, and its sysfs, which every run joins
 * (policy.netns_path) instead of starting slirp4netns itself.
 *
 * Protocol. Keeper -> library: the helper's report messages (process/sync.h:
 * READY, LOG, ERROR, EXIT) and CV_SYNC_KEEPER_READY once the root is
 * mounted. Library -> keeper: one SOCK_SEQPACKET message per run, a
 * struct cv_keeper_req header, then NUL-terminated strings: the policy (JSON,
 * sandbox/policy.h), the working directory inside ("" = the workspace) and
 * the program's arguments; with it, as SCM_RIGHTS, CV_KEEPER_NFDS fds: the
 * program's stdin, stdout and stderr, the read end of the run's kill pipe
 * (sandbox killed when it is readable or hung up: a kill, or the library's
 * process gone) and the write end of its result pipe. The result pipe
 * carries records (struct cv_keeper_rec + payload): LOG lines of the run,
 * then either ERROR (errno + message: the run could not be made) or REPORT
 * (the exit status + the report JSON of `cvisor do --report`); its EOF says
 * the run and everything it made are gone.
 *
 * The keeper ends when the library's end of the socket closes
 * (cvisor_sandbox_free(), or the calling process died, SIGKILL included):
 * it kills what still runs (each run's kill pipe has hung up already then),
 * waits for its runs, and its namespace, the overlay and the tmpfs go with
 * it; it removes the mount point directory last. A keeper killed by SIGKILL
 * leaves that empty directory, which `cvisor gc` removes. */
#ifndef CVISOR_KEEPER_H
#define CVISOR_KEEPER_H

#include <stdint.h>

#include <stdbool.h>

#include "cvisor.h"
#include "error.h"
#include "files/archive.h"

#define CV_KEEPER_NFDS 5
enum {
	CV_KEEPER_FD_STDIN,
	CV_KEEPER_FD_STDOUT,
	CV_KEEPER_FD_STDERR,
	CV_KEEPER_FD_KILL,
	CV_KEEPER_FD_RESULT
};

#define CV_KEEPER_REQ_RUN 1u
#define CV_KEEPER_REQ_MAX (1u << 20) /* bytes of one request */
#define CV_KEEPER_FLAG_PTY 1u        /* stdin is a terminal: the run's controlling one */
#define CV_KEEPER_FLAG_AGENT 2u      /* the library's own (files, caches): no run is prepared for it */

struct cv_keeper_req {
	uint32_t type;
	uint32_t flags;
	uint64_t timeout_ms; /* 0: the policy's */
	uint32_t nargs;
	uint32_t reserved;
};

enum {
	CV_KEEPER_REC_LOG = 1,
	CV_KEEPER_REC_ERROR,
	CV_KEEPER_REC_REPORT
};
struct cv_keeper_rec {
	uint32_t type;
	int32_t value; /* LOG: the level; ERROR: the errno; REPORT: the exit status */
	uint32_t len;  /* payload bytes that follow */
};
#define CV_KEEPER_REC_MAX (4u << 20)

/* Whether a path (resolved) lies where each run gets its own filesystem
 * (/proc, /sys, /dev, /run, /tmp): nothing written there is kept. */
bool cv_keeper_not_kept(const char *real);

/* An archive of the tree at DIRFD to OUT_FD; with IGNORE, without what its
 * .gitignore files and root .dockerignore exclude (files/ignore.h). */
int cv_keeper_archive_tree(int dirfd, int out_fd, enum cv_archive_format format, bool ignore, cv_error_t *err);

/* The keepers' mount points: for root CV_KEEPER_BASE_DIR/keeper-<pid>,
 * not under the state root: the runtime reaches the root's mounts as the
 * program's unprivileged identity, which must be able to pass every
 * directory above (a state root may be private, 0700); each directory
 * there is empty on the host. For another user, whose program runs as
 * that user, <state root>-keepers/keeper-<pid>. cvisor gc removes those of
 * dead keepers. */
#define CV_KEEPER_BASE_DIR "/run/cvisor-keepers"
#define CV_KEEPER_DIR_PREFIX "keeper-"
int cv_keeper_base_dir(const struct cvisor_context *ctx, char **out, cv_error_t *err);
/* Removes the mount point directories of dead keepers; counts them. */
void cv_keeper_gc(const struct cvisor_context *ctx, unsigned *removed);

/* The keeper's entry point is in cvisor-binary.h: cv_sandbox_keeper().
 * The agent (agent.c) is the program `cvisor-agent` (CVISOR_AGENT_NAME, in
 * CVISOR_LIBEXECDIR, or beside the helper in a build tree), run inside a
 * sandbox as the program of a run to move files in and out in the
 * program's own view (a symlink the program planted resolves where the
 * program would see it, a masked path stays masked): read PATH (to stdout),
 * write PATH (from stdin), extract DEST (a tar from stdin), archive SRC
 * FORMAT (the tree, its ignore rules applied, to stdout), archive-all SRC
 * FORMAT (all of it). It exits 0 or with the errno of its failure, its
 * message on stderr, and refuses to write where nothing is kept (EXDEV). */
#define CV_AGENT_NAME "cvisor-agent"
int cv_sandbox_agent(int argc, char **argv);

#endif
