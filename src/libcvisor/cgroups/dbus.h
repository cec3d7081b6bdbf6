/* A minimal D-Bus client, enough for the systemd cgroup driver: connect to a
 * unix socket bus, authenticate (SASL EXTERNAL), Hello, AddMatch, send a
 * method call and read its reply and the signals around it. No fd passing,
 * no object export, no introspection. The marshaller writes little-endian;
 * the reader takes either byte order and checks every length and offset
 * against the message it came in (a peer on the bus is not trusted to be
 * well-formed). Spec: https://dbus.freedesktop.org/doc/dbus-specification.html */
#ifndef CVISOR_DBUS_H
#define CVISOR_DBUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Larger incoming messages are refused (the spec allows 128 MiB; nothing
 * this client reads comes near 16). */
#define CV_DBUS_MAX_MESSAGE (16u << 20)

enum cv_dbus_type {
	CV_DBUS_METHOD_CALL = 1,
	CV_DBUS_METHOD_RETURN = 2,
	CV_DBUS_ERROR = 3,
	CV_DBUS_SIGNAL = 4,
};

/* The header of a message: what cv_dbus_build writes, what cv_dbus_parse
 * fills (strings then point into the parsed buffer). NULL = field absent. */
struct cv_dbus_header {
	uint8_t type;
	uint8_t flags;
	uint32_t serial;
	uint32_t reply_serial; /* 0 = absent */
	const char *path;
	const char *interface;
	const char *member;
	const char *error_name;
	const char *destination;
	const char *sender;
	const char *signature; /* of the body; NULL or "" for none */
};

/* ---- writer ----
 * Appends values with their alignment. Failures are sticky: the first one is
 * kept in `error`/`why` and every later put is a no-op, so a message is
 * built without checking each step and checked once by cv_dbus_build. */
struct cv_dbus_writer {
	uint8_t *buf;
	size_t len, cap;
	int error;       /* errno of the first failure, 0 = none */
	const char *why; /* what failed, for the message */
};
/* An open array: where its length goes, where its elements start. */
struct cv_dbus_array {
	size_t len_at, start;
};

void cv_dbus_writer_clear(struct cv_dbus_writer *w);
void cv_dbus_put_byte(struct cv_dbus_writer *w, uint8_t v);
void cv_dbus_put_bool(struct cv_dbus_writer *w, bool v);
void cv_dbus_put_u32(struct cv_dbus_writer *w, uint32_t v);
void cv_dbus_put_u64(struct cv_dbus_writer *w, uint64_t v);
/* s: valid UTF-8 (checked). */
void cv_dbus_put_string(struct cv_dbus_writer *w, const char *s);
/* o: a valid object path (checked). */
void cv_dbus_put_path(struct cv_dbus_writer *w, const char *s);
/* g: a valid signature (checked). */
void cv_dbus_put_signature(struct cv_dbus_writer *w, const char *s);
/* `elem` is the element's signature: it gives the alignment of the first
 * element, which follows the length even when the array stays empty. */
struct cv_dbus_array cv_dbus_array_begin(struct cv_dbus_writer *w, const char *elem);
void cv_dbus_array_end(struct cv_dbus_writer *w, struct cv_dbus_array a);
/* Structs and dict entries start on 8 bytes; nothing marks their end. */
void cv_dbus_struct_begin(struct cv_dbus_writer *w);
/* A variant: its signature (one complete type); the value follows. */
void cv_dbus_variant_begin(struct cv_dbus_writer *w, const char *sig);

/* Writes the whole message, header then `body` (NULL = empty), into `out`
 * (cleared first). h->signature must describe the body. */
int cv_dbus_build(const struct cv_dbus_header *h, const struct cv_dbus_writer *body, struct cv_dbus_writer *out,
		  cv_error_t *err);

/* ---- reader ---- */

/* A received message. `raw` is owned; header strings and what
 * cv_dbus_read returns point into it. */
struct cv_dbus_message {
	struct cv_dbus_header h;
	uint8_t *raw;
	size_t len;
	size_t body_at, body_len;
	bool big_endian;
};
void cv_dbus_message_clear(struct cv_dbus_message *m);

/* How long the message starting in buf is, from its first 16 bytes: 0 with
 * *total set, or an error for a bad fixed header or a message over
 * CV_DBUS_MAX_MESSAGE. len must be >= 16. */
int cv_dbus_message_size(const uint8_t *buf, size_t len, size_t *total, cv_error_t *err);
/* Parses and validates one whole message (len = its exact size) that `m`
 * takes over: raw is freed with the message, also on failure. */
int cv_dbus_parse(uint8_t *raw, size_t len, struct cv_dbus_message *m, cv_error_t *err);
/* Reads the leading arguments of the body: `sig` is a string of basic type
 * codes (y b u t s o g) that must begin the body's signature; each takes a
 * pointer (uint8_t *, bool *, uint32_t *, uint64_t *, const char **). */
int cv_dbus_read(const struct cv_dbus_message *m, const char *sig, cv_error_t *err, ...);

/* True when `s` is a valid D-Bus signature of exactly one complete type. */
bool cv_dbus_signature_is_single(const char *s);

/* ---- connection ---- */

struct cv_dbus;

/* The bus address: `address` when given, else the user bus
 * ($DBUS_SESSION_BUS_ADDRESS, or unix:path=$XDG_RUNTIME_DIR/bus) when
 * `user`, else the system bus ($DBUS_SYSTEM_BUS_ADDRESS, or
 * unix:path=/run/dbus/system_bus_socket). */
int cv_dbus_address(const char *address, bool user, char **out, cv_error_t *err);
/* Connects to the first usable entry of a D-Bus address list (unix:path= or
 * unix:abstract=), authenticates as the effective uid and sends Hello (its
 * reply is read with the first reply waited for). Gives up at `deadline`
 * (cv_dbus_now_usec() clock). */
int cv_dbus_open(const char *address, uint64_t deadline, struct cv_dbus **out, cv_error_t *err);
void cv_dbus_close(struct cv_dbus *c);
static inline void cv_dbus_closep(struct cv_dbus **c)
{
	if (*c)
		cv_dbus_close(*c);
}
#define cleanup_dbus __attribute__((cleanup(cv_dbus_closep)))

/* Monotonic clock in microseconds: deadlines are on it. */
uint64_t cv_dbus_now_usec(void);

/* Sends a message: h->serial is set to the next serial. */
int cv_dbus_send(struct cv_dbus *c, struct cv_dbus_header *h, const struct cv_dbus_writer *body, cv_error_t *err);
/* The next message other than the Hello reply (consumed on the way: a
 * failed Hello is an error here), waiting for it until `deadline`. */
int cv_dbus_recv(struct cv_dbus *c, uint64_t deadline, struct cv_dbus_message *m, cv_error_t *err);
/* Receives until the reply (METHOD_RETURN or ERROR) to `serial`; every
 * other message goes to `other` (may be NULL) first. The reply may be an
 * ERROR: cv_dbus_error_message describes it. */
int cv_dbus_wait_reply(struct cv_dbus *c, uint32_t serial, uint64_t deadline,
		       void (*other)(const struct cv_dbus_message *m, void *data), void *data,
		       struct cv_dbus_message *reply, cv_error_t *err);
/* "NAME: MESSAGE" (or just NAME) of an ERROR message, into buf. */
const char *cv_dbus_error_message(const struct cv_dbus_message *m, char *buf, size_t size);
/* Calls org.freedesktop.DBus.AddMatch(rule) and waits for its reply. */
int cv_dbus_add_match(struct cv_dbus *c, const char *rule, uint64_t deadline, cv_error_t *err);

#endif
