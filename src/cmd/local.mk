# The command line: main plus one file per verb. It sees base, the public
# API (src/include: cvisor.h, and cvisor-binary.h for main) and itself, never
# a library folder: each verb parses its flags and makes one library call.
# (The exe-guard's two files above include only their own folder's
# exe-guard.h, which a quoted include finds beside them.)
src_cvisor_CPPFLAGS = $(BASE_CPPFLAGS) -I$(top_srcdir)/src/include -I$(top_srcdir)/src/cmd
src_cvisor_SOURCES += src/cvisor.c src/include/cvisor-binary.h \
	src/cmd/cmd.h src/cmd/common.c src/cmd/create-flags.h \
	src/cmd/create.c src/cmd/start.c src/cmd/run.c src/cmd/state.c \
	src/cmd/kill.c src/cmd/delete.c src/cmd/exec.c src/cmd/ps.c \
	src/cmd/list.c src/cmd/pause.c src/cmd/resume.c src/cmd/spec.c \
	src/cmd/features.c
# the cgroup verbs
src_cvisor_SOURCES += src/cmd/update.c src/cmd/events.c
dist_man_MANS += man/cvisor.8
# the sandbox
src_cvisor_SOURCES += src/cmd/do.c
dist_man_MANS += man/cvisor-do.1
