# oci: config.json / process.json / state.json / features JSON <-> typed model.
libcvisor_core_la_SOURCES += oci/policy.c oci/policy.h
libcvisor_core_la_SOURCES += \
	oci/spec.h oci/state.h oci/features.h oci/json.h \
	oci/json-tree.c oci/json-read.c oci/json-write.c \
	oci/spec-parse.c oci/spec-validate.c oci/spec-emit.c oci/spec-free.c \
	oci/spec-equal.c oci/spec-default.c oci/state.c oci/features.c
# cgroups (helper "cgroups"): update --resources, events/stats JSON
libcvisor_core_la_SOURCES += oci/resources.c oci/resources.h oci/resources-internal.h \
	oci/stats.c oci/stats.h
