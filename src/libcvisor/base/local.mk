# base: what every other module uses and that depends on nothing of ours:
# error objects (error.h), the log sink (log.h), the cleanup attributes
# (cleanup.h), whole reads and writes of fds and files (io.h), unix
# sockets and fd passing (unix-socket.h), monotonic time (clock.h), system
# calls that leave errno alone (raw-syscall.h) and the
# PATH lookup of helper programs (find-program.h).
# Built alone, with only its own include path, so it cannot reach another
# module's header.
libcvisor_base_la_SOURCES = \
	src/libcvisor/base/cleanup.h src/libcvisor/base/clock.h \
	src/libcvisor/base/error.c src/libcvisor/base/error.h \
	src/libcvisor/base/find-program.c src/libcvisor/base/find-program.h \
	src/libcvisor/base/io.c src/libcvisor/base/io.h \
	src/libcvisor/base/log.c src/libcvisor/base/log.h \
	src/libcvisor/base/raw-syscall.h \
	src/libcvisor/base/unix-socket.c src/libcvisor/base/unix-socket.h
