/* The container record (state.json under --root) and the runtime-spec state
 * document. The record is read back by every later command, and may have
 * been damaged or tampered with, so it goes through the same checked reader
 * as config.json. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json.h"
#include "state.h"

static int read_pid(jr_ctx *c, const jt_node *n, int *pid)
{
	int64_t v;
	int r = jr_int_range(c, n, 0, 4194304, &v); /* PID_MAX_LIMIT */
	if (r == 0)
		*pid = (int)v;
	return r;
}

static int parse_state_obj(jr_ctx *c, const jt_node *n, oci_state *st)
{
	int r = jr_object(c, n);
	if (r < 0)
		return r;
	JR_REQ(c, n, "ociVersion", jr_string, &st->oci_version);
	JR_REQ(c, n, "id", jr_string, &st->id);
	JR_REQ(c, n, "status", jr_string, &st->status);
	JR_OPT(c, n, "pid", read_pid, &st->pid);
	JR_OPT(c, n, "pidStart", jr_u64, &st->pid_start);
	JR_REQ(c, n, "bundle", jr_string, &st->bundle);
	JR_OPT(c, n, "rootfs", jr_string, &st->rootfs);
	JR_OPT(c, n, "created", jr_string, &st->created);
	JR_OPT(c, n, "owner", jr_string, &st->owner);
	JR_OPT(c, n, "cgroupPath", jr_string, &st->cgroup_path);
	JR_OPT(c, n, "cgroupPaths", jr_kv_map, &st->cgroup_paths);
	JR_OPT(c, n, "systemdCgroup", jr_bool, &st->systemd_cgroup);
	JR_OPT(c, n, "rootless", jr_bool, &st->rootless);
	JR_OPT(c, n, "noPivot", jr_bool, &st->no_pivot);
	JR_OPT(c, n, "noNewKeyring", jr_bool, &st->no_new_keyring);
	JR_OPT(c, n, "annotations", jr_kv_map, &st->annotations);
	JR_OPT(c, n, "extra", jr_kv_map, &st->extra);
	return 0;
}

int oci_state_parse(const char *data, size_t len, const char *name, oci_state **out, cv_error_t *err)
{
	cleanup_jt jt_doc *doc = NULL;
	int r = jt_parse(data, len, name, &doc, err);
	if (r < 0)
		return r;
	cleanup_state oci_state *st = calloc(1, sizeof(*st));
	if (!st)
		return cv_error(err, ENOMEM, "%s", name);
	jr_ctx c;
	jr_init(&c, name, NULL, err);
	r = parse_state_obj(&c, jt_root(doc), st);
	if (r < 0)
		return r;
	*out = steal_pointer(&st);
	return 0;
}

static void emit_bool_if(jw *w, const char *key, bool v)
{
	if (!v)
		return;
	jw_key(w, key);
	jw_bool(w, true);
}

int oci_state_emit(const oci_state *st, char **out, size_t *out_len, cv_error_t *err)
{
	jw w;
	int r = jw_init(&w, false, err);
	if (r < 0)
		return r;
	jw_open(&w);
	jw_kstr(&w, "ociVersion", st->oci_version);
	jw_kstr(&w, "id", st->id);
	jw_kstr(&w, "status", st->status);
	jw_key(&w, "pid");
	jw_i64(&w, st->pid);
	if (st->pid_start) {
		jw_key(&w, "pidStart");
		jw_u64(&w, st->pid_start);
	}
	jw_kstr(&w, "bundle", st->bundle);
	jw_kstr(&w, "rootfs", st->rootfs);
	jw_kstr(&w, "created", st->created);
	jw_kstr(&w, "owner", st->owner);
	jw_kstr(&w, "cgroupPath", st->cgroup_path);
	jw_kkv(&w, "cgroupPaths", &st->cgroup_paths);
	emit_bool_if(&w, "systemdCgroup", st->systemd_cgroup);
	emit_bool_if(&w, "rootless", st->rootless);
	emit_bool_if(&w, "noPivot", st->no_pivot);
	emit_bool_if(&w, "noNewKeyring", st->no_new_keyring);
	jw_kkv(&w, "annotations", &st->annotations);
	jw_kkv(&w, "extra", &st->extra);
	jw_close(&w);
	r = jw_finish(&w, out, out_len, err);
	jw_release(&w);
	return r;
}

/* As runc prints it: pid is always present (0 once stopped), and runc's
 * rootfs, created and owner follow the spec's properties. */
int oci_state_emit_public(const oci_state *st, bool pretty, char **out, size_t *out_len, cv_error_t *err)
{
	jw w;
	int r = jw_init(&w, pretty, err);
	if (r < 0)
		return r;
	jw_open(&w);
	jw_kstr(&w, "ociVersion", st->oci_version);
	jw_kstr(&w, "id", st->id);
	jw_key(&w, "pid");
	jw_i64(&w, st->pid);
	jw_kstr(&w, "status", st->status);
	jw_kstr(&w, "bundle", st->bundle);
	jw_kstr(&w, "rootfs", st->rootfs);
	jw_kstr(&w, "created", st->created);
	jw_kstr(&w, "owner", st->owner);
	jw_kkv(&w, "annotations", &st->annotations);
	jw_close(&w);
	r = jw_finish(&w, out, out_len, err);
	jw_release(&w);
	return r;
}

int oci_seccomp_agent_message(int pid, const char *metadata, const char *state_json, char **out, size_t *out_len,
			      cv_error_t *err)
{
	static const char member[] = ",\"state\":";
	cleanup_free char *head = NULL;
	size_t hlen, slen = strlen(state_json);
	jw w;
	int r = jw_init(&w, false, err);
	if (r < 0)
		return r;
	jw_open(&w);
	jw_kstr(&w, "ociVersion", OCI_VERSION);
	jw_key(&w, "fds");
	jw_aopen(&w);
	jw_str(&w, "seccompFd");
	jw_aclose(&w);
	jw_key(&w, "pid");
	jw_i64(&w, pid);
	jw_kstr(&w, "metadata", metadata ? metadata : "");
	jw_close(&w);
	r = jw_finish(&w, &head, &hlen, err);
	jw_release(&w);
	if (r < 0)
		return r;
	/* the state is JSON already: spliced in before the closing brace */
	char *msg = malloc(hlen - 1 + sizeof(member) - 1 + slen + 2);
	if (!msg)
		return cv_error(err, ENOMEM, "seccomp agent message");
	size_t n = hlen - 1;
	memcpy(msg, head, n);
	memcpy(msg + n, member, sizeof(member) - 1);
	n += sizeof(member) - 1;
	memcpy(msg + n, state_json, slen);
	n += slen;
	memcpy(msg + n, "}", 2);
	*out = msg;
	*out_len = n + 1;
	return 0;
}

void oci_state_free(oci_state *st)
{
	if (!st)
		return;
	free(st->oci_version);
	free(st->id);
	free(st->status);
	free(st->bundle);
	free(st->rootfs);
	free(st->created);
	free(st->owner);
	free(st->cgroup_path);
	oci_kv_list_clear(&st->cgroup_paths);
	oci_kv_list_clear(&st->annotations);
	oci_kv_list_clear(&st->extra);
	free(st);
}
