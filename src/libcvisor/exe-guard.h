/* CVE-2019-5736: the runtime binary must never be writable through a
 * process that a container can reach. See exe-guard.c. */
#ifndef CVISOR_EXE_GUARD_H
#define CVISOR_EXE_GUARD_H

#include "error.h"

/* 0 when the running image cannot be written through /proc/PID/exe (a
 * sealed memfd copy, or a file on a read-only mount); otherwise an error
 * saying why the guard could not be set up. Called by create, run and exec
 * before they clone anything into a container. */
int cv_exe_guard_check(cv_error_t *err);

#endif
