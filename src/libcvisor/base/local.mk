# base: what every other module uses and that depends on nothing of ours:
# error objects (error.h), the log sink (log.h) and the cleanup attributes
# (cleanup.h). Built alone, with only its own include path, so it cannot
# reach another module's header.
libcvisor_base_la_SOURCES = \
	src/libcvisor/base/cleanup.h \
	src/libcvisor/base/error.c src/libcvisor/base/error.h \
	src/libcvisor/base/log.c src/libcvisor/base/log.h
