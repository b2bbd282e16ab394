/**
 * The verbs, named as libibverbs names them so that a C user finds everything: {@link io.rdma4j.verbs.Verbs}
 * lists the {@link io.rdma4j.verbs.Device}s, a device opens a {@link io.rdma4j.verbs.Context}, and a context
 * makes the {@link io.rdma4j.verbs.ProtectionDomain}s, {@link io.rdma4j.verbs.CompletionChannel}s and
 * {@link io.rdma4j.verbs.CompletionQueue}s under which {@link io.rdma4j.verbs.MemoryRegion}s,
 * {@link io.rdma4j.verbs.QueuePair}s, {@link io.rdma4j.verbs.SharedReceiveQueue}s and
 * {@link io.rdma4j.verbs.AddressHandle}s live. Attributes are records and enums; work requests
 * ({@link io.rdma4j.verbs.SendWr}, {@link io.rdma4j.verbs.RecvWr}) and completions
 * ({@link io.rdma4j.verbs.WorkCompletion}) are reusable objects the caller owns, so the data path allocates
 * nothing; a failure is an {@link io.rdma4j.verbs.RdmaException} carrying an {@link io.rdma4j.verbs.Errno}.
 * <p>
 * <b>Arrows.</b> Interfaces and value types over the JDK alone, with one arrow out: {@code Verbs} finds the
 * engines through {@code io.rdma4j.spi}'s {@code RdmaProvider}, which hands out this package's devices. That
 * pair of arrows is the API's one allowed package cycle (with {@code io.rdma4j.cm}, whose channels the
 * providers also hand out), listed in the API's package cycle test. This package never imports
 * {@code io.rdma4j.cm}, which builds on it. The engines' verbs objects ({@code io.rdma4j.soft},
 * {@code io.rdma4j.rdmacore}) implement it; the rest of those engines, the tools, the Netty transport, the
 * examples and the benchmarks use it.
 */
package io.rdma4j.verbs;
