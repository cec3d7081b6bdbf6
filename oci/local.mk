# oci: the JSON layer. config.json / process.json / state.json / features,
# linux.resources for update, the stats of events <-> typed structs, and the
# JSON tree reader and writer the rest of cvisor uses (json.h): the only
# code that calls yajl. Depends on base alone (its own include path).
libcvisor_oci_la_SOURCES = \
	oci/spec.h oci/state.h oci/features.h oci/json.h \
	oci/json-tree.c oci/json-read.c oci/json-write.c \
	oci/spec-parse.c oci/spec-validate.c oci/spec-emit.c oci/spec-free.c \
	oci/spec-equal.c oci/spec-default.c oci/state.c oci/features.c \
	oci/resources.c oci/resources.h oci/resources-internal.h \
	oci/stats.c oci/stats.h
