# tests/unit

# seccomp (helper "seccomp")
check_PROGRAMS += tests/unit/test_seccomp
TESTS += tests/unit/test_seccomp
tests_unit_test_seccomp_SOURCES = tests/unit/test_seccomp.c
tests_unit_test_seccomp_LDADD = libcvisor-core.la $(DEPS_LIBS)
tests_unit_test_seccomp_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'

# sandbox policy (helper "sandbox")
check_PROGRAMS += tests/unit/test_policy
TESTS += tests/unit/test_policy
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/unit/tap.h
tests_unit_test_policy_LDADD = libcvisor-core.la $(DEPS_LIBS)
