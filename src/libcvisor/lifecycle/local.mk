# lifecycle: the container verbs of the public API (create, start, run,
# exec, kill, delete, state, pause, update, events, spec, features): the
# state store under --root, the container record and status, the hooks, the
# cgroup of a container, the CVE-2019-5736 guard that every verb entering a container
# passes (exe-guard-early.c, early-prefault.c and exe-guard-init.c are linked into the binary
# only), the ABI checks of the entry points, the helper that enters
# containers for a program embedding the library, and what only the cvisor
# binary calls (src/include/cvisor-binary.h: the helper's binary side,
# log-line.c).
libcvisor_core_la_SOURCES += \
	src/libcvisor/lifecycle/entry.c \
	src/libcvisor/lifecycle/abi.c src/libcvisor/lifecycle/abi.h \
	src/libcvisor/lifecycle/helper.c src/libcvisor/lifecycle/helper.h \
	src/libcvisor/lifecycle/log-line.c \
	src/libcvisor/lifecycle/create.c src/libcvisor/lifecycle/create.h \
	src/libcvisor/lifecycle/shared-launch.c src/libcvisor/lifecycle/shared-launch.h \
	src/libcvisor/lifecycle/container.c src/libcvisor/lifecycle/container-cgroups.c \
	src/libcvisor/lifecycle/exec.c \
	src/libcvisor/lifecycle/spec.c src/libcvisor/lifecycle/features.c \
	src/libcvisor/lifecycle/status.c src/libcvisor/lifecycle/status.h \
	src/libcvisor/lifecycle/state-store.c src/libcvisor/lifecycle/state-store.h \
	src/libcvisor/lifecycle/hooks.c src/libcvisor/lifecycle/hooks.h \
	src/libcvisor/lifecycle/exe-guard.c src/libcvisor/lifecycle/exe-guard.h
