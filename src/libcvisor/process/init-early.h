/* The runtime's image as a sandbox's init (init.h), started afresh: for a
 * run with a memory limit whose container process shared the runtime's
 * memory (lifecycle/shared-launch.h). Such an init would keep the runtime's
 * whole image as its RSS, the likeliest victim of the sandbox's OOM killer,
 * which kills every process sharing its victim's memory: the runtime too.
 * Executed again, the init has a few pages of its own.
 *
 * The container process (cv_init_exec) clones the program's process, which
 * waits at a gate (a pipe), then executes the runtime's image as
 *   cvisor-init CV_INIT_EARLY_VERB PROGRAM_PID STATUS_FD GATE_FD LATE_FD
 * The image's entry point (exe-guard-early.c, before the C library starts)
 * hands that to cv_init_early: not dumpable first, then one byte through
 * the gate (the program starts only now: it never meets a dumpable init),
 * every fd closed but STATUS_FD (LATE_FD, the container process's procfs,
 * last), and the init's loop (init-loop.h). Anything else, or a process
 * that is no pid namespace's init, returns to the C library's start. */
#ifndef CVISOR_INIT_EARLY_H
#define CVISOR_INIT_EARLY_H

#define CV_INIT_EARLY_VERB "sandbox-init"

/* Never returns when ARGV is the init's command line, run as a pid
 * namespace's init. x86-64 static binaries only (EARLY_ENTRY). */
void cv_init_early(int argc, char **argv);

#endif
