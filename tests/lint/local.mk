# tests/lint: checks of the test sources themselves, run by `make check`.
# bats-assertions.sh: no bats assertion that set -e ignores (TAP).
TESTS += tests/lint/bats-assertions.sh
EXTRA_DIST += tests/lint/bats-assertions.sh
