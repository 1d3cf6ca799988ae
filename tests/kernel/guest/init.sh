#!/bin/sh
# PID 1 of the gpio-sim guest (tests/kernel/run.sh fills in @MODS@, @LINES@, @LABEL@).
# Loads virtio/9p/configfs and gpio-sim, makes a gpio-sim chip shaped like a
# Pi's, mounts the host's root read-only at /host and the run's output
# directory at /host/run/out, and runs /run/out/guest.sh chrooted into /host.
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in @MODS@; do insmod /mods/$m.ko || echo "init: insmod $m failed"; done
mount -t configfs none /sys/kernel/config
ifconfig lo 127.0.0.1 up   # the daemon serves TCP on loopback; no other network
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot /host
C=/sys/kernel/config/gpio-sim/pi
mkdir $C $C/bank0
echo @LINES@ > $C/bank0/num_lines
echo @LABEL@ > $C/bank0/label
i=0
while [ $i -lt @LINES@ ]; do mkdir $C/bank0/line$i; echo GPIO$i > $C/bank0/line$i/name; i=$((i+1)); done
echo 1 > $C/live
for d in proc sys dev; do mount --bind /$d /host/$d; done
mount -t tracefs nodev /host/sys/kernel/tracing 2>/dev/null
mount -t tmpfs run /host/run
mkdir /host/run/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /host/run/out
# gpiozero reads the board revision here (a Pi 4 B); rpi-lgpio reads RPI_LGPIO_REVISION.
printf 'Revision\t: c03114\n' > /cpuinfo; mount --bind /cpuinfo /host/proc/cpuinfo
echo "init: gpio-sim chip $(cat $C/bank0/chip_name 2>/dev/null) ($(cat $C/dev_name 2>/dev/null)) is live at $(cut -d" " -f1 /proc/uptime) s"
chroot /host /bin/sh /run/out/guest.sh
echo "GUEST_RC=$?"
poweroff -f
