# tests/unit

# seccomp
check_PROGRAMS += tests/unit/test_seccomp
TESTS += tests/unit/test_seccomp
tests_unit_test_seccomp_SOURCES = tests/unit/test_seccomp.c
tests_unit_test_seccomp_LDADD = libcvisor-core.la $(DEPS_LIBS)
tests_unit_test_seccomp_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"' -DBUILDDIR='"$(abs_top_builddir)"'

# the state's timestamps, against the C library
check_PROGRAMS += tests/unit/test_time
TESTS += tests/unit/test_time
tests_unit_test_time_SOURCES = tests/unit/test_time.c tests/unit/tap.h
tests_unit_test_time_LDADD = libcvisor-core.la $(DEPS_LIBS)

# sandbox policy
check_PROGRAMS += tests/unit/test_policy
TESTS += tests/unit/test_policy
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/unit/tap.h
tests_unit_test_policy_LDADD = libcvisor-core.la $(DEPS_LIBS)

# cgroups: pure conversions, and the live test against this
# machine's hierarchies (skips unless root; leaves nothing behind)
check_PROGRAMS += tests/unit/test_cgroups tests/unit/test_cgroups_live
TESTS += tests/unit/test_cgroups tests/unit/test_cgroups_live
tests_unit_test_cgroups_SOURCES = tests/unit/test_cgroups.c tests/unit/tap.h
tests_unit_test_cgroups_LDADD = libcvisor-core.la $(DEPS_LIBS)
tests_unit_test_cgroups_live_SOURCES = tests/unit/test_cgroups_live.c tests/unit/tap.h
tests_unit_test_cgroups_live_LDADD = libcvisor-core.la $(DEPS_LIBS)

# oci: config.json / process / state / features
check_PROGRAMS += tests/unit/test_spec
TESTS += tests/unit/test_spec
tests_unit_test_spec_SOURCES = tests/unit/test_spec.c tests/unit/tap.h
tests_unit_test_spec_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_DATA_DIR='"$(abs_top_srcdir)/tests/unit/data"'
tests_unit_test_spec_LDADD = libcvisor-core.la $(DEPS_LIBS)
EXTRA_DIST += tests/unit/data
# not a test: `tests/unit/bench_parse [config.json...]` prints parse/emit times
check_PROGRAMS += tests/unit/bench_parse
tests_unit_bench_parse_SOURCES = tests/unit/bench_parse.c
tests_unit_bench_parse_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_DATA_DIR='"$(abs_top_srcdir)/tests/unit/data"'
tests_unit_bench_parse_LDADD = libcvisor-core.la $(DEPS_LIBS)
check_PROGRAMS += tests/unit/test_sandbox
TESTS += tests/unit/test_sandbox
tests_unit_test_sandbox_SOURCES = tests/unit/test_sandbox.c tests/unit/tap.h
tests_unit_test_sandbox_LDADD = libcvisor-core.la $(DEPS_LIBS)
check_PROGRAMS += tests/unit/test_watcher
TESTS += tests/unit/test_watcher
tests_unit_test_watcher_SOURCES = tests/unit/test_watcher.c tests/unit/tap.h
tests_unit_test_watcher_LDADD = libcvisor-core.la $(DEPS_LIBS)

# systemd cgroup driver: path parsing, slice expansion and
# the scope's D-Bus properties, without a bus
check_PROGRAMS += tests/unit/test_cgroups_systemd
TESTS += tests/unit/test_cgroups_systemd
tests_unit_test_cgroups_systemd_SOURCES = tests/unit/test_cgroups_systemd.c tests/unit/tap.h
tests_unit_test_cgroups_systemd_LDADD = libcvisor-core.la $(DEPS_LIBS)
# its D-Bus client (dbus.c): byte-exact marshalling, and the reader refusing
# truncated or lying messages
check_PROGRAMS += tests/unit/test_dbus
TESTS += tests/unit/test_dbus
tests_unit_test_dbus_SOURCES = tests/unit/test_dbus.c tests/unit/tap.h
tests_unit_test_dbus_LDADD = libcvisor-core.la $(DEPS_LIBS)
# ... and the driver's D-Bus calls, through that client, against a fake
# systemd Manager on a private dbus-daemon (the fake is written with sd-bus:
# it needs libsystemd-dev; the runtime does not)
if HAVE_LIBSYSTEMD
check_PROGRAMS += tests/unit/fake-systemd tests/unit/test_cgroups_systemd_bus
TESTS += tests/unit/test_cgroups_systemd_bus
tests_unit_fake_systemd_SOURCES = tests/unit/fake-systemd.c
tests_unit_fake_systemd_CFLAGS = $(AM_CFLAGS) $(SYSTEMD_CFLAGS)
tests_unit_fake_systemd_LDADD = $(SYSTEMD_LIBS)
tests_unit_test_cgroups_systemd_bus_SOURCES = tests/unit/test_cgroups_systemd_bus.c tests/unit/tap.h
tests_unit_test_cgroups_systemd_bus_CPPFLAGS = $(AM_CPPFLAGS) -DBUILDDIR='"$(abs_top_builddir)"'
tests_unit_test_cgroups_systemd_bus_LDADD = libcvisor-core.la $(DEPS_LIBS)
endif

# /etc/passwd without NSS
check_PROGRAMS += tests/unit/test_passwd
TESTS += tests/unit/test_passwd
tests_unit_test_passwd_SOURCES = tests/unit/test_passwd.c tests/unit/tap.h
tests_unit_test_passwd_LDADD = libcvisor-core.la $(DEPS_LIBS)

# the lists kept in two places (do's help and man page, the exe-guard's
# global flags) against their one source
check_PROGRAMS += tests/unit/test_copies
TESTS += tests/unit/test_copies
tests_unit_test_copies_SOURCES = tests/unit/test_copies.c tests/unit/tap.h
tests_unit_test_copies_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_copies_LDADD = libcvisor-core.la $(DEPS_LIBS)

# base: error objects (with calloc wrapped to fail on demand), whole reads
# and writes, fd passing, the clock
check_PROGRAMS += tests/unit/test_base
TESTS += tests/unit/test_base
tests_unit_test_base_SOURCES = tests/unit/test_base.c tests/unit/tap.h
tests_unit_test_base_CPPFLAGS = $(BASE_CPPFLAGS)
tests_unit_test_base_LDFLAGS = -Wl,--wrap=calloc
tests_unit_test_base_LDADD = libcvisor-base.la

# fs/safe-path: resolution inside a rootfs on a temporary tree, with
# openat2 and with the fallback walk (openat2 made ENOSYS by seccomp)
check_PROGRAMS += tests/unit/test_safe_path
TESTS += tests/unit/test_safe_path
tests_unit_test_safe_path_SOURCES = tests/unit/test_safe_path.c tests/unit/tap.h
tests_unit_test_safe_path_LDADD = libcvisor-core.la $(DEPS_LIBS)

# the state store (lifecycle/state-store.c): ids, an entry's life, and the
# lock excluding a second thread of the same process
check_PROGRAMS += tests/unit/test_state_store
TESTS += tests/unit/test_state_store
tests_unit_test_state_store_SOURCES = tests/unit/test_state_store.c tests/unit/tap.h
tests_unit_test_state_store_CFLAGS = $(AM_CFLAGS) -pthread
tests_unit_test_state_store_LDADD = libcvisor-core.la $(DEPS_LIBS)

# the runtime's side of the sync protocol while the container process
# shares its memory (lifecycle/shared-launch.c)
check_PROGRAMS += tests/unit/test_shared_launch
TESTS += tests/unit/test_shared_launch
tests_unit_test_shared_launch_SOURCES = tests/unit/test_shared_launch.c tests/unit/tap.h
tests_unit_test_shared_launch_LDADD = libcvisor-core.la $(DEPS_LIBS)

# the init's end (process/init-loop.h): as PID 1 it ends the namespace's
# other processes before the status goes out; elsewhere it kills nothing
check_PROGRAMS += tests/unit/test_init_loop
TESTS += tests/unit/test_init_loop
tests_unit_test_init_loop_SOURCES = tests/unit/test_init_loop.c tests/unit/tap.h

# process/sync: the parent/child protocol of create and exec, including
# what a broken or hostile peer sends
check_PROGRAMS += tests/unit/test_sync
TESTS += tests/unit/test_sync
tests_unit_test_sync_SOURCES = tests/unit/test_sync.c tests/unit/tap.h
tests_unit_test_sync_LDADD = libcvisor-core.la $(DEPS_LIBS)

# the ignore rules of copy_into and cache_save (.gitignore, .dockerignore)
check_PROGRAMS += tests/unit/test_ignore
TESTS += tests/unit/test_ignore
tests_unit_test_ignore_SOURCES = tests/unit/test_ignore.c tests/unit/tap.h
tests_unit_test_ignore_LDADD = libcvisor-core.la $(DEPS_LIBS)
# files: cache key rules and archive format names
check_PROGRAMS += tests/unit/test_files
TESTS += tests/unit/test_files
tests_unit_test_files_SOURCES = tests/unit/test_files.c tests/unit/tap.h
tests_unit_test_files_LDADD = libcvisor-core.la $(DEPS_LIBS)
