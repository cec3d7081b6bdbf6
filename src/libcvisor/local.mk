# libcvisor: one file per concern.
libcvisor_core_la_SOURCES += \
	src/libcvisor/cleanup.h \
	src/libcvisor/error.c src/libcvisor/error.h \
	src/libcvisor/log.c src/libcvisor/log.h
libcvisor_core_la_SOURCES += src/libcvisor/state-store.c src/libcvisor/state-store.h
# lifecycle (helper "lifecycle")
libcvisor_core_la_SOURCES += \
	src/libcvisor/container.c \
	src/libcvisor/create.c src/libcvisor/create.h \
	src/libcvisor/exec.c \
	src/libcvisor/exe-guard.c src/libcvisor/exe-guard.h \
	src/libcvisor/process.c src/libcvisor/process.h \
	src/libcvisor/process-attrs.c src/libcvisor/process-attrs.h \
	src/libcvisor/namespaces.c src/libcvisor/namespaces.h \
	src/libcvisor/caps.c src/libcvisor/caps.h \
	src/libcvisor/hooks.c src/libcvisor/hooks.h \
	src/libcvisor/console.c src/libcvisor/console.h \
	src/libcvisor/sync.c src/libcvisor/sync.h \
	src/libcvisor/status.c src/libcvisor/status.h
libcvisor_core_la_SOURCES += src/libcvisor/seccomp.c src/libcvisor/seccomp-filter.h src/libcvisor/seccomp-internal.h \
	src/libcvisor/seccomp-notify.c src/libcvisor/seccomp-cache.c
# sandbox (helper "sandbox")
libcvisor_core_la_SOURCES += src/libcvisor/sandbox.c src/libcvisor/sandbox.h
# the host's /etc/passwd without NSS (the binary is static)
libcvisor_core_la_SOURCES += src/libcvisor/passwd.c src/libcvisor/passwd.h
# filesystem (helper "rootfs")
libcvisor_core_la_SOURCES += src/libcvisor/rootfs.c src/libcvisor/mounts.c src/libcvisor/mounts.h \
	src/libcvisor/mounts-internal.h src/libcvisor/devices.c src/libcvisor/masked.c \
	src/libcvisor/safe-path.c src/libcvisor/safe-path.h
# cgroups (helper "cgroups")
libcvisor_core_la_SOURCES += src/libcvisor/cgroups.c src/libcvisor/cgroups.h src/libcvisor/cgroups-internal.h \
	src/libcvisor/cgroups-v1.c src/libcvisor/cgroups-v2.c src/libcvisor/cgroups-devices-bpf.c \
	src/libcvisor/cgroups-systemd.c src/libcvisor/cgroups-systemd.h src/libcvisor/cgroups-convert.c \
	src/libcvisor/cgroups-stats.c src/libcvisor/container-cgroups.c \
	src/libcvisor/dbus.c src/libcvisor/dbus.h
libcvisor_core_la_SOURCES += src/libcvisor/supervisor.c src/libcvisor/supervisor.h
