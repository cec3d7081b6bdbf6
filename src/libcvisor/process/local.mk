# process: the container process itself, from clone to execve: the
# parent/child sync protocol, namespaces (plans, joins, id maps), user and
# capabilities, the process attributes (rlimits, scheduler, ioprio, oom
# score...), the NUMA memory policy, its console, users from /etc/passwd, and the minimal init it
# can stay as (init.c, init-loop.h; init-image.c, the init as a program of
# its own, is the binary's: see Makefile.am). create's and exec's processes end in the same
# steps (finish.c: cv_process_finish).
libcvisor_core_la_SOURCES += \
	src/libcvisor/process/process.c src/libcvisor/process/process.h \
	src/libcvisor/process/finish.c \
	src/libcvisor/process/process-attrs.c src/libcvisor/process/process-attrs.h \
	src/libcvisor/process/mempolicy.c src/libcvisor/process/mempolicy.h \
	src/libcvisor/process/namespaces.c src/libcvisor/process/namespaces.h \
	src/libcvisor/process/caps.c src/libcvisor/process/caps.h \
	src/libcvisor/process/console.c src/libcvisor/process/console.h \
	src/libcvisor/process/init.c src/libcvisor/process/init.h src/libcvisor/process/init-loop.h \
	src/libcvisor/process/sync.c src/libcvisor/process/sync.h \
	src/libcvisor/process/passwd.c src/libcvisor/process/passwd.h
