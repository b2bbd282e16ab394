# cost of the binding: rc_pingpong with rdma4j native on both sides after a warm-up of 5000 untimed exchanges
# (--warmup), so the figure is the JIT-compiled loop's, as the C tool's is its compiled loop's
TIMEOUT=480
guest_side() { pp_pair native native rc -n 500 -s 4096 --warmup 5000; }
