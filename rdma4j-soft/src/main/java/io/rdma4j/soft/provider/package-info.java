/**
 * The software device's provider instances: made in code from a {@code SoftProviderContext}
 * ({@code SoftProvider.launch}), or the process's default one that the API's provider lookup ({@code ServiceLoader})
 * finds ({@code DefaultProvider}, the module's one process-wide state); and what an open device tells the tools
 * about itself ({@code DevicePath}).
 * <p>
 * <b>Arrows.</b> The top of {@code rdma4j-soft}: it implements {@code io.rdma4j.spi}'s {@code RdmaProvider}
 * with the device registry and engines ({@code io.rdma4j.soft}) and the connection manager ({@code soft.cm}),
 * reads a link's socket ({@code soft.link}) for {@code DevicePath}, and uses the API's {@code verbs} and
 * {@code cm} types. Nothing in the module imports it; outside it, {@code rdma4j perf} ({@code tools.perf})
 * reads {@code DevicePath}; the package is exported, for the context and the instances.
 */
package io.rdma4j.soft.provider;
