/* linux.memoryPolicy: the NUMA memory policy of the container's init,
 * set with set_mempolicy(2) (no libnuma). Children inherit it over fork
 * and execve; exec's processes do not get it (runc's rule: it belongs to
 * the container's init). */
#ifndef CVISOR_MEMPOLICY_H
#define CVISOR_MEMPOLICY_H

#include "error.h"
#include "oci/spec.h"

/* Refuses, before anything is made, what the kernel always refuses: a
 * bad node list, nodes with MPOL_DEFAULT or MPOL_LOCAL, no nodes with a
 * mode that needs them, MPOL_F_STATIC_NODES with MPOL_F_RELATIVE_NODES,
 * node flags without nodes. What depends on the host (nodes online, modes
 * of newer kernels) is left to the kernel's answer. */
int cv_mempolicy_validate(const oci_memory_policy *mp, cv_error_t *err);
/* set_mempolicy of the calling thread; nothing when MP is NULL. */
int cv_mempolicy_apply(const oci_memory_policy *mp, cv_error_t *err);

#endif
