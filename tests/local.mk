# Each test area owns its own fragment.
include tests/unit/local.mk
include tests/embed/local.mk
include tests/fuzz/local.mk
include tests/integration/local.mk
include tests/lint/local.mk
# The cgroup v2 guest runner (used by tests/integration/cgroups-v2.bats) and
# the benchmark (a tool, not a test).
EXTRA_DIST += tests/vm tests/bench
# tests/lint/includes.sh: the dependency rules of the sources (who may
# include whose headers), TAP
TESTS += tests/lint/includes.sh
EXTRA_DIST += tests/lint/includes.sh
