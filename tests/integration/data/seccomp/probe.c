/* Seccomp probe for the integration tests, built static at test time and put
 * into the container's rootfs.
 *
 *   probe NAME...
 *
 * Makes each named syscall with harmless arguments and prints "NAME ERRNO"
 * (0 on success). A filter that kills the process ends the output early; a
 * SIGSYS from SCMP_ACT_TRAP is caught and printed as "NAME SIGSYS". */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t trapped;

static void on_sigsys(int sig)
{
	(void)sig;
	trapped = 1;
}

static long i386_getpid(void)
{
	long ret = 20; /* __NR_getpid on i386 */
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	return ret < 0 && ret > -4096 ? (errno = -ret, -1) : ret;
}

static long call(const char *n)
{
	if (!strcmp(n, "getppid"))
		return syscall(SYS_getppid);
	if (!strcmp(n, "mkdir"))
		return syscall(SYS_mkdir, "/tmp/probe-dir", 0755);
	if (!strcmp(n, "unshare"))
		return syscall(SYS_unshare, 0);
	if (!strcmp(n, "unshare-user"))
		return syscall(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */);
	if (!strcmp(n, "keyctl"))
		return syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */, -3 /* session */, 0);
	if (!strcmp(n, "mount"))
		return syscall(SYS_mount, "none", "/nonexistent", "tmpfs", 0, NULL);
	if (!strcmp(n, "personality0"))
		return syscall(SYS_personality, 0);
	if (!strcmp(n, "personality8"))
		return syscall(SYS_personality, 8);
	if (!strcmp(n, "personality1"))
		return syscall(SYS_personality, 1);
	if (!strcmp(n, "ptrace"))
		return syscall(SYS_ptrace, 2 /* PEEKDATA */, 1, 0, 0);
	if (!strcmp(n, "reboot"))
		return syscall(SYS_reboot, 0, 0, 0, 0);
	if (!strcmp(n, "kexec_load"))
		return syscall(SYS_kexec_load, 0, 0, 0, 0);
	if (!strcmp(n, "open_by_handle_at"))
		return syscall(SYS_open_by_handle_at, -1, 0, 0);
	if (!strcmp(n, "bpf"))
		return syscall(SYS_bpf, -1, 0, 0);
	if (!strcmp(n, "clone3"))
		return syscall(SYS_clone3, 0, 0);
	if (!strcmp(n, "socket-netlink-audit"))
		return syscall(SYS_socket, 16, 3, 9);
	if (!strcmp(n, "settimeofday"))
		return syscall(SYS_settimeofday, 0, 0);
	if (!strcmp(n, "nr1000"))
		return syscall(1000);
	if (!strcmp(n, "i386-getpid"))
		return i386_getpid();
	if (!strcmp(n, "x32-getpid"))
		return syscall(0x40000000 | SYS_getpid);
	errno = EINVAL;
	return -2;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigsys };

	sigaction(SIGSYS, &sa, NULL);
	setvbuf(stdout, NULL, _IONBF, 0);
	for (int i = 1; i < argc; i++) {
		long r;
		trapped = 0;
		errno = 0;
		r = call(argv[i]);
		if (r == -2) {
			fprintf(stderr, "probe: unknown probe %s\n", argv[i]);
			return 2;
		}
		if (trapped)
			printf("%s SIGSYS\n", argv[i]);
		else
			printf("%s %d\n", argv[i], r < 0 ? errno : 0);
	}
	return 0;
}
