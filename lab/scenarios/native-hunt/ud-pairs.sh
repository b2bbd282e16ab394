# HUNT_RUNS (default 40) native ud_pingpong pairs of 3000 exchanges in the guest, counting the JVMs that crash
# (lab/README "A JVM crash that is the emulator's"): a crashed side's partner is stopped and the next pair
# starts; each crash leaves its hs_err file with the run's results. Fails if any pair crashed or failed.
TIMEOUT=3000
guest_side() { local i o1 o2 rc src crashes=0 failures=0
  for i in $(seq 1 "${HUNT_RUNS:-40}"); do
    o1=$(mktemp); o2=$(mktemp)
    serve "$o1" with_tools native g_pingpong ud -n 3000 -s 1000
    if ! wait_tcp_listen "$PP_PORT"; then
      kill "$SERVER_PID" 2>/dev/null; wait
      grep -q SIGSEGV "$o1" && crashes=$((crashes + 1)) || failures=$((failures + 1))
      log "HUNT $i: the server never listened; crashes so far $crashes"; continue
    fi
    client "$o2" with_tools native g_pingpong ud -n 3000 -s 1000 "$GUEST_IP"; rc=$?
    [ $rc = 0 ] || kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID"; src=$?; wait
    if grep -q SIGSEGV "$o1" "$o2"; then crashes=$((crashes + 1))
    elif [ $rc != 0 ] || [ $src != 0 ]; then failures=$((failures + 1)); fi
    log "HUNT $i: client rc=$rc server rc=$src; crashes so far $crashes, other failures $failures"
  done
  log "HUNT DONE: $crashes crashes and $failures other failures in ${HUNT_RUNS:-40} pairs"
  [ $crashes = 0 ] && [ $failures = 0 ]; }
