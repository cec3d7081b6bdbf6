# libcvisor: the runtime as a library, one folder per concern. Dependencies
# run one way: base <- oci <- every folder here <- the CLI (through
# src/include/cvisor.h). Each folder's local.mk says what it owns.
include src/libcvisor/base/local.mk
include src/libcvisor/process/local.mk
include src/libcvisor/fs/local.mk
include src/libcvisor/cgroups/local.mk
include src/libcvisor/seccomp/local.mk
include src/libcvisor/lifecycle/local.mk
include src/libcvisor/sandbox/local.mk
include src/libcvisor/files/local.mk
