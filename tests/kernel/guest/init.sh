#!/bin/sh
# The initramfs's /init in the gpio-sim guest (tests/kernel/run.sh fills in
# @MODS@, @LINES@, @LABEL@). Loads virtio/9p/configfs/overlay and gpio-sim,
# makes a gpio-sim chip shaped like a Pi's, mounts this machine's root read-only
# over 9p under a RAM overlay (so /etc and /var can be written, as on a Pi, and
# nothing reaches the host), the run's output directory at /uno-out, and hands
# over to the host's own systemd as PID 1. systemd starts only uno-gpio.target
# (the kernel command line says so): the test suite as a service, which powers
# the guest off when it ends.
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in @MODS@; do insmod /mods/$m.ko || echo "init: insmod $m failed"; done
mount -t configfs none /sys/kernel/config
C=/sys/kernel/config/gpio-sim/pi
mkdir $C $C/bank0
echo @LINES@ > $C/bank0/num_lines
echo @LABEL@ > $C/bank0/label
i=0
while [ $i -lt @LINES@ ]; do mkdir $C/bank0/line$i; echo GPIO$i > $C/bank0/line$i/name; i=$((i+1)); done
echo 1 > $C/live
echo "init: gpio-sim chip $(cat $C/bank0/chip_name 2>/dev/null) ($(cat $C/dev_name 2>/dev/null)) is live at $(cut -d" " -f1 /proc/uptime) s"

mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot /host
mount -t tmpfs -o mode=0755 rw /rw
mkdir -p /rw/upper /rw/work /root
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /root \
    || { echo "init: cannot mount the overlay root"; echo GUEST_RC=1; poweroff -f; }
mkdir -p /root/uno-out
# This machine is a container; the guest is not (systemd would otherwise skip
# the kernel command line, and with it systemd.unit=).
rm -f /root/.dockerenv /root/run/.containerenv
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /root/uno-out
# The run's units (run.sh wrote them, paths filled in), as if installed on the Pi.
cp /root/uno-out/units/* /root/etc/systemd/system/
for d in proc sys dev; do mount --move /$d /root/$d; done
# Fresh temporary folders, as at a Pi's boot (systemd-tmpfiles would otherwise
# empty this machine's /tmp into the overlay, file by file over 9p).
for d in tmp var/tmp; do mount -t tmpfs -o mode=1777 tmp /root/$d; done
# A checkout under one of them (a CI clone in /tmp) is bound back in, read-only.
checkout=$(cat /root/uno-out/checkout)
case $checkout in
    /tmp/*|/var/tmp/*) mkdir -p /root$checkout && mount --bind /host$checkout /root$checkout ;;
esac
# gpiozero reads the board revision here (a Pi 4 B); rpi-lgpio reads RPI_LGPIO_REVISION.
printf 'Revision\t: c03114\n' > /root/etc/uno-cpuinfo
mount --bind /root/etc/uno-cpuinfo /root/proc/cpuinfo
exec switch_root /root /lib/systemd/systemd
