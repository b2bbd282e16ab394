/**
 * {@code rdma4j perf}: perftest's latency and bandwidth tests over the public verbs API
 * ({@link io.rdma4j.tools.perf.PerfCommand}), each figure printed beside a raw JDK UDP baseline measured in the
 * same run ({@code UdpBaseline}, {@link io.rdma4j.tools.perf.ResultLine}). The two sides meet on a TCP
 * connection as perftest does without {@code -R} ({@link io.rdma4j.tools.perf.ControlChannel},
 * {@link io.rdma4j.tools.perf.PerfEndpoint}); {@code -M} is a multicast fan-out through the connection manager
 * ({@code FanOutRun}). Named as perftest's tools ({@code ib_send_lat}) or with {@code --exchange perftest}, a run
 * meets its peer with perftest's own exchange instead ({@code PerftestRun}, {@code PerftestReport}), so that the
 * peer may be perftest; with {@code -R} that exchange runs on an rdma_cm-connected QP ({@code CmControlLink}) and
 * the test's QPs are connected through rdma_cm ({@code CmTestQps}; on UD through SIDR, {@code UdPeer}); with
 * {@code -g} the receiving side joins perftest's multicast group ({@code PerftestGroup}).
 * <p>
 * <b>Arrows.</b> Uses {@code common} and, outside the module, the API ({@code io.rdma4j.verbs},
 * {@code io.rdma4j.cm}), the software device's {@code DevicePath} ({@code io.rdma4j.soft.provider}, exported to
 * this module alone) to print which path an open soft device runs on, picocli and HdrHistogram; below it
 * {@code perf.perftest}, perftest's wire format. Only the root package imports it, to list the command; it imports
 * no other command package.
 */
package io.rdma4j.tools.perf;
