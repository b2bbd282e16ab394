package io.rdma4j.soft.wire;

/**
 * The header flyweights and the ICRC calculator a thread's {@link PacketParser} or {@link PacketBuilder} lays
 * over packet memory: one set per parser or builder, reused for every packet, so neither allocates.
 */
abstract class PacketFlyweights
{
    final BthFlyweight bth = new BthFlyweight();
    final DethFlyweight deth = new DethFlyweight();
    final RethFlyweight reth = new RethFlyweight();
    final AethFlyweight aeth = new AethFlyweight();
    final ImmDtFlyweight immDt = new ImmDtFlyweight();
    final IethFlyweight ieth = new IethFlyweight();
    final AtomicEthFlyweight atomicEth = new AtomicEthFlyweight();
    final AtomicAckEthFlyweight atomicAckEth = new AtomicAckEthFlyweight();
    final Icrc icrc = new Icrc();

    /**
     * @return the ICRC calculator, for the same thread's other uses.
     */
    public final Icrc icrc()
    {
        return icrc;
    }
}
