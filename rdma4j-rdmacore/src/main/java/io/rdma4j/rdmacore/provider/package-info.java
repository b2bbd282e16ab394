/**
 * The native engine's entry point: {@link io.rdma4j.rdmacore.provider.NativeProvider}, the
 * {@code io.rdma4j.spi.RdmaProvider} that {@link java.util.ServiceLoader} finds (the module's
 * {@code provides} on the module path, {@code META-INF/services} on the class path). It lists the devices and
 * opens event channels, and decides whether an address is a native device's.
 * <p>
 * <b>Arrows.</b> The top of the module: it implements {@code io.rdma4j.spi} and uses both halves below it,
 * {@code io.rdma4j.rdmacore} (the device list) and {@code cm} (event channels, address ownership), besides
 * the API's {@code io.rdma4j.verbs} and {@code io.rdma4j.cm}; nothing of this module imports it. It is a
 * package of its own because the provider needs both halves, while the connection manager needs the verbs
 * objects: in the verbs' package it made the two import each other. Outside the module only the benchmarks
 * name it, on the class path: {@code NativePostPollBenchmark} asks it directly for the native devices, and
 * for its reason when there are none.
 */
package io.rdma4j.rdmacore.provider;
