/**
 * A device's counters where others read them: its table in the counters files of {@code io.rdma4j.stat}
 * ({@link io.rdma4j.soft.stat.SoftStatFiles}), which another process of the same user reads (what {@code rdma4j stat}
 * prints, as {@code rdma statistic} shows rxe's), and a JMX MBean ({@link io.rdma4j.soft.stat.CountersMBean}).
 * <p>
 * <b>Arrows.</b> Near the bottom: it imports only {@code counter} (the values it copies) and the {@code io.rdma4j.stat}
 * module (the files' format and owner-only directory). The device ({@code soft}) writes the files through it
 * ({@code StatPublisher}). It knows no device.
 * <p>
 * <b>Threads.</b> The process's stat thread ({@code StatPublisher}) writes every open device's file and registers
 * the MBeans.
 */
package io.rdma4j.soft.stat;
