#!/bin/bash
# bench.sh: the JMH benchmark of the native data path (post + poll through FFM) in a lab guest, against rxe0.
#
# Host side, from the repository root, after `mvn install -DskipTests -pl rdma4j-bench -am`:
#   LAB_SHARES="jdk=/usr/lib/jvm/temurin-25-jdk-amd64:ro proj=$PWD:ro" \
#     /work/shared/lab/run-guest.sh -n native -i 10.77.0.11/24 -t tap0 -m 2048 -c 2 \
#     rdma4j-rdmacore/src/test/lab/bench.sh [JMH OPTIONS]
# Default JMH options: NativePostPoll -prof gc. The results land in the guest log.
. /lab/guest/scenarios/lib.sh
rxe_up
ulimit -l unlimited
B=/mnt/proj/rdma4j-bench/target
ARGS=("$@")
[ ${#ARGS[@]} -gt 0 ] || ARGS=(NativePostPoll -prof gc)
/mnt/jdk/bin/java --enable-native-access=ALL-UNNAMED -cp "$B/rdma4j-bench-0.1.0-SNAPSHOT.jar:$B/lib/*" \
  org.openjdk.jmh.Main "${ARGS[@]}"
