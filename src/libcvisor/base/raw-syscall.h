/* System calls that leave errno alone, for code that runs where the C
 * library's per-thread state is not its own: before the C library starts
 * (the exe-guard's entry point), or in a task that shares the caller's
 * memory and thread pointer, so its errno (the network namespace helper).
 * They return what the kernel returns: -errno on failure.
 * CV_HAVE_RAW_SYSCALL is 0 on architectures not written here; callers then
 * take another way. */
#ifndef CVISOR_RAW_SYSCALL_H
#define CVISOR_RAW_SYSCALL_H

#if defined(__x86_64__)
#define CV_HAVE_RAW_SYSCALL 1
static inline __attribute__((no_stack_protector)) long cv_raw_syscall6(long n, long a, long b, long c, long d, long e,
								       long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
#define CV_HAVE_RAW_SYSCALL 1
static inline __attribute__((no_stack_protector)) long cv_raw_syscall6(long n, long a, long b, long c, long d, long e,
								       long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory", "cc");
	return x0;
}
#else
#define CV_HAVE_RAW_SYSCALL 0
#endif

#if CV_HAVE_RAW_SYSCALL
#define cv_raw_syscall1(n, a) cv_raw_syscall6((n), (long)(a), 0, 0, 0, 0, 0)
#define cv_raw_syscall3(n, a, b, c) cv_raw_syscall6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define cv_sys6 cv_raw_syscall6
#else
#include <errno.h>
#include <unistd.h>
/* Elsewhere the C library's, which sets errno: for code that is raw where
 * it can be and, without raw system calls, is never run where errno is
 * shared (a fork instead of a task sharing memory). */
static inline long cv_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(n, a, b, c, d, e, f);
	return r < 0 ? -errno : r;
}
#endif
/* the kernel's sigset_t (64 signals), for rt_sig* calls */
#define CV_KERNEL_SIGSET_SIZE 8
/* -errno on failure, errno untouched where CV_HAVE_RAW_SYSCALL */
#define cv_sys(n, a, b, c) cv_sys6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define cv_sys4(n, a, b, c, d) cv_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

#endif
