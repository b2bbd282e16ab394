/**
 * The {@code rdma4j} command line: {@link io.rdma4j.tools.Main} and the commands small enough to live beside
 * it.
 * <p>
 * <b>What it holds.</b> {@code Main} (picocli's top command, which lists every subcommand and builds only the
 * one a command line names); {@code devices} and {@code devinfo} ({@link io.rdma4j.tools.DevinfoFormatter}
 * lays the attributes out as {@code ibv_devinfo} does); {@code mckey} (its ids and QPs in {@code McKeyNode},
 * its message header in {@link io.rdma4j.tools.Payload}, what a receiver got in
 * {@link io.rdma4j.tools.ReceiveStats}); {@code demo}, which runs mckey roles as child JVMs
 * ({@link io.rdma4j.tools.ChildJvm}, {@link io.rdma4j.tools.RoleProcess}); and {@code stat}, which reads the
 * counters files of software devices and of reliable multicast's publications and subscriptions.
 * <p>
 * <b>Arrows.</b> The top of the module: {@code Main} imports every command package ({@code cmatose}, {@code perf},
 * {@code pingpong}, {@code rping}, {@code soak}, {@code udaddy}) to list their commands, and the commands here
 * use {@code common}. Outside the module it uses the API ({@code io.rdma4j.verbs}, {@code io.rdma4j.cm},
 * {@code io.rdma4j.spi} for the providers' names), the counters files' reader
 * ({@code io.rdma4j.stat}), the soft device's settings and provider context, picocli and HdrHistogram. No package of this
 * module imports it: a helper that a command package needs goes to {@code common}.
 */
package io.rdma4j.tools;
