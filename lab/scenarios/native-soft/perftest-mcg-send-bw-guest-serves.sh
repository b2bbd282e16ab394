# perftest's -g with rdma4j on both sides: rdma4j perf ib_send_bw -g serves in the guest through the native provider
# on rxe0 (it joins the run's group ::ffff:239.G.3.2 through librdmacm, so the guest's IP stack takes the group's
# datagrams, then attaches its QP); rdma4j perf ib_send_bw -g on the host's soft device sends to the group. Both
# print perftest's result table. (perftest's own server on rxe only attaches, and receives nothing: lab/README.md.)
guest_side() { pt_guest_serves_guest send_bw -g -M "$(pt_mgid 239.77.3.2)" -s 1024 -n 1000 -r 1000; }
host_side() { pt_guest_serves_host send_bw -g -M "$(pt_mgid 239.77.3.2)" -s 1024 -n 1000 -r 1000; }
