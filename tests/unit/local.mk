# tests/unit

# seccomp (helper "seccomp")
check_PROGRAMS += tests/unit/test_seccomp
TESTS += tests/unit/test_seccomp
tests_unit_test_seccomp_SOURCES = tests/unit/test_seccomp.c
tests_unit_test_seccomp_LDADD = libcvisor-core.la $(DEPS_LIBS)
tests_unit_test_seccomp_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"' -DBUILDDIR='"$(abs_top_builddir)"'

# sandbox policy (helper "sandbox")
check_PROGRAMS += tests/unit/test_policy
TESTS += tests/unit/test_policy
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/unit/tap.h
tests_unit_test_policy_LDADD = libcvisor-core.la $(DEPS_LIBS)

# cgroups (helper "cgroups"): pure conversions, and the live test against this
# machine's hierarchies (skips unless root; leaves nothing behind)
check_PROGRAMS += tests/unit/test_cgroups tests/unit/test_cgroups_live
TESTS += tests/unit/test_cgroups tests/unit/test_cgroups_live
tests_unit_test_cgroups_SOURCES = tests/unit/test_cgroups.c tests/unit/tap.h
tests_unit_test_cgroups_LDADD = libcvisor-core.la $(DEPS_LIBS)
tests_unit_test_cgroups_live_SOURCES = tests/unit/test_cgroups_live.c tests/unit/tap.h
tests_unit_test_cgroups_live_LDADD = libcvisor-core.la $(DEPS_LIBS)
