package io.rdma4j.bench.compare.mcast;

import java.util.List;
import java.util.Map;

/**
 * What one multicast run sends, the same for every system: {@code warmup} messages, then {@code messages}
 * measured, both as fast as the system takes them, then {@code latency} messages paced {@code intervalNs} apart
 * for the one-way latency. Every message starts with its sequence and the sender's {@link System#nanoTime()}
 * (CLOCK_MONOTONIC, one clock for every process of the host), so a receiver times the message itself.
 *
 * @param size       the message length in bytes, {@link #HEADER} or more.
 * @param warmup     messages before the measured ones.
 * @param messages   messages whose delivery rate is measured.
 * @param latency    paced messages after them.
 * @param intervalNs the pace of the latency messages.
 */
public record McastPlan(int size, int warmup, int messages, int latency, long intervalNs)
{
    /** Sequence and send time, two longs. */
    public static final int HEADER = 2 * Long.BYTES;

    /**
     * @param size       the message length.
     * @param warmup     messages first.
     * @param messages   messages measured.
     * @param latency    paced messages.
     * @param intervalNs their pace.
     */
    public McastPlan
    {
        if (size < HEADER || warmup < 0 || messages < 2 || latency < 0 || intervalNs <= 0)
        {
            throw new IllegalArgumentException("multicast plan: size " + size + " (>= " + HEADER + "), warmup " +
                warmup + ", messages " + messages + " (>= 2), latency " + latency + ", interval " + intervalNs);
        }
    }

    /**
     * @param args {@code size=}, {@code warmup=}, {@code messages=}, {@code latency=}, {@code interval-ns=}.
     * @return the plan they describe.
     */
    static McastPlan of(final Map<String, String> args)
    {
        return new McastPlan(Integer.parseInt(args.get("size")), Integer.parseInt(args.get("warmup")),
            Integer.parseInt(args.get("messages")), Integer.parseInt(args.get("latency")),
            Long.parseLong(args.get("interval-ns")));
    }

    /**
     * @return the peer arguments that carry this plan.
     */
    public List<String> args()
    {
        return List.of("size=" + size, "warmup=" + warmup, "messages=" + messages, "latency=" + latency,
            "interval-ns=" + intervalNs);
    }

    /** @return every message a reliable receiver gets. */
    long total()
    {
        return (long)warmup + messages + latency;
    }

    /** @return the first sequence past the measured ones: where the paced messages begin. */
    long pacedFrom()
    {
        return (long)warmup + messages;
    }
}
