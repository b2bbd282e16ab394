/**
 * What the command packages share: a device named by {@code -d}
 * ({@link io.rdma4j.tools.common.DeviceOption}), the soft device's address for a server and a client on one
 * machine ({@link io.rdma4j.tools.common.SoftAddress}), numbers read as C's {@code strtol} reads them
 * ({@link io.rdma4j.tools.common.CNumber}, a picocli converter), GIDs printed as {@code inet_ntop} prints them
 * ({@link io.rdma4j.tools.common.GidText}), the CM tools' address lookup
 * ({@link io.rdma4j.tools.common.AddressLookup}) and {@code --timeout} ({@link io.rdma4j.tools.common.WaitClock}),
 * a {@code --histogram} log file
 * ({@link io.rdma4j.tools.common.HistogramLogFile}) and teardown that reports instead of throwing
 * ({@link io.rdma4j.tools.common.Closing}).
 * <p>
 * <b>Arrows.</b> The bottom of the module: it uses the API ({@code io.rdma4j.verbs}, {@code io.rdma4j.cm}),
 * picocli and HdrHistogram, and no other package of this module. Every other package may import it.
 */
package io.rdma4j.tools.common;
