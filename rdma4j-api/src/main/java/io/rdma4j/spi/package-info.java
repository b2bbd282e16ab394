/**
 * What an engine implements: {@link io.rdma4j.spi.RdmaProvider}, found with {@link java.util.ServiceLoader}
 * (the software device in {@code io.rdma4j.soft}, rdma-core through FFM in {@code io.rdma4j.rdmacore}), and
 * {@link io.rdma4j.spi.Counted}, which words the providers' error sentences alike. An application never
 * needs this package: {@code Verbs} and {@code RdmaCm} look the providers up for it.
 * <p>
 * <b>Arrows.</b> {@code RdmaProvider} hands out {@code io.rdma4j.verbs}' devices and
 * {@code io.rdma4j.cm}'s event channels, and both of those packages look the providers up here: the API's
 * one allowed package cycle, kept because splitting the lookup from the types would give an application a
 * second entry point for nothing. It imports nothing else. The engines import it (their {@code provider}
 * packages implement {@code RdmaProvider}, and their verbs objects and event channels word their error
 * sentences with {@code Counted}), and so does the tools' {@code devices} command, which names each provider.
 */
package io.rdma4j.spi;
