# Each test area owns its own fragment.
include tests/unit/local.mk
include tests/fuzz/local.mk
include tests/integration/local.mk
