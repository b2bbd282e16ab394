# perftest's -g: rdma4j perf ib_send_bw -g (UD SEND stream to a multicast group, 1 KiB) serves on the host's soft
# device, joins the run's group ::ffff:239.G.3.1 and hands its MGID and QPN 0xffffff in its dest; perftest's
# ib_send_bw -g in the guest on rxe0 sends to the group (an IPv4 multicast datagram on the bridge). Both print
# perftest's result table. The other role cannot run: a QP that perftest attaches on rxe never receives (lab/README.md).
host_side() { pt_host_serves_host send_bw -g -M "$(pt_mgid 239.77.3.1)" -s 1024 -n 1000 -r 1000; }
guest_side() { pt_host_serves_guest send_bw -g -M "$(pt_mgid 239.77.3.1)" -s 1024 -n 1000 -r 1000; }
