# fs: the container's filesystem view: the root (rootfs.c), every mount of
# the spec (mounts.c), device nodes, masked and read-only paths, and the
# symlink-safe path resolution inside a rootfs (safe-path.c) that all of
# them go through.
libcvisor_core_la_SOURCES += \
	src/libcvisor/fs/rootfs.c \
	src/libcvisor/fs/mounts.c src/libcvisor/fs/mounts.h src/libcvisor/fs/mounts-internal.h \
	src/libcvisor/fs/devices.c src/libcvisor/fs/masked.c \
	src/libcvisor/fs/safe-path.c src/libcvisor/fs/safe-path.h
