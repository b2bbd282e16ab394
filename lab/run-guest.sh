#!/bin/bash
# run-guest.sh - boot one Linux guest with Soft-RoCE (rdma_rxe) and rdma-core, run a scenario script in
# it, power off. Non-interactive; the guest's console and the scenario's output land on the host.
#
# usage: run-guest.sh [-n JOB] [-i IP/CIDR] [-t TAP|none] [-m MEM_MB] [-c CPUS] [-T TIMEOUT_S] SCRIPT [ARGS...]
#   SCRIPT   a scenario: a path to a bash script on the host, or a name in guest/scenarios/. It runs as
#            root in the guest (source /lab/guest/scenarios/lib.sh for rxe_up, gid_idx, post, wait_for).
#   -t TAP   tap0..tap2 put the guest on bridge br0 in netns "rxelab" (host side 10.77.0.1; see netns.sh);
#            "none" gives the guest no network.
#   LAB_SHARES="tag=/host/dir[:ro] ..."  more host folders, mounted in the guest at /mnt/TAG (9p), e.g.
#            jdk=/usr/lib/jvm/temurin-25-jdk-amd64:ro proj=$PWD
#   LAB_TIMEOUT_SCALE=N  passed to the guest: the factor of every limit in lib.sh's helpers (default 5).
#   LAB_SHARE=/host/dir  the folder the guest sees as /lab (default $RXELAB/share); give each concurrent
#            run its own so that one run's scenarios and barriers never meet another's.
#   LAB_TCG_THREAD=multi|single  qemu's TCG with a host thread per vCPU (default) or one for all of them
#            (lab/README "A JVM crash that is the emulator's").
# Output: $LAB_SHARE/run/JOB.console.log (kernel console), JOB.guest.log (scenario output), JOB.rc
# (its exit code); the scenario sees $RXELAB/share as /lab and may write under /lab/captures.
set -euo pipefail
LAB=$(cd "$(dirname "$0")" && pwd)
W=${RXELAB:-${XDG_CACHE_HOME:-$HOME/.cache}/rxelab}
[ -f "$W/rootfs.img" ] || { echo "run-guest.sh: no guest image in $W: run build.sh first" >&2; exit 1; }
JOB=vma IP=10.77.0.11/24 TAP=tap0 MEM=1024 CPUS=1 TMO=900
while getopts "n:i:t:m:c:T:" o; do case $o in
  n) JOB=$OPTARG;; i) IP=$OPTARG;; t) TAP=$OPTARG;; m) MEM=$OPTARG;; c) CPUS=$OPTARG;;
  T) TMO=$OPTARG;; *) sed -n 2,15p "$0"; exit 2;; esac; done
shift $((OPTIND-1))
SCRIPT=${1:?scenario script}; shift || true
SH=${LAB_SHARE:-$W/share}
mkdir -p "$SH/run" "$SH/captures" "$SH/guest/scenarios"
cp "$LAB"/guest/scenarios/*.sh "$SH/guest/scenarios/"
if [ -f "$SCRIPT" ]; then cp "$SCRIPT" "$SH/guest/scenarios/"; SCRIPT=$(basename "$SCRIPT"); fi
[ -f "$SH/guest/scenarios/$SCRIPT" ] || { echo "run-guest.sh: no scenario $SCRIPT" >&2; exit 2; }
rm -f "$SH/run/$JOB".{rc,guest.log,console.log}
{ echo "LAB_JOB=$JOB"; echo "LAB_IP=$IP"; echo "LAB_SCRIPT=$SCRIPT"; echo "LAB_ARGS=\"$*\""
  [ -n "${LAB_TIMEOUT_SCALE:-}" ] && echo "LAB_TIMEOUT_SCALE=$LAB_TIMEOUT_SCALE"; } > "$SH/run/$JOB.env"
EXTRA=(); MOUNTS=""
for s in ${LAB_SHARES:-}; do
  tag=${s%%=*}; dir=${s#*=}; ro=""; case $dir in *:ro) dir=${dir%:ro}; ro=",readonly=on";; esac
  EXTRA+=(-virtfs "local,path=$dir,mount_tag=$tag,security_model=none,id=$tag$ro"); MOUNTS="$MOUNTS $tag"
done
echo "LAB_MOUNTS=\"$MOUNTS\"" >> "$SH/run/$JOB.env"
last=${IP%%/*}; last=${last##*.}
MAC=$(printf '52:54:00:77:00:%02x' "$last")
NET=(); NS=()
if [ "$TAP" != none ]; then
  "$LAB/netns.sh" up
  NET=(-netdev "tap,id=n0,ifname=$TAP,script=no,downscript=no" -device "virtio-net-pci,netdev=n0,mac=$MAC")
  NS=(ip netns exec rxelab)
fi
echo "[$(date +%T)] boot $JOB (tcg ${LAB_TCG_THREAD:-multi}, ${CPUS}cpu, ${MEM}M, ip=$IP tap=$TAP) scenario=$SCRIPT $*"
t0=$SECONDS
set +e
"${NS[@]}" timeout "$TMO" qemu-system-x86_64 -nodefaults -display none -no-reboot \
  -accel "tcg,thread=${LAB_TCG_THREAD:-multi}" -cpu max -m "$MEM" -smp "$CPUS" \
  -kernel "$W/vmlinuz" -initrd "$W/initrd.gz" \
  -append "console=ttyS0 panic=-1 loglevel=4 lab.job=$JOB" \
  -drive "file=$W/rootfs.img,if=virtio,format=raw,snapshot=on" \
  -virtfs "local,path=$SH,mount_tag=lab,security_model=none,id=lab" \
  "${EXTRA[@]}" "${NET[@]}" \
  -serial "file:$SH/run/$JOB.console.log" </dev/null
qrc=$?
set -e
rc=$(cat "$SH/run/$JOB.rc" 2>/dev/null || echo none)
echo "[$(date +%T)] $JOB: qemu exit $qrc after $((SECONDS-t0))s, scenario rc=$rc"
[ "$rc" = 0 ]
