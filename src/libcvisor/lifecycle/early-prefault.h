/* The static binary's pages made before the C library starts
 * (early-prefault.c). */
#ifndef CVISOR_EARLY_PREFAULT_H
#define CVISOR_EARLY_PREFAULT_H

void cv_early_prefault(void);

#endif
