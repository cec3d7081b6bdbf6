# files: what moves files between the host and a sandbox: the ignore rules
# of a tree (.gitignore, .dockerignore) and the walk that applies them
# (ignore.c), archives of directory trees (archive.c: tar, tar.gz and tar.zst
# through libarchive, extraction that never leaves its target) and the
# cache the sandbox API stores them in (cache.c: the disk and s3 backends).
libcvisor_core_la_SOURCES += \
	src/libcvisor/files/ignore.c src/libcvisor/files/ignore.h \
	src/libcvisor/files/archive.c src/libcvisor/files/archive.h \
	src/libcvisor/files/cache.c src/libcvisor/files/cache.h
AM_CFLAGS += $(ARCHIVE_CFLAGS) $(CURL_CFLAGS)
DEPS_LIBS += $(ARCHIVE_LIBS) $(CURL_LIBS)
