/**
 * The native engine's verbs: rdma-core's libibverbs through the FFM API.
 * <p>
 * <b>What it holds.</b> The device list ({@link io.rdma4j.rdmacore.NativeDevices}, read once per process) and
 * the verbs objects over their C structs: {@link io.rdma4j.rdmacore.NativeDevice},
 * {@link io.rdma4j.rdmacore.NativeContext}, {@link io.rdma4j.rdmacore.NativePd},
 * {@link io.rdma4j.rdmacore.NativeMr} (whose {@code MrGuard} deregisters it when its memory's arena closes),
 * {@link io.rdma4j.rdmacore.NativeCompChannel},
 * {@link io.rdma4j.rdmacore.NativeCq}, {@link io.rdma4j.rdmacore.NativeQp},
 * {@link io.rdma4j.rdmacore.NativeSrq} and {@link io.rdma4j.rdmacore.NativeAh}. The control path calls
 * libibverbs' exported functions ({@link io.rdma4j.rdmacore.Ibverbs}, with errno captured by
 * {@link io.rdma4j.rdmacore.ErrnoFunctions} and turned into exceptions by
 * {@link io.rdma4j.rdmacore.NativeErrors}); the data path calls the provider's functions from the context's
 * ops table ({@link io.rdma4j.rdmacore.OpsTable}) with work request arrays each queue owns, as verbs.h's
 * inline functions do. {@link io.rdma4j.rdmacore.NativeLibrary} finds a library or says why not,
 * {@link io.rdma4j.rdmacore.Libc} waits on event descriptors, {@link io.rdma4j.rdmacore.Structs} converts
 * the API's attributes to and from their structs.
 * <p>
 * <b>Arrows.</b> This package implements {@code io.rdma4j.verbs} (and {@code io.rdma4j.spi}'s
 * {@code Counted}) and uses {@code abi} for the struct layouts; it imports nothing else of this module. The
 * connection manager ({@code cm}) sits above it: it adopts the contexts librdmacm opens
 * ({@link io.rdma4j.rdmacore.NativeContext#adopt}) and shares the library, errno and struct helpers, which
 * are public for that reason. The provider ({@code provider}) sits above both. The module exports no
 * package, so nothing outside it imports this one.
 */
package io.rdma4j.rdmacore;
