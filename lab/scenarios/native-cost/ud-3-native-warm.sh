# cost of the binding: ud_pingpong with rdma4j native on both sides after a warm-up of 20000 untimed exchanges
# (--warmup), so the figure is the JIT-compiled loop's, as the C tool's is its compiled loop's
TIMEOUT=480
guest_side() { pp_pair native native ud -n 500 -s 1000 --warmup 20000; }
