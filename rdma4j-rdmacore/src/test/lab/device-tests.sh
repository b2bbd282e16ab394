#!/bin/bash
# device-tests.sh: rdma4j-rdmacore's device tests (JUnit) in a lab guest, against rxe0 on eth0.
#
# Host side, from the repository root, after building (mvn install, or test-compile of rdma4j-rdmacore -am):
#   LAB_SHARES="jdk=/usr/lib/jvm/temurin-25-jdk-amd64:ro proj=$PWD m2=$HOME/.m2/repository:ro" \
#     /work/shared/lab/run-guest.sh -n native -i 10.77.0.11/24 -t tap0 -m 2048 -c 2 \
#     rdma4j-rdmacore/src/test/lab/device-tests.sh [JUNIT CONSOLE OPTIONS, e.g. --select-class=io.rdma4j.rdmacore.NativeRcTest]
# The m2 share must hold org.junit.platform:junit-platform-console-standalone (mvn dependency:get fetches it).
# Results: the guest log, and JUnit's XML report under $RXELAB/share/run/$LAB_JOB-junit/.
. /lab/guest/scenarios/lib.sh
rxe_up
# rxe sends a group's datagrams through the IP stack: give multicast a route on the RDMA netdev
ip route add 224.0.0.0/4 dev eth0 2>/dev/null || true
ulimit -l unlimited
P=/mnt/proj
JUNIT=$(ls /mnt/m2/org/junit/platform/junit-platform-console-standalone/*/junit-platform-console-standalone-*.jar | tail -1)
[ -f "$JUNIT" ] || { log "no junit-platform-console-standalone in /mnt/m2"; exit 2; }
CP=$P/rdma4j-api/target/classes:$P/rdma4j-soft/target/classes:$P/rdma4j-rdmacore/target/classes:$P/rdma4j-rdmacore/target/test-classes
run_junit() { # NAME JVM-OPTIONS... -- JUNIT-OPTIONS...
  local name=$1; shift; local jvm=()
  while [ "$1" != -- ]; do jvm+=("$1"); shift; done; shift
  /mnt/jdk/bin/java -Xss1m --enable-native-access=ALL-UNNAMED "${jvm[@]}" -jar "$JUNIT" execute --disable-banner \
    --details=tree --class-path="$CP" --exclude-classname='.*(LayoutTest|NoLibraryTest)' \
    --reports-dir=/lab/run/${LAB_JOB:-native}-junit/$name "$@"
}
log "java: $(/mnt/jdk/bin/java -version 2>&1 | head -1); device: $(ibv_devices | tail -n +3 | tr -s ' ' | tr '\n' ' ')"
if [ $# -gt 0 ]; then
  run_junit selected -- "$@"
  exit $?
fi
rc=0
run_junit device -- --select-package=io.rdma4j.rdmacore --exclude-classname='.*DataPathAllocationTest' || rc=1
# the allocation test runs with C1 only, as in the module's pom: every per-operation object is counted
run_junit allocation -XX:TieredStopAtLevel=1 -- --select-class=io.rdma4j.rdmacore.NativeDataPathAllocationTest || rc=1
exit $rc
