# native rdma4j in the guest (rxe0 through the native provider) against soft rdma4j on the host: the
# soft-rdmacore scenarios with rdma4j's tools in place of rdma-core's on the guest's side
GUEST_TOOLS=native
