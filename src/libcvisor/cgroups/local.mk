# cgroups: one interface (cgroups.h) over v1, v2 and hybrid hierarchies and
# the systemd driver (with its own minimal D-Bus client, dbus.c); the
# conversions of linux.resources, the device rules (v1 files, v2 eBPF) and
# the statistics of `events`.
libcvisor_core_la_SOURCES += \
	src/libcvisor/cgroups/cgroups.c src/libcvisor/cgroups/cgroups.h \
	src/libcvisor/cgroups/cgroups-internal.h \
	src/libcvisor/cgroups/cgroups-v1.c src/libcvisor/cgroups/cgroups-v2.c \
	src/libcvisor/cgroups/cgroups-devices-bpf.c src/libcvisor/cgroups/cgroups-convert.c \
	src/libcvisor/cgroups/cgroups-stats.c \
	src/libcvisor/cgroups/cgroups-systemd.c src/libcvisor/cgroups/cgroups-systemd.h \
	src/libcvisor/cgroups/dbus.c src/libcvisor/cgroups/dbus.h
