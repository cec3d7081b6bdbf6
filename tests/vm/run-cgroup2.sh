#!/usr/bin/env bash
# run-cgroup2.sh: runs one command on a pure cgroup v2 system, inside a
# disposable qemu guest, and returns its output and exit status.
#
#   tests/vm/run-cgroup2.sh [--mem MB] [--timeout SECONDS] -- COMMAND [ARGS...]
#
# The guest boots the host's Debian kernel (linux-image-amd64) under qemu's
# software emulation, mounts the host's root read-only over virtio-9p below a
# tmpfs overlay (so the guest may write anywhere and every change vanishes with
# it), mounts cgroup2 at /sys/fs/cgroup with all its controllers, and runs
# COMMAND through /bin/sh in the current directory as root, in the root cgroup.
# Needs root, qemu-system-x86, linux-image-amd64, busybox-static, cpio, kmod.
# Exit status: COMMAND's, or 125 when the guest did not finish (or cannot boot: 77 = skip).
set -euo pipefail

mem=768 timeout_s=900
while [ $# -gt 0 ]; do
	case $1 in
	--mem) mem=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	echo "usage: $0 [--mem MB] [--timeout S] -- COMMAND [ARGS...]" >&2
	exit 2
fi

missing=""
command -v qemu-system-x86_64 >/dev/null || missing="$missing qemu-system-x86"
command -v cpio >/dev/null || missing="$missing cpio"
command -v modprobe >/dev/null || missing="$missing kmod"
[ -x /bin/busybox ] || missing="$missing busybox-static"
compgen -G '/boot/vmlinuz-*' >/dev/null || missing="$missing linux-image-amd64"
if [ -n "$missing" ]; then
	echo "run-cgroup2: missing packages:$missing (apt-get install$missing)" >&2
	exit 77
fi
[ "$(id -u)" = 0 ] || { echo "run-cgroup2: needs root (qemu reads the whole root filesystem)" >&2; exit 77; }

kernel=$(printf '%s\n' /boot/vmlinuz-* | sort -V | tail -n1)
kver=${kernel#/boot/vmlinuz-}
tmp=$(mktemp -d /tmp/cvisor-vm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
init=$tmp/root
mkdir -p "$init"/bin "$init"/proc "$init"/sys "$init"/dev "$init"/lower "$init"/new "$init"/rw "$init"/ko
cp /bin/busybox "$init"/bin/
for applet in sh mount mkdir insmod chroot cat poweroff cp ln chmod ip; do ln -s busybox "$init/bin/$applet"; done

# Kernel modules the guest needs for virtio-9p and overlayfs, and a RAM disk
# with ext4 for /tmp (below), dependencies first, stored uncompressed
# (busybox insmod cannot decompress).
modlist=""
for f in $(for m in virtio_pci 9pnet_virtio 9p overlay brd ext4; do
	modprobe -S "$kver" --show-depends "$m" 2>/dev/null || true
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
	base=$(basename "$f")
	case $f in
	*.ko.xz) base=${base%.xz}; xz -dc "$f" >"$init/ko/$base" ;;
	*.ko.zst) base=${base%.zst}; zstd -qdc "$f" >"$init/ko/$base" ;;
	*) cp "$f" "$init/ko/$base" ;;
	esac
	modlist="$modlist $base"
done

{
	printf 'cd %q || exit 126\n' "$PWD"
	printf '%q ' "$@"
	printf '\n'
} >"$init/command"

cat >"$init/init" <<EOF_INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $modlist; do
	case \$m in
	brd.ko) insmod /ko/\$m rd_nr=1 rd_size=262144 2>/dev/null ;;
	*) insmod /ko/\$m 2>/dev/null ;;
	esac
done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostroot /lower || { echo "vm: cannot mount the host root"; poweroff -f; }
mount -t tmpfs -o size=512m tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /new || { echo "vm: overlay failed"; poweroff -f; }
mount -t proc proc /new/proc
mount -t sysfs sysfs /new/sys
mount -t devtmpfs devtmpfs /new/dev
mkdir -p /new/dev/pts /new/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /new/dev/pts
mount -t tmpfs tmpfs /new/dev/shm
ln -sf /proc/self/fd /new/dev/fd; ln -sf /proc/self/fd/0 /new/dev/stdin
ln -sf /proc/self/fd/1 /new/dev/stdout; ln -sf /proc/self/fd/2 /new/dev/stderr
mount -t cgroup2 cgroup2 /new/sys/fs/cgroup
# loopback up, as on any host: tests serve on 127.0.0.1
ip link set lo up || { echo "vm: cannot bring up lo"; poweroff -f; }
# /tmp and /var/tmp on ext4 in RAM, as on a host: on this kernel neither
# tmpfs nor overlayfs can be idmapped, which a root caller's cvisor do
# workspace needs
if chroot /new /sbin/mkfs.ext4 -q -F /dev/ram0 >/dev/null 2>&1 && mount -t ext4 /dev/ram0 /new/tmp; then
	chmod 1777 /new/tmp
	mkdir -p /new/tmp/.var-tmp
	chmod 1777 /new/tmp/.var-tmp
	mount -o bind /new/tmp/.var-tmp /new/var/tmp
fi
mount -t tmpfs tmpfs /new/run
mount -t tmpfs tmpfs /new/tmp/.vm-scratch 2>/dev/null || true
cp /command /new/.vm-command
mkdir -p /new/.vm-xfer
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 xfer /new/.vm-xfer || { echo "vm: cannot mount the transfer share"; poweroff -f; }
echo "vm: ready, controllers: \$(cat /new/sys/fs/cgroup/cgroup.controllers)" >/new/.vm-xfer/out
# the overlay becomes the root (moved over the initramfs, as switch_root
# does), not a chroot: the kernel refuses a user namespace to a chrooted
# process, and cvisor do always makes one; paths relative to it from here
cd /new
mount -o move /new /
chroot . /bin/sh /.vm-command </dev/null >>.vm-xfer/out 2>&1
echo "\$?" >.vm-xfer/status
echo "vm: status \$(cat .vm-xfer/status)"
poweroff -f
EOF_INIT
chmod 755 "$init/init"
(cd "$init" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$tmp/initrd"

# The command's output and status come back through a second, writable 9p
# share: the serial console interleaves kernel messages and escapes with it.
mkdir -p "$tmp/xfer"
# no_timer_check: under emulation on a busy host the kernel's IO-APIC timer
# check can miss its ticks and panic the boot ("IO-APIC + timer doesn't
# work"); virtual machines skip that check.
set +e
timeout -k 10 "$timeout_s" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m "$mem" \
	-nographic -no-reboot -kernel "$kernel" -initrd "$tmp/initrd" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap \
	-virtfs local,path="$tmp/xfer",mount_tag=xfer,security_model=none \
	-append "console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check" </dev/null >"$tmp/console" 2>&1
qemu_status=$?
set -e

status=$(cat "$tmp/xfer/status" 2>/dev/null || true)
if [ -z "$status" ]; then
	# what stopped it, first: the console and output tails follow
	if [ "$qemu_status" -eq 124 ] || [ "$qemu_status" -eq 137 ]; then
		why="timed out after $timeout_s s (--timeout)"
	elif grep -q "Kernel panic" "$tmp/console"; then
		why="the guest kernel panicked (qemu exit $qemu_status)"
	else
		why="qemu exit $qemu_status"
	fi
	if [ -s "$tmp/xfer/out" ]; then
		why="$why, while the command ran"
	else
		why="$why, before the command started"
	fi
	echo "run-cgroup2: the guest did not finish: $why; console tail:" >&2
	tr -d '\r' <"$tmp/console" | sed -E 's/\x1b(\[[0-9;?]*[A-Za-z]|c)//g' | tail -n 20 >&2
	echo "run-cgroup2: the command's output, tail:" >&2
	tail -n 20 "$tmp/xfer/out" >&2 2>/dev/null || true
	echo "run-cgroup2: the guest did not finish: $why" >&2
	exit 125
fi
cat "$tmp/xfer/out"
exit "$status"
