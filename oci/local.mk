# oci
libcvisor_core_la_SOURCES += oci/policy.c oci/policy.h
