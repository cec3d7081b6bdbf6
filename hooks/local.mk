# hooks: OCI hook programs shipped with cvisor, installed to $(libexecdir)/cvisor
# (CVISOR_LIBEXECDIR in the code).
hookexecdir = $(libexecdir)/cvisor
hookexec_PROGRAMS = hooks/cvisor-slirp
hooks_cvisor_slirp_SOURCES = hooks/cvisor-slirp.c
# it reads the state JSON on stdin: oci and base only
hooks_cvisor_slirp_CPPFLAGS = $(BASE_CPPFLAGS) -I$(top_srcdir)
hooks_cvisor_slirp_LDADD = libcvisor-oci.la libcvisor-base.la $(YAJL_LIBS)
