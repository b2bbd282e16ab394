/**
 * rdma-core's C structs as FFM layouts: one class per struct ({@code struct ibv_qp} is
 * {@link io.rdma4j.rdmacore.abi.IbvQp}, {@code struct rdma_cm_id} is {@link io.rdma4j.rdmacore.abi.RdmaCmId},
 * ...), each member declared in its header's order and placed by {@link io.rdma4j.rdmacore.abi.CLayout}'s
 * LP64 rules. The layout test compiles a C program against the installed headers and compares every declared
 * offset and size.
 * <p>
 * <b>Arrows.</b> The bottom of the module: it imports nothing of rdma4j, only {@code java.lang.foreign}. The
 * verbs objects ({@code io.rdma4j.rdmacore}) and the connection manager ({@code cm}) read and write the
 * structs through it.
 */
package io.rdma4j.rdmacore.abi;
