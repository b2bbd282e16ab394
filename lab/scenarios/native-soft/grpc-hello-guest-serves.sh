# gRPC's hello-world over rdma4j's Netty transport: the guest's server on rxe0 through the native provider, the
# host's client on the soft device (a unary call and a streaming one, each greeting checked)
TIMEOUT=240
guest_side() { grpc_server_side "$GUEST_IP"; }
host_side() { grpc_client_side "$GUEST_IP" "$HOST_IP"; }
