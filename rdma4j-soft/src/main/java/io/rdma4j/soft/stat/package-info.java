/**
 * A device's counters where others read them: memory-mapped stat files ({@link io.rdma4j.soft.stat.StatFile}) that
 * another process of the same user reads ({@link io.rdma4j.soft.stat.StatReader}, what {@code rdma4j stat}
 * prints, as {@code rdma statistic} shows rxe's), and a JMX MBean ({@link io.rdma4j.soft.stat.CountersMBean}).
 * <p>
 * <b>Arrows.</b> Near the bottom: it imports only {@code counter} (the values it copies) and {@code file} (the
 * stat files' owner-only directory). The device ({@code soft}) writes the files through it
 * ({@code StatPublisher}); outside the module, the tools' {@code stat} command reads them, which is why the
 * module exports this package, to the tools alone. It knows no device, so a reader needs no open device.
 * <p>
 * <b>Threads.</b> The process's stat thread ({@code StatPublisher}) writes every open device's file; a reader in
 * another process reads a file (never maps it, so a file truncated meanwhile cannot SIGBUS the reader) and takes
 * no lock.
 */
package io.rdma4j.soft.stat;
