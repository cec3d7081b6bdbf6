# tests/integration: every tests/integration/*.bats runs under `make check`
# through the TAP driver. New .bats files are picked up without editing this
# fragment (GNU make wildcard; the .bats suffix rule finds them via VPATH).
# Appended by GNU make itself, out of automake's sight: automake expands
# TESTS at its own run time and would freeze (or mangle) the list.
$(eval TESTS += $$(patsubst $$(srcdir)/%,%,$$(sort $$(wildcard $$(srcdir)/tests/integration/*.bats))))
BATS_LOG_COMPILER = bats
AM_BATS_LOG_FLAGS = --tap --print-output-on-failure
# What the tests see (documented in tests/integration/helpers.bash).
AM_TESTS_ENVIRONMENT = \
	CVISOR='$(abs_top_builddir)/src/cvisor'; export CVISOR; \
	CVISOR_BUILDDIR='$(abs_top_builddir)'; export CVISOR_BUILDDIR; \
	CVISOR_SRCDIR='$(abs_top_srcdir)'; export CVISOR_SRCDIR; \
	CVISOR_TESTS_DIR='$(abs_top_srcdir)/tests/integration'; export CVISOR_TESTS_DIR;
# The sources only: the directory itself would be taken from the build tree
# when it exists there (test logs, objects), and a distcheck build would then
# find stale objects through VPATH.
$(eval EXTRA_DIST += $$(patsubst $$(srcdir)/%,%,$$(sort $$(wildcard $$(srcdir)/tests/integration/*.bats $$(srcdir)/tests/integration/*.bash))))
EXTRA_DIST += tests/integration/data
# fs-run: the filesystem module alone, for mounts/devices/masked/attacks tests
check_PROGRAMS += tests/integration/fs-run
tests_integration_fs_run_SOURCES = tests/integration/fs-run.c
tests_integration_fs_run_LDADD = libcvisor-core.la $(DEPS_LIBS)

# archive-tool: the files module alone (archives, the cache), for archive.bats
check_PROGRAMS += tests/integration/archive-tool
tests_integration_archive_tool_SOURCES = tests/integration/archive-tool.c
tests_integration_archive_tool_LDADD = libcvisor-core.la $(DEPS_LIBS)
EXTRA_DIST += tests/integration/evil-tar.py tests/integration/sigv4-server.py

# seccomp: the notify agent the seccomp tests talk to
check_PROGRAMS += tests/integration/seccomp-agent
tests_integration_seccomp_agent_SOURCES = tests/integration/seccomp-agent.c

# orphans: what a command leaves to whoever takes its orphans (sandbox.bats)
check_PROGRAMS += tests/integration/orphans
tests_integration_orphans_SOURCES = tests/integration/orphans.c

# console-socket receiver for console.bats/exec.bats
check_PROGRAMS += tests/integration/recvtty
tests_integration_recvtty_SOURCES = tests/integration/recvtty.c

# cri.bats: its CRI client, the client's .proto, and the pause program the
# test compiles itself (static, without the build's flags)
EXTRA_DIST += tests/integration/cri/cri.proto tests/integration/cri/cri-client.py \
	tests/integration/pause.c

# ignore.bats: prints what the ignore rules' walk keeps of a tree; its
# random differential test against git (ignore-random.py)
check_PROGRAMS += tests/integration/ignore-list
tests_integration_ignore_list_SOURCES = tests/integration/ignore-list.c
tests_integration_ignore_list_LDADD = libcvisor-core.la $(DEPS_LIBS)
EXTRA_DIST += tests/integration/ignore-random.py
