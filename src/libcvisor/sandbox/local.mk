# sandbox: cvisor's own layer over the runtime: the policy format
# (policy.c), policy -> config.json (sandbox.c), and the supervisor of
# `cvisor do` (supervisor.c: timeout, output caps, report, cleanup; relay.c:
# the copies of the program's stdio; watcher.c: the cleanup should the
# supervisor die); do.c: its public calls (cvisor_do...);
# the library's persistent sandboxes: keeper.c (the process holding one),
# agent.c (the file agent run inside it, the program cvisor-agent),
# sandbox-api.c (the CvisorSandbox calls).
libcvisor_core_la_SOURCES += \
	src/libcvisor/sandbox/policy.c src/libcvisor/sandbox/policy.h \
	src/libcvisor/sandbox/sandbox.c src/libcvisor/sandbox/sandbox.h \
	src/libcvisor/sandbox/supervisor.c src/libcvisor/sandbox/supervisor.h \
	src/libcvisor/sandbox/watcher.c src/libcvisor/sandbox/watcher.h \
	src/libcvisor/sandbox/relay.c src/libcvisor/sandbox/relay.h \
	src/libcvisor/sandbox/do.c \
	src/libcvisor/sandbox/keeper.c src/libcvisor/sandbox/keeper.h \
	src/libcvisor/sandbox/agent.c \
	src/libcvisor/sandbox/sandbox-api.c
dist_man_MANS += man/cvisor-sandbox.3
