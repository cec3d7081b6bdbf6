# seccomp: linux.seccomp compiled through libseccomp (seccomp.c), the cache
# of compiled filters, and the SCMP_ACT_NOTIFY listener hand-off.
libcvisor_core_la_SOURCES += \
	src/libcvisor/seccomp/seccomp.c src/libcvisor/seccomp/seccomp-filter.h \
	src/libcvisor/seccomp/seccomp-internal.h \
	src/libcvisor/seccomp/seccomp-notify.c src/libcvisor/seccomp/seccomp-cache.c
