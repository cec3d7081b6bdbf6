# files: what moves files between the host and a sandbox: the ignore rules
# of a tree (.gitignore, .dockerignore) and the walk that applies them
# (ignore.c), for copy_into and cache_save.
libcvisor_core_la_SOURCES += \
	src/libcvisor/files/ignore.c src/libcvisor/files/ignore.h
