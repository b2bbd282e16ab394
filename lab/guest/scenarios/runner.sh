#!/bin/bash
# runner.sh SIDE GUEST_IP HOST_IP SUITE SCENARIO... - runs one side of bin/test-rxe's scenarios, in order.
#   SIDE guest: inside the lab guest (the scenario of run-guest.sh); brings rxe0 up first.
#   SIDE host:  on the host inside netns rxelab, with LAB_ROOT = the run's share folder.
# A scenario is $PROJ/lab/scenarios/SUITE/NAME.sh defining guest_side and, when the host takes part,
# host_side (and optionally TIMEOUT, a side's base limit in seconds, default 120, times LAB_TIMEOUT_SCALE). The two sides of a scenario start
# together and the next scenario starts when both have finished: each posts begin.SIDE / end.SIDE barriers
# under $SYNC/NAME, where the scenario's own post/wait_for names live too. Every side runs in a session of
# its own, killed as a whole when it overruns or leaves processes behind. Results: run/results/JOB/NAME.SIDE.rc
# (exit code, "-" when the scenario has no such side), NAME.SIDE.log (its output), NAME.SIDE.secs (duration).
set -u
SIDE=$1 GUEST_IP=$2 HOST_IP=$3 SUITE=$4; shift 4
export SIDE GUEST_IP HOST_IP SUITE
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
OTHER=guest; [ "$SIDE" = guest ] && OTHER=host
if [ "$SIDE" = guest ]; then
  export PROJ=/mnt/proj JAVA_HOME=/mnt/jdk
  ulimit -l unlimited
  rxe_up
  # the host's soft device must not answer for the guest's address, nor the guest's own stack loop
  # rdma_cm traffic meant for the host: nothing to set, eth0 is the guest's only interface
fi
export PROJ JAVA_HOME LAB_ROOT LAB_JOB
RES=$LAB_ROOT/run/results/$LAB_JOB; export RES
mkdir -p "$RES"
SYNC_BASE=$SYNC
pid=
# stopped from outside (the guest is gone): take the running side's session down too
trap '[ -n "$pid" ] && kill -KILL -- -$pid 2>/dev/null; exit 143' TERM INT
for name in "$@"; do
  f=$PROJ/lab/scenarios/$SUITE/$name.sh
  export SYNC=$SYNC_BASE/$name
  post "begin.$SIDE"
  if ! wait_for "begin.$OTHER" 120; then
    echo 124 > "$RES/$name.$SIDE.rc"; log "$name: the $OTHER side never began"; post "end.$SIDE"; continue
  fi
  fn=${SIDE}_side
  base=120; [ -f "$f" ] && base=$(bash -c ". '$f'; echo \${TIMEOUT:-120}")
  tmo=$(scaled "$base")
  if ! [ -f "$f" ]; then
    rc=2; echo "no scenario $f" > "$RES/$name.$SIDE.log"; secs=0
  elif ! bash -c ". '$f'; declare -F $fn >/dev/null"; then
    rc=-; : > "$RES/$name.$SIDE.log"; secs=0
  else
    log "$name: $SIDE side (limit ${tmo}s)"
    t0=$(date +%s%3N)
    env=$PROJ/lab/scenarios/$SUITE/env.sh; [ -f "$env" ] || env=/dev/null
    setsid bash -c "cd /tmp; . '$here/lib.sh'; . '$env'; . '$PROJ/lab/scenarios/lib-tools.sh'; . '$f'; $fn" \
      > "$RES/$name.$SIDE.log" 2>&1 < /dev/null &
    pid=$!
    deadline=$(( $(date +%s) + tmo ))
    while kill -0 $pid 2>/dev/null && [ "$(date +%s)" -lt $deadline ]; do sleep 0.2; done
    if kill -0 $pid 2>/dev/null; then
      echo "runner: $SIDE side overran ${tmo}s, killed" >> "$RES/$name.$SIDE.log"
      kill -TERM -- -$pid 2>/dev/null; sleep 1; kill -KILL -- -$pid 2>/dev/null
      wait $pid 2>/dev/null; rc=124
    else
      wait $pid; rc=$?
    fi
    kill -KILL -- -$pid 2>/dev/null   # whatever the side left running
    ms=$(( $(date +%s%3N) - t0 )); secs=$((ms / 1000)).$(printf %03d $((ms % 1000)))
    log "$name: $SIDE side rc=$rc after ${secs}s"
  fi
  echo "$rc" > "$RES/$name.$SIDE.rc"
  echo "$secs" > "$RES/$name.$SIDE.secs"
  post "end.$SIDE"
  wait_for "end.$OTHER" $((base + 60)) || log "$name: the $OTHER side did not finish"
done
exit 0
