# libcvisor: one file per concern.
libcvisor_core_la_SOURCES += \
	src/libcvisor/cleanup.h \
	src/libcvisor/error.c src/libcvisor/error.h \
	src/libcvisor/log.c src/libcvisor/log.h
libcvisor_core_la_SOURCES += src/libcvisor/state-store.c src/libcvisor/state-store.h
