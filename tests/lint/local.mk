# tests/lint: checks of the test sources themselves, run by `make check`.
# bats-assertions.sh: no bats assertion that set -e ignores (TAP).
TESTS += tests/lint/bats-assertions.sh
EXTRA_DIST += tests/lint/bats-assertions.sh
# format.sh: every C file as .clang-format lays it out (`make format`).
TESTS += tests/lint/format.sh
EXTRA_DIST += tests/lint/format.sh .clang-format

format:
	cd $(srcdir) && find src oci hooks tests -name build -prune -o -type f \( -name '*.c' -o -name '*.h' \) \
		-print | xargs clang-format -i
.PHONY: format
