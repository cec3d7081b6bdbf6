/* Cache of compiled seccomp programs.
 *
 * Compiling a large profile (podman's default: ~440 names) costs about as much
 * as the rest of `run`, and the result depends only on the profile, the
 * libseccomp version and the kernel. Entries live in a 0700 directory owned by
 * us; each file holds a header, the full canonical key and the program. The
 * file name is only a 64-bit hash of the key: a lookup compares the whole key,
 * so a hash collision (even a crafted one) is a miss, never a wrong filter. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <seccomp.h>

#include "cleanup.h"
#include "io.h"
#include "log.h"
#include "seccomp/seccomp-internal.h"
#include "seccomp/seccomp-filter.h"

#define CACHE_MAGIC "CVSECBPF"
#define CACHE_FORMAT 1
#define CACHE_MAX_KEY (4u << 20)

struct cache_header {
	char magic[8];
	uint32_t format;
	uint32_t key_len;
	uint32_t flags;
	uint32_t has_notify;
	uint32_t insns;
	uint32_t reserved;
};

/* The setting is process-wide and may change while another thread uses
 * it: read and written under the lock, used as a copy. */
static pthread_mutex_t cache_dir_lock = PTHREAD_MUTEX_INITIALIZER;
static char *cache_dir_override;
static bool cache_dir_set;

int cv_seccomp_set_cache_dir(const char *dir)
{
	char *copy = NULL;

	if (dir && (copy = strdup(dir)) == NULL)
		return -ENOMEM;
	pthread_mutex_lock(&cache_dir_lock);
	free(cache_dir_override);
	cache_dir_override = copy;
	cache_dir_set = true;
	pthread_mutex_unlock(&cache_dir_lock);
	return 0;
}

/* Explicit setting, else $CVISOR_SECCOMP_CACHE ("" disables), else
 * /run/cvisor/seccomp-cache for root; none otherwise (or out of memory:
 * the cache is only an optimisation). malloc'd. */
static char *cache_dir(void)
{
	const char *env, *dir;
	char *copy;

	pthread_mutex_lock(&cache_dir_lock);
	if (cache_dir_set)
		dir = cache_dir_override && cache_dir_override[0] ? cache_dir_override : NULL;
	else if ((env = getenv("CVISOR_SECCOMP_CACHE")))
		dir = env[0] ? env : NULL;
	else
		dir = geteuid() == 0 ? "/run/cvisor/seccomp-cache" : NULL;
	copy = dir ? strdup(dir) : NULL;
	pthread_mutex_unlock(&cache_dir_lock);
	return copy;
}

/* ---- canonical key ---- */
struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const void *data, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		char *np;
		while (cap < b->len + n)
			cap *= 2;
		if (cap > CACHE_MAX_KEY || (np = realloc(b->p, cap)) == NULL) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* TAG, then V in decimal and END, or "-" when unset. By hand: a profile
 * has hundreds of fields and a key is made on every run (snprintf took
 * ~0.1 ms of a `cvisor do` here). */
static void put_tagged(struct buf *b, char tag, bool set, uint64_t v, char end)
{
	char s[24], *p = s + sizeof(s);
	if (set) {
		*--p = end;
		do
			*--p = (char)('0' + v % 10);
		while (v /= 10);
	} else {
		*--p = '-';
	}
	*--p = tag;
	put(b, p, (size_t)(s + sizeof(s) - p));
}

/* Tagged, length-prefixed fields: no two different profiles serialize alike. */
static void put_str(struct buf *b, char tag, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	put_tagged(b, tag, s != NULL, len, ':');
	if (s)
		put(b, s, len);
}

static void put_u64(struct buf *b, char tag, bool set, uint64_t v)
{
	put_tagged(b, tag, set, v, ';');
}

static void put_strv(struct buf *b, char tag, const oci_strv *v)
{
	put_u64(b, tag, true, v->len);
	for (size_t i = 0; i < v->len; i++)
		put_str(b, 's', v->v[i]);
}

int cv_seccomp_cache_key(const oci_seccomp *p, char **out, size_t *out_len)
{
	const struct scmp_version *ver = seccomp_version();
	struct buf b = { 0 };
	struct utsname u;
	char env[256];

	if (uname(&u) < 0)
		return -errno;
	/* not libseccomp's API level: what it reflects (the kernel's seccomp
	 * features) the kernel's release and build string already pin, and
	 * probing it costs ten seccomp() calls on every run */
	snprintf(env, sizeof(env), "cvisor %s fmt %d libseccomp %u.%u.%u kernel %s %s %s", PACKAGE_VERSION,
		 CACHE_FORMAT, ver->major, ver->minor, ver->micro, u.release, u.version, u.machine);
	put_str(&b, 'E', env);
	put_str(&b, 'D', p->default_action);
	put_u64(&b, 'e', p->default_errno_ret.set, p->default_errno_ret.v);
	put_strv(&b, 'A', &p->architectures);
	put_strv(&b, 'F', &p->flags);
	put_u64(&b, 'S', true, p->syscalls_len);
	for (size_t i = 0; i < p->syscalls_len; i++) {
		const oci_seccomp_syscall *sc = &p->syscalls[i];
		put_strv(&b, 'N', &sc->names);
		put_str(&b, 'a', sc->action);
		put_u64(&b, 'r', sc->errno_ret.set, sc->errno_ret.v);
		put_u64(&b, 'G', true, sc->args_len);
		for (size_t j = 0; j < sc->args_len; j++) {
			const oci_seccomp_arg *a = &sc->args[j];
			put_u64(&b, 'i', true, a->index);
			put_u64(&b, 'v', true, a->value);
			put_u64(&b, 'w', a->value_two.set, a->value_two.v);
			put_str(&b, 'o', a->op);
		}
	}
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	*out = b.p;
	*out_len = b.len;
	return 0;
}

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Opens DIR (creating it 0700) and checks it is a real directory owned by us
 * and writable by nobody else: otherwise its entries cannot be trusted. */
static int open_cache_dir(const char *dir, bool create)
{
	cleanup_close int fd = -1;
	struct stat st;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		/* the parent (/run/cvisor) may be missing too */
		cleanup_free char *parent = strdup(dir);
		char *slash = parent ? strrchr(parent, '/') : NULL;
		if (slash && slash != parent) {
			*slash = '\0';
			if (mkdir(parent, 0700) < 0 && errno != EEXIST)
				return -errno;
		}
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != geteuid() || (st.st_mode & 0077) != 0) {
		cv_debug("seccomp cache `%s`: not private to uid %u (mode %o, owner %u), not used", dir,
			 (unsigned)geteuid(), (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
		return -EPERM;
	}
	return steal_fd(&fd);
}

int cv_seccomp_cache_lookup(const char *key, size_t key_len, struct cv_seccomp *f)
{
	cleanup_free char *dir = cache_dir();
	cleanup_close int dfd = -1, fd = -1;
	cleanup_free char *data = NULL;
	cleanup_free struct sock_filter *insns = NULL;
	cleanup_error cv_error_t e = NULL;
	struct cache_header h;
	struct stat st;
	char name[32];
	size_t len;

	if (dir == NULL)
		return -ENOENT;
	dfd = open_cache_dir(dir, false);
	if (dfd < 0)
		return dfd;
	snprintf(name, sizeof(name), "%016" PRIx64 ".bpf", fnv1a(key, key_len));
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0077) != 0)
		return -EPERM;
	if (cv_read_fd(fd, name, sizeof(h) + key_len + BPF_MAXINSNS * sizeof(struct sock_filter), &data, &len, &e) < 0)
		return cv_error_ret(e);
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, data, sizeof(h));
	if (memcmp(h.magic, CACHE_MAGIC, sizeof(h.magic)) != 0 || h.format != CACHE_FORMAT || h.key_len != key_len ||
	    h.insns == 0 || h.insns > BPF_MAXINSNS ||
	    (uint64_t)len != sizeof(h) + (uint64_t)h.key_len + (uint64_t)h.insns * sizeof(struct sock_filter))
		return -EINVAL;
	if (memcmp(data + sizeof(h), key, key_len) != 0)
		return -ESTALE; /* a hash collision */
	insns = malloc(h.insns * sizeof(struct sock_filter));
	if (insns == NULL)
		return -ENOMEM;
	memcpy(insns, data + sizeof(h) + key_len, h.insns * sizeof(struct sock_filter));
	f->flags = h.flags;
	f->has_notify = h.has_notify != 0;
	f->len = h.insns;
	f->insns = steal_pointer(&insns);
	return 0;
}

int cv_seccomp_cache_store(const char *key, size_t key_len, const struct cv_seccomp *f)
{
	cleanup_free char *dir = cache_dir();
	cleanup_close int dfd = -1;
	cleanup_error cv_error_t e = NULL;
	struct cache_header h = { .format = CACHE_FORMAT,
				  .key_len = key_len,
				  .flags = f->flags,
				  .has_notify = f->has_notify,
				  .insns = f->len };
	size_t len = sizeof(h) + key_len + f->len * sizeof(struct sock_filter);
	cleanup_free char *data = NULL;
	char name[32];

	if (dir == NULL)
		return 0;
	dfd = open_cache_dir(dir, true);
	if (dfd < 0)
		return dfd;
	if ((data = malloc(len)) == NULL)
		return -ENOMEM;
	memcpy(h.magic, CACHE_MAGIC, sizeof(h.magic));
	memcpy(data, &h, sizeof(h));
	memcpy(data + sizeof(h), key, key_len);
	memcpy(data + sizeof(h) + key_len, f->insns, f->len * sizeof(struct sock_filter));
	snprintf(name, sizeof(name), "%016" PRIx64 ".bpf", fnv1a(key, key_len));
	if (cv_write_file_atomic(dfd, name, data, len, 0600, &e) < 0)
		return cv_error_ret(e);
	return 0;
}
