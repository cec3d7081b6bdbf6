# hooks: OCI hook programs shipped with cvisor, installed to $(libexecdir)/cvisor
# (CVISOR_LIBEXECDIR in the code).
hookexecdir = $(libexecdir)/cvisor
hookexec_PROGRAMS = hooks/cvisor-slirp
hooks_cvisor_slirp_SOURCES = hooks/cvisor-slirp.c
hooks_cvisor_slirp_LDADD = libcvisor-core.la $(DEPS_LIBS)
