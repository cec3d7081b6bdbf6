/* Public API entry points of the container lifecycle. Each verb loads the
 * container record, checks the live status, and calls the module doing the
 * work (create.c, exec.c, cgroups, hooks). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "cvisor.h"
#include "lifecycle/abi.h"
#include "lifecycle/create.h"
#include "lifecycle/status.h"
#include "log.h"

/* The container record: loaded locked from the state store. */
int cv_context_root(const struct cvisor_context *ctx, char **out, cv_error_t *err)
{
	/* every call reads its context here first: its struct_size is checked
	 * here (create, run and exec check it before, in entry.c) */
	struct cvisor_context c;
	int r = cv_abi_context(ctx, &c, err);
	if (r < 0)
		return r;
	return cv_store_root(c.state_root, out, err);
}

int cv_container_load(const struct cvisor_context *ctx, const char *id, struct cv_container **out, cv_error_t *err)
{
	cleanup_container struct cv_container *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return cv_error(err, ENOMEM, "load container");
	r = cv_store_validate_id(id, err);
	if (r < 0)
		return r;
	r = cv_context_root(ctx, &c->root, err);
	if (r < 0)
		return r;
	r = cv_store_open(c->root, id, &c->entry, err);
	if (r < 0)
		return r;
	r = cv_store_read_state(c->entry, &c->state, err);
	if (r < 0)
		return r;
	*out = steal_pointer(&c);
	return 0;
}

int cv_container_cgroup(struct cv_container *c, struct cv_cgroup **out, cv_error_t *err)
{
	if (!c->cg) {
		int r = cv_cgroup_load(&c->state->cgroup_paths, &c->cg, err);
		if (r < 0)
			return cv_error_prefix(err, "container \"%s\": load cgroup", c->state->id);
	}
	*out = c->cg;
	return 0;
}

void cv_container_free(struct cv_container *c)
{
	if (!c)
		return;
	cv_cgroup_free(c->cg);
	oci_state_free(c->state);
	cv_store_close(c->entry);
	free(c->root);
	free(c);
}

/* The public accessors of base's error objects and log sink. */
const char *cvisor_error_message(const struct cv_error_s *err)
{
	return err && err->msg ? err->msg : "unknown error";
}

int cvisor_error_errno(const struct cv_error_s *err)
{
	return err ? err->errnum : 0;
}

void cvisor_error_free(struct cv_error_s *err)
{
	cv_error_release(&err);
}

const char *cvisor_version(void)
{
	return PACKAGE_VERSION;
}

void cvisor_free(void *ptr)
{
	free(ptr);
}

/* base's sink has the public callback's type, and the same levels. */
_Static_assert((int)CVISOR_LOG_ERROR == (int)CV_LOG_ERROR && (int)CVISOR_LOG_WARNING == (int)CV_LOG_WARNING &&
		       (int)CVISOR_LOG_INFO == (int)CV_LOG_INFO && (int)CVISOR_LOG_DEBUG == (int)CV_LOG_DEBUG,
	       "public and internal log levels differ");
void cvisor_set_log_sink(cvisor_log_fn sink, void *userdata, int max_level)
{
	cv_log_set_sink(sink, userdata, max_level);
}

int cvisor_state_json(const struct cvisor_context *ctx, const char *id, char **json, cvisor_error **err)
{
	cleanup_container struct cv_container *c = NULL;
	const char *status;
	size_t len;
	int r;

	r = cv_container_load(ctx, id, &c, err);
	if (r < 0)
		return r;
	r = cv_container_status(c, &status, err);
	if (r < 0)
		return r;
	char *dup = strdup(status);
	if (!dup)
		return cv_error(err, ENOMEM, "state");
	free(c->state->status);
	c->state->status = dup;
	if (strcmp(status, "stopped") == 0)
		c->state->pid = 0;
	return oci_state_emit_public(c->state, true, json, &len, err);
}

void cvisor_container_info_free(struct cvisor_container_info *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].status);
		free(v[i].bundle);
		free(v[i].created);
		free(v[i].owner);
	}
	free(v);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

int cvisor_list(const struct cvisor_context *ctx, struct cvisor_container_info **out, size_t *n, cvisor_error **err)
{
	cleanup_free char *root = NULL;
	char **ids = NULL;
	size_t nids = 0, count = 0;
	struct cvisor_container_info *v = NULL;
	int r;

	r = cv_context_root(ctx, &root, err);
	if (r < 0)
		return r;
	r = cv_store_list(root, &ids, &nids, err);
	if (r < 0)
		return r;
	v = calloc(nids ? nids : 1, sizeof(*v));
	if (!v) {
		r = cv_error(err, ENOMEM, "list");
		goto out;
	}
	for (size_t i = 0; i < nids; i++) {
		cleanup_container struct cv_container *c = NULL;
		cleanup_error cv_error_t e = NULL;
		const char *status;

		/* A container deleted meanwhile, or one whose record cannot be
		 * read, is skipped as runc does: it is not listable. */
		if (cv_container_load(ctx, ids[i], &c, &e) < 0)
			continue;
		if (cv_container_status(c, &status, &e) < 0)
			status = c->state->status ? c->state->status : "unknown";
		struct cvisor_container_info *ci = &v[count];
		ci->id = strdup(ids[i]);
		ci->pid = strcmp(status, "stopped") == 0 ? 0 : c->state->pid;
		ci->status = strdup(status);
		ci->bundle = dup_or_empty(c->state->bundle);
		ci->created = dup_or_empty(c->state->created);
		ci->owner = dup_or_empty(c->state->owner);
		count++;
		if (!ci->id || !ci->status || !ci->bundle || !ci->created || !ci->owner) {
			r = cv_error(err, ENOMEM, "list");
			goto out;
		}
	}
	*out = steal_pointer(&v);
	*n = count;
	r = 0;
out:
	cvisor_container_info_free(v, count);
	for (size_t i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	return r;
}

int cvisor_list_json(const struct cvisor_context *ctx, char **json, cvisor_error **err)
{
	struct cvisor_container_info *v = NULL;
	cleanup_free char *buf = NULL;
	size_t n = 0, len = 0;
	bool first = true;
	int r;

	if ((r = cvisor_list(ctx, &v, &n, err)) < 0)
		return r;
	FILE *out = open_memstream(&buf, &len);
	if (!out) {
		cvisor_container_info_free(v, n);
		return cv_error_errno(err, "list");
	}
	fputc('[', out);
	for (size_t i = 0; i < n && r == 0; i++) {
		cleanup_free char *state = NULL;
		cleanup_error cv_error_t e = NULL;
		/* a container deleted since it was listed is left out */
		if ((r = cvisor_state_json(ctx, v[i].id, &state, &e)) == -ENOENT) {
			r = 0;
			continue;
		}
		if (r < 0) {
			cv_error_move(err, &e);
			break;
		}
		size_t slen = strlen(state);
		while (slen && state[slen - 1] == '\n')
			slen--;
		fprintf(out, "%s%.*s", first ? "" : ",", (int)slen, state);
		first = false;
	}
	fputc(']', out);
	cvisor_container_info_free(v, n);
	if (fclose(out) != 0 && r == 0)
		r = cv_error_errno(err, "list");
	if (r < 0)
		return r;
	*json = steal_pointer(&buf);
	return 0;
}

/* Loads the container and its live status in one go. */
static int load_with_status(const struct cvisor_context *ctx, const char *id, struct cv_container **out,
			    const char **status, cv_error_t *err)
{
	cleanup_container struct cv_container *c = NULL;
	int r = cv_container_load(ctx, id, &c, err);
	if (r < 0)
		return r;
	r = cv_container_status(c, status, err);
	if (r < 0)
		return r;
	*out = steal_pointer(&c);
	return 0;
}

int cvisor_kill(const struct cvisor_context *ctx, const char *id, int signal, bool all, cvisor_error **err)
{
	cleanup_container struct cv_container *c = NULL;
	cleanup_close int pidfd = -1;
	const char *status;
	int r;

	if (signal <= 0 || signal >= 65)
		return cv_error(err, EINVAL, "invalid signal %d", signal);
	r = load_with_status(ctx, id, &c, &status, err);
	if (r < 0)
		return r;
	if (all) {
		struct cv_cgroup *cg = NULL;
		if (!c->state->cgroup_paths.len)
			return cv_error(err, ENOENT, "container \"%s\" has no cgroup to signal", id);
		r = cv_container_cgroup(c, &cg, err);
		if (r < 0)
			return r;
		return cv_cgroup_kill(cg, signal, err);
	}
	if (strcmp(status, "stopped") == 0)
		return cv_error_plain(err, ESRCH, "container not running");
	r = cv_pidfd_open_verified(c->state->pid, c->state->pid_start, &pidfd, err);
	if (r == -ESRCH)
		return cv_error_plain(err, ESRCH, "container not running");
	if (r < 0)
		return r;
	if (syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0) < 0) {
		if (errno == ESRCH)
			return cv_error_plain(err, ESRCH, "no such process");
		return cv_error_errno(err, "kill container \"%s\" with signal %d", id, signal);
	}
	return 0;
}

int cvisor_delete(const struct cvisor_context *ctx, const char *id, bool force, cvisor_error **err)
{
	cleanup_container struct cv_container *c = NULL;
	const char *status;
	int r;

	r = load_with_status(ctx, id, &c, &status, err);
	/* delete --force of a container that does not exist succeeds, as
	 * runc's: engines call it on cleanup paths. */
	if (r == -ENOENT && force) {
		cleanup_free char *root = NULL;
		cv_error_release(err);
		if ((r = cv_context_root(ctx, &root, err)) < 0)
			return r;
		return cv_store_remove_stale(root, id, err);
	}
	if (r < 0)
		return r;
	/* A created container never ran user code: delete kills it, as runc. */
	if (strcmp(status, "stopped") != 0) {
		if (!force && strcmp(status, "created") != 0)
			return cv_error_plain(err, EBUSY, "cannot delete container %s that is not stopped: %s", id,
					      status);
		r = cv_container_kill_wait(c, err);
		if (r < 0)
			return cv_error_prefix(err, "delete");
	}
	return cv_container_destroy(c, NULL, err);
}

int cvisor_pause(const struct cvisor_context *ctx, const char *id, cvisor_error **err)
{
	cleanup_container struct cv_container *c = NULL;
	struct cv_cgroup *cg = NULL;
	const char *status;
	int r = load_with_status(ctx, id, &c, &status, err);
	if (r < 0)
		return r;
	if (strcmp(status, "running") != 0 && strcmp(status, "created") != 0)
		return cv_error_plain(err, EINVAL, "container not running");
	if ((r = cv_container_cgroup(c, &cg, err)) < 0)
		return r;
	return cv_cgroup_freeze(cg, true, err);
}

int cvisor_resume(const struct cvisor_context *ctx, const char *id, cvisor_error **err)
{
	cleanup_container struct cv_container *c = NULL;
	struct cv_cgroup *cg = NULL;
	const char *status;
	int r = load_with_status(ctx, id, &c, &status, err);
	if (r < 0)
		return r;
	if (strcmp(status, "paused") != 0)
		return cv_error_plain(err, EINVAL, "container not paused");
	if ((r = cv_container_cgroup(c, &cg, err)) < 0)
		return r;
	return cv_cgroup_freeze(cg, false, err);
}

int cvisor_pids(const struct cvisor_context *ctx, const char *id, pid_t **pids, size_t *n, cvisor_error **err)
{
	cleanup_container struct cv_container *c = NULL;
	struct cv_cgroup *cg = NULL;
	int r = cv_container_load(ctx, id, &c, err);
	if (r < 0)
		return r;
	if (!c->state->cgroup_paths.len) {
		*pids = NULL;
		*n = 0;
		return 0;
	}
	if ((r = cv_container_cgroup(c, &cg, err)) < 0)
		return r;
	return cv_cgroup_pids(cg, pids, n, err);
}
