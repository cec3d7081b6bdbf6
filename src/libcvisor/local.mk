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
# sandbox (helper "sandbox")
libcvisor_core_la_SOURCES += src/libcvisor/sandbox.c src/libcvisor/sandbox.h
# filesystem (helper "rootfs")
libcvisor_core_la_SOURCES += src/libcvisor/rootfs.c src/libcvisor/mounts.c src/libcvisor/mounts.h \
	src/libcvisor/mounts-internal.h src/libcvisor/devices.c src/libcvisor/masked.c \
	src/libcvisor/safe-path.c src/libcvisor/safe-path.h
# filesystem (helper "rootfs")
libcvisor_core_la_SOURCES += src/libcvisor/rootfs.c src/libcvisor/mounts.c src/libcvisor/mounts.h \
	src/libcvisor/mounts-internal.h src/libcvisor/devices.c src/libcvisor/masked.c \
	src/libcvisor/safe-path.c src/libcvisor/safe-path.h
