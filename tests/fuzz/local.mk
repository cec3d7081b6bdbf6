# tests/fuzz: libFuzzer targets for the parsers of untrusted input.
#   make fuzz                      build them (needs clang: FUZZ_CC, default clang)
#   make fuzz-run FUZZ_SECONDS=N   run each for N seconds; fails on a finding
# The targets are compiled straight from the sources they exercise (no
# libtool objects: those are built without the fuzzer instrumentation).
FUZZ_TARGETS = fuzz_config fuzz_process fuzz_state
FUZZ_SECONDS = 60
FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g -O1
FUZZ_CPPFLAGS = -I$(top_builddir) $(AM_CPPFLAGS) $(YAJL_CFLAGS)
FUZZ_CODE = \
	$(top_srcdir)/oci/json-tree.c $(top_srcdir)/oci/json-read.c $(top_srcdir)/oci/json-write.c \
	$(top_srcdir)/oci/spec-parse.c $(top_srcdir)/oci/spec-validate.c $(top_srcdir)/oci/spec-emit.c \
	$(top_srcdir)/oci/spec-free.c $(top_srcdir)/oci/spec-equal.c $(top_srcdir)/oci/state.c \
	$(top_srcdir)/src/libcvisor/base/error.c $(top_srcdir)/src/libcvisor/base/io.c

tests/fuzz/fuzz_%: $(top_srcdir)/tests/fuzz/fuzz_%.c $(FUZZ_CODE) $(top_srcdir)/oci/spec.h $(top_srcdir)/oci/state.h $(top_srcdir)/oci/json.h
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CC)$(FUZZ_CC) -std=gnu11 $(FUZZ_FLAGS) $(FUZZ_CPPFLAGS) -o $@ $< $(FUZZ_CODE) $(YAJL_LIBS)

fuzz: $(FUZZ_TARGETS:%=tests/fuzz/%)

# New inputs go to a scratch corpus in the build tree, never to the seeds.
fuzz-run: fuzz
	@set -e; for t in $(FUZZ_TARGETS); do \
	  $(MKDIR_P) tests/fuzz/work/$$t tests/fuzz/artifacts; \
	  echo "fuzz-run: $$t for $(FUZZ_SECONDS)s (log: tests/fuzz/$$t.log)"; \
	  if ./tests/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix=tests/fuzz/artifacts/$$t- \
	    tests/fuzz/work/$$t $(top_srcdir)/tests/fuzz/corpus/$$t >tests/fuzz/$$t.log 2>&1; then \
	    grep -E '^(Done|stat::number_of_executed_units)' tests/fuzz/$$t.log || true; \
	  else \
	    tail -n 60 tests/fuzz/$$t.log; echo "fuzz-run: $$t found a problem"; exit 1; \
	  fi; \
	done

clean-local: clean-fuzz
clean-fuzz:
	rm -rf $(FUZZ_TARGETS:%=tests/fuzz/%) tests/fuzz/work tests/fuzz/artifacts

.PHONY: fuzz fuzz-run clean-fuzz
EXTRA_DIST += tests/fuzz/corpus tests/fuzz/fuzz_config.c tests/fuzz/fuzz_process.c tests/fuzz/fuzz_state.c
# sandbox policy
FUZZ_TARGETS += fuzz_policy
FUZZ_CODE += $(top_srcdir)/src/libcvisor/sandbox/policy.c
EXTRA_DIST += tests/fuzz/fuzz_policy.c
# the D-Bus reader of the systemd cgroup driver
FUZZ_TARGETS += fuzz_dbus
FUZZ_CODE += $(top_srcdir)/src/libcvisor/cgroups/dbus.c
EXTRA_DIST += tests/fuzz/fuzz_dbus.c
# .gitignore / .dockerignore rules
FUZZ_TARGETS += fuzz_ignore
FUZZ_CODE += $(top_srcdir)/src/libcvisor/files/ignore.c
EXTRA_DIST += tests/fuzz/fuzz_ignore.c
# archive extraction (the cache restore): its own rule, since only it
# links libarchive; the other targets keep the common FUZZ_CODE
FUZZ_TARGETS += fuzz_archive
FUZZ_ARCHIVE_CODE = $(top_srcdir)/src/libcvisor/files/archive.c $(top_srcdir)/src/libcvisor/base/error.c \
	$(top_srcdir)/src/libcvisor/base/io.c $(top_srcdir)/src/libcvisor/base/log.c
tests/fuzz/fuzz_archive: $(top_srcdir)/tests/fuzz/fuzz_archive.c $(FUZZ_ARCHIVE_CODE) $(top_srcdir)/src/libcvisor/files/archive.h
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CC)$(FUZZ_CC) -std=gnu11 $(FUZZ_FLAGS) $(FUZZ_CPPFLAGS) $(ARCHIVE_CFLAGS) -o $@ $< $(FUZZ_ARCHIVE_CODE) $(ARCHIVE_LIBS)
EXTRA_DIST += tests/fuzz/fuzz_archive.c
