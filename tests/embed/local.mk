# tests/embed: a program embedding libcvisor as any other would (cvisor.h
# only, libcvisor.so only, a writable binary: no libtool wrapper script,
# -no-install), driven by tests/integration/embed.bats, and the same from
# python3 through ctypes.
check_PROGRAMS += tests/embed/embed-test
tests_embed_embed_test_SOURCES = tests/embed/embed-test.c
tests_embed_embed_test_CPPFLAGS = -I$(top_srcdir)/src/include
tests_embed_embed_test_CFLAGS = $(CV_CFLAGS) -pthread
tests_embed_embed_test_LDADD = libcvisor.la
tests_embed_embed_test_LDFLAGS = -no-install
EXTRA_DIST += tests/embed/test_embed.py
# the sandbox calls, driven by tests/integration/sandbox-api.bats
check_PROGRAMS += tests/embed/sandbox-test
tests_embed_sandbox_test_SOURCES = tests/embed/sandbox-test.c
tests_embed_sandbox_test_CPPFLAGS = -I$(top_srcdir)/src/include
tests_embed_sandbox_test_CFLAGS = $(CV_CFLAGS) -pthread
tests_embed_sandbox_test_LDADD = libcvisor.la
tests_embed_sandbox_test_LDFLAGS = -no-install
