# gRPC's hello-world over rdma4j's Netty transport: the host's server on the soft device, the guest's client on
# rxe0 through the native provider (a unary call and a streaming one, each greeting checked)
TIMEOUT=240
guest_side() { grpc_client_side "$HOST_IP" "$GUEST_IP"; }
host_side() { grpc_server_side "$HOST_IP"; }
