/**
 * The RoCEv2 wire format: flyweights over a buffer for each IBA header (BTH, DETH, RETH, AETH,
 * ImmDt, IETH, AtomicETH, AtomicAckETH), the opcode table as data ({@link io.rdma4j.soft.wire.Opcode},
 * {@link io.rdma4j.soft.wire.OpcodeMask}), the packet parser and builder, and the ICRC with its
 * masked fields ({@link io.rdma4j.soft.wire.Icrc}).
 * <p>
 * <b>Arrows.</b> A leaf: it depends on nothing else of the device, and everything that reads or
 * writes a packet ({@code soft}, {@code transport}) uses it, as does {@code link.linux} for the ICRC.
 * Checked byte for byte against packets Linux rxe sent (the captures in the tests' resources).
 * <p>
 * <b>Threads.</b> No state of its own beyond the flyweight or parser instance a thread holds; any
 * thread, one instance per thread. Parsing and building allocate nothing.
 */
package io.rdma4j.soft.wire;
