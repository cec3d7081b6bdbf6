# libcvisor: one file per concern.
libcvisor_core_la_SOURCES += \
	src/libcvisor/cleanup.h \
	src/libcvisor/error.c src/libcvisor/error.h \
	src/libcvisor/log.c src/libcvisor/log.h
libcvisor_core_la_SOURCES += src/libcvisor/state-store.c src/libcvisor/state-store.h
# lifecycle (helper "lifecycle")
libcvisor_core_la_SOURCES += \
	src/libcvisor/container.c \
	src/libcvisor/status.c src/libcvisor/status.h
libcvisor_core_la_SOURCES += src/libcvisor/seccomp.c src/libcvisor/seccomp.h src/libcvisor/seccomp-internal.h \
	src/libcvisor/seccomp-notify.c src/libcvisor/seccomp-cache.c
