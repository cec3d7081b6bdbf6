src_cvisor_SOURCES += src/cvisor.c
