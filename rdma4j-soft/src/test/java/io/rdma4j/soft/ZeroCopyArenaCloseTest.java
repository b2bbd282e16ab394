package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.ForwardingLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A payload sent in place (the Linux link's zero-copy send: an iovec holds the registered memory's raw address
 * until the flush) and the application closing the memory's shared arena between the packet's staging and its
 * flush. Before the fix the kernel read the freed memory at the flush: here, the bytes of a buffer allocated
 * after the close (the allocator hands the freed block out again) went onto the wire, an information leak. Now
 * the device's close action on the arena flushes what is queued while the memory is still there, and the link
 * refuses a gathered datagram from an arena already closing.
 * <p>
 * The close is put at each side of {@code queueGathered} by a link wrapper, on the posting thread, so the
 * interleaving is exact; the peer is a plain UDP socket that shows the wire's bytes, and a second SEND from
 * live memory marks the end of what the first could have sent (one socket pair keeps its order on loopback).
 * A third case runs the race free, two threads, many rounds: before, it found the freed bytes on the wire
 * in most runs, and an {@code IllegalStateException} out of {@code postSend} (the in-place ICRC).
 * <p>
 * A UC message whose datagram is refused because its arena closed completes with LOC_PROT_ERR, as a bad lkey
 * does (it completed with SUCCESS before, a message lost behind a success: UC has no retransmission that would
 * find the region gone, as RC's does); {@code shouldFailTheUcMessageWhoseInboxCopyLostItsMemory} checks the
 * same on the same-host path, where the inbox's copy finds the arena closed.
 */
@Timeout(60)
class ZeroCopyArenaCloseTest
{
    private static final int LENGTH = 1000;
    private static final int ROUNDS = 8;
    private static final int BTH_BYTES = 12;
    private static final byte REGISTERED = (byte)0xAA;
    private static final byte SECRET = (byte)0x5E;
    private static final byte MARKER = (byte)0x77;

    /** Where the arena closes, against the link's queueing of the datagram. */
    enum Close
    {
        /** After the payload was found in place and before the link queues it. */
        BEFORE_QUEUEING,
        /** After the link queued it and before the flush at the end of postSend. */
        BEFORE_FLUSH
    }

    @ParameterizedTest
    @EnumSource(Close.class)
    void shouldNeverSendMemoryFreedAfterTheArenaClosed(final Close when) throws IOException
    {
        final AtomicReference<Runnable> hook = new AtomicReference<>();
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).linkWrapper(link -> new ClosingLink(link, hook, when));
            DatagramChannel wire = DatagramChannel.open();
            Arena secrets = Arena.ofShared())
        {
            final Context context = fabric.open();
            final Link link = SoftEngine.of(context).link();
            assumeTrue(link.gathers(), "the link sends in place (the Linux socket): " + link);
            final InetAddress peer = fabric.address(200);
            wire.bind(new InetSocketAddress(peer, Link.ROCE_V2_PORT));

            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue markerCq = context.createCq(64, null, 0);
            // the marker goes from a QP of its own: a QP whose message lost its memory is in ERR afterwards
            final QueuePair markerQp = ucQpTo(pd, markerCq, peer, 16);

            final MemorySegment live = Arena.ofAuto().allocate(4096);
            live.fill(MARKER);
            final MemoryRegion markerMr = pd.regMr(live, EnumSet.noneOf(AccessFlag.class));
            // the allocator need not hand the freed block out again at once: a few rounds make a leak show
            for (int round = 1; round <= ROUNDS; round++)
            {
                final CompletionQueue cq = context.createCq(64, null, 0);
                final QueuePair qp = ucQpTo(pd, cq, peer, 16);
                final Arena doomed = Arena.ofShared();
                final MemorySegment registered = doomed.allocate(4096);
                registered.fill(REGISTERED);
                final MemoryRegion mr = pd.regMr(registered, EnumSet.noneOf(AccessFlag.class));
                final MemorySegment[] reused = new MemorySegment[1];
                hook.set(() ->
                {
                    doomed.close();
                    reused[0] = secrets.allocate(4096);
                    reused[0].fill(SECRET);
                });
                qp.postSend(
                    new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(mr, 0, LENGTH));
                assertTrue(hook.get() == null, "the payload was not sent in place");
                markerQp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sge(markerMr, 0, LENGTH));

                final List<byte[]> payloads = receiveUntilMarker(wire);
                final String where = "round " + round + ", the freed block " +
                    (reused[0].address() == registered.address() ? "was" : "was not") + " reused";
                for (final byte[] payload : payloads)
                {
                    for (final byte b : payload)
                    {
                        assertFalse(b == SECRET, "a datagram carried bytes of memory allocated after the close; " +
                            where);
                    }
                }
                final List<WorkCompletion> completions = TestVerbs.pollFor(cq, 1, 10_000);
                assertEquals(1, completions.size(), where);
                if (when == Close.BEFORE_FLUSH)
                {
                    // the close action flushed it while the memory was still the registered one
                    assertEquals(2, payloads.size(), where);
                    for (int i = 0; i < LENGTH; i++)
                    {
                        assertEquals(REGISTERED, payloads.get(0)[i], "byte " + i + ", " + where);
                    }
                    assertEquals(WcStatus.SUCCESS, completions.get(0).status(), where);
                }
                else
                {
                    assertEquals(1, payloads.size(), "the datagram from the closed arena was sent; " + where);
                    assertEquals(round, SoftEngine.of(context).counters().get(SoftCounter.UDP_SEND_FAILURES));
                    // a message that never left must not complete as sent: the memory went away under it
                    assertEquals(WcStatus.LOC_PROT_ERR, completions.get(0).status(), where);
                    assertEquals(QpState.ERR, qp.state(), where);
                }
                assertEquals(2, TestVerbs.pollFor(markerCq, 1, 10_000).get(0).wrId(), where);
                qp.close();
                cq.close();
            }
            markerMr.close();
        }
    }

    /**
     * The same-host path copies a payload found in place into the peer's inbox at once: an arena closed before
     * that copy leaves nothing to copy. The UC message completed with SUCCESS before (the inbox got a record
     * whose payload read 0, which the receiver dropped on its ICRC); now it is LOC_PROT_ERR and no record is
     * published.
     */
    @org.junit.jupiter.api.Test
    void shouldFailTheUcMessageWhoseInboxCopyLostItsMemory()
    {
        final AtomicReference<Runnable> hook = new AtomicReference<>();
        try (Fabric fabric = new Fabric(Fabric.Kind.SHM)
            .linkWrapper(link -> new ClosingLink(link, hook, Close.BEFORE_QUEUEING)))
        {
            final RcEndpoint sender = new RcEndpoint(fabric.open(), QpType.UC, 1 << 16, 16);
            final RcEndpoint receiver = new RcEndpoint(fabric.open(), QpType.UC, 1 << 16, 16);
            assumeTrue(sender.engine().link().gathers(), "the link sends in place (the Linux socket)");
            RcConnectSettings.defaults().connect(sender, receiver);
            assertTrue(((TransportQp)sender.qp).peerOnSameHostPath(), "the sender reaches its peer by the inbox");
            receiver.qp.postRecv(new RecvWr().wrId(9).sge(receiver.mr, 0, 4096));

            final Arena doomed = Arena.ofShared();
            final MemorySegment registered = doomed.allocate(4096);
            registered.fill(REGISTERED);
            final MemoryRegion mr = sender.pd.regMr(registered, EnumSet.noneOf(AccessFlag.class));
            hook.set(doomed::close);
            sender.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(mr, 0, LENGTH));
            assertTrue(hook.get() == null, "the payload was not sent in place");

            final List<WorkCompletion> completions = sender.pollSend(1, 10_000);
            assertEquals(1, completions.size());
            assertEquals(WcStatus.LOC_PROT_ERR, completions.get(0).status());
            assertEquals(0, sender.counter(SoftCounter.SHM_SENT_PKTS), "a record was published");
            assertEquals(1, sender.counter(SoftCounter.DROP_LINK_SEND));
        }
    }

    /**
     * The same race run free: a thread posts SENDs from a shared arena's region while another closes the
     * arena and fills a block of the same size with other bytes; the wire never carries those bytes, and the
     * poster sees error completions, never an exception.
     */
    @org.junit.jupiter.api.Test
    void shouldNeverSendFreedMemoryWhenAnotherThreadClosesTheArena() throws Exception
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP); DatagramChannel wire = DatagramChannel.open();
            Arena secrets = Arena.ofShared())
        {
            final Context context = fabric.open();
            assumeTrue(SoftEngine.of(context).link().gathers(), "the link sends in place (the Linux socket)");
            final InetAddress peer = fabric.address(200);
            wire.bind(new InetSocketAddress(peer, Link.ROCE_V2_PORT));
            wire.configureBlocking(false);
            final ProtectionDomain pd = context.allocPd();
            final ByteBuffer buffer = ByteBuffer.allocate(65536);
            long datagrams = 0;
            for (int round = 0; round < 200; round++)
            {
                final CompletionQueue cq = context.createCq(256, null, 0);
                final QueuePair qp = ucQpTo(pd, cq, peer, 128);
                final Arena doomed = Arena.ofShared();
                final MemorySegment registered = doomed.allocate(4096);
                registered.fill(REGISTERED);
                final MemoryRegion mr = pd.regMr(registered, EnumSet.noneOf(AccessFlag.class));
                final int spins = round * 37 % 2000;
                final Thread closer = Thread.ofPlatform().start(() ->
                {
                    for (int spin = spins; spin > 0; spin--)
                    {
                        Thread.onSpinWait();
                    }
                    while (true)
                    {
                        try
                        {
                            doomed.close();
                            break;
                        }
                        catch (final IllegalStateException inUse)
                        {
                            // the JDK refuses the close while a copy or CRC holds the memory: as an
                            // application would, try again
                        }
                    }
                    secrets.allocate(4096).fill(SECRET);
                });
                for (int i = 0; i < 32; i++)
                {
                    qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sge(mr, 0, LENGTH));
                }
                closer.join();
                buffer.clear();
                int roundDatagrams = 0;
                while (wire.receive(buffer) != null)
                {
                    datagrams++;
                    roundDatagrams++;
                    buffer.flip();
                    for (int i = BTH_BYTES; i < BTH_BYTES + LENGTH; i++)
                    {
                        assertFalse(buffer.get(i) == SECRET, "round " + round + ": freed memory on the wire");
                    }
                    buffer.clear();
                }
                qp.close();
                final List<WorkCompletion> completions = TestVerbs.pollFor(cq, 32, 10_000);
                // every message is on the wire (postSend and the close action flush to the loopback socket
                // before they return) or completed in error: none lost behind a success
                assertEquals(roundDatagrams,
                    completions.stream().filter(wc -> wc.status() == WcStatus.SUCCESS).count(),
                    "round " + round + ": successes against datagrams on the wire, statuses " +
                    completions.stream().map(WorkCompletion::status).toList());
                cq.close();
            }
            assertTrue(datagrams > 0, "nothing was sent");
        }
    }

    /**
     * Issue 41, finding 9, as filed: a shared arena closed by another thread while datagrams sent in place from
     * it are queued (a chain of SENDs, the close halfway through their queueing, before the flush at the end of
     * postSend). The arena's close action flushes them while the memory is still the region's; the SEND staged
     * after the close finds the region gone (LOC_PROT_ERR). Holds since the close action (9cad896): without it,
     * the queued datagrams went out at postSend's flush from the freed block.
     */
    @org.junit.jupiter.api.Test
    void shouldSendTheQueuedInPlaceDatagramsBeforeAnotherThreadsCloseFreesTheirMemory() throws Exception
    {
        final int chain = 8;
        final int queuedBeforeClose = 4;
        final AtomicReference<Runnable> hook = new AtomicReference<>();
        final java.util.concurrent.atomic.AtomicInteger before = new java.util.concurrent.atomic.AtomicInteger();
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP);
            DatagramChannel wire = DatagramChannel.open();
            Arena secrets = Arena.ofShared())
        {
            final Context context = withoutProgressThread(fabric, hook, before);
            assumeTrue(SoftEngine.of(context).link().gathers(), "the link sends in place (the Linux socket)");
            final InetAddress peer = fabric.address(200);
            wire.bind(new InetSocketAddress(peer, Link.ROCE_V2_PORT));
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(64, null, 0);
            final QueuePair qp = ucQpTo(pd, cq, peer, 16);
            final CompletionQueue markerCq = context.createCq(64, null, 0);
            final QueuePair markerQp = ucQpTo(pd, markerCq, peer, 16);
            final MemorySegment live = Arena.ofAuto().allocate(4096);
            live.fill(MARKER);
            final MemoryRegion markerMr = pd.regMr(live, EnumSet.noneOf(AccessFlag.class));

            final Arena doomed = Arena.ofShared();
            final MemorySegment registered = doomed.allocate((long)chain * LENGTH);
            registered.fill(REGISTERED);
            final MemoryRegion mr = pd.regMr(registered, EnumSet.noneOf(AccessFlag.class));
            final AtomicReference<Throwable> closerFailed = new AtomicReference<>();
            before.set(queuedBeforeClose - 1);
            hook.set(() ->
            {
                // another thread closes the arena, as the finding has it, while this one is inside postSend
                final Thread closer = Thread.ofPlatform().start(() ->
                {
                    try
                    {
                        doomed.close();
                        secrets.allocate((long)chain * LENGTH).fill(SECRET);
                    }
                    catch (final Throwable ex)
                    {
                        closerFailed.set(ex);
                    }
                });
                try
                {
                    closer.join();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            });
            SendWr first = null;
            for (int i = chain - 1; i >= 0; i--)
            {
                first = new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sge(mr, (long)i * LENGTH, LENGTH).next(first);
            }
            qp.postSend(first);
            assertTrue(hook.get() == null, "the payloads were not sent in place");
            assertEquals(null, closerFailed.get(), "the close");
            markerQp.postSend(new SendWr().wrId(99).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(markerMr, 0, LENGTH));

            final List<byte[]> payloads = receiveUntilMarker(wire);
            assertEquals(queuedBeforeClose + 1, payloads.size(),
                "the datagrams queued before the close, and the marker");
            for (int d = 0; d < queuedBeforeClose; d++)
            {
                for (int i = 0; i < LENGTH; i++)
                {
                    assertEquals(REGISTERED, payloads.get(d)[i], "datagram " + d + ", byte " + i);
                }
            }
            final List<WorkCompletion> completions = TestVerbs.pollFor(cq, chain, 10_000);
            assertEquals(chain, completions.size());
            for (int i = 0; i < queuedBeforeClose; i++)
            {
                assertEquals(WcStatus.SUCCESS, completions.get(i).status(), "SEND " + i);
            }
            assertEquals(WcStatus.LOC_PROT_ERR, completions.get(queuedBeforeClose).status(),
                "the SEND staged after the close");
            markerMr.close();
        }
    }

    /**
     * A region over a direct {@link ByteBuffer}'s memory, whose segment's scope takes no close action (the JDK's
     * heap session: the buffer's cleaner frees the memory once the buffer is unreachable). Its datagram is queued
     * in place, the region deregistered and the buffer dropped before the flush, a SEND from another region
     * staged in between: the GC may free the memory under the queued raw address. The link holds the payload's
     * segment, and with it the buffer, until the flush: the wire carries the region's bytes, and the buffer is
     * collectable afterwards. Before, the buffer was collected and the flush sent the freed block.
     */
    @org.junit.jupiter.api.Test
    void shouldKeepABuffersMemoryAliveUntilItsQueuedInPlaceDatagramLeaves() throws Exception
    {
        final AtomicReference<Runnable> hook = new AtomicReference<>();
        final java.util.concurrent.atomic.AtomicInteger before = new java.util.concurrent.atomic.AtomicInteger();
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP);
            DatagramChannel wire = DatagramChannel.open())
        {
            final Context context = withoutProgressThread(fabric, hook, before);
            assumeTrue(SoftEngine.of(context).link().gathers(), "the link sends in place (the Linux socket)");
            final InetAddress peer = fabric.address(200);
            wire.bind(new InetSocketAddress(peer, Link.ROCE_V2_PORT));
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(64, null, 0);
            final QueuePair qp = ucQpTo(pd, cq, peer, 16);
            final MemorySegment live = Arena.ofAuto().allocate(4096);
            live.fill(MARKER);
            final MemoryRegion markerMr = pd.regMr(live, EnumSet.noneOf(AccessFlag.class));

            final AtomicReference<MemoryRegion> doomed = new AtomicReference<>();
            final java.lang.ref.ReferenceQueue<ByteBuffer> collected = new java.lang.ref.ReferenceQueue<>();
            final Object[] keep = new Object[2];
            final SendWr fromBuffer = bufferRegion(pd, doomed, collected, keep);
            final boolean[] collectedBeforeFlush = new boolean[1];
            // the hook runs once the second SEND's datagram is queued: the requester staged it, so it no longer
            // holds the first one's segment, which only the queue may still reach
            before.set(1);
            hook.set(() ->
            {
                doomed.getAndSet(null).close();
                // a few collections: without the link's hold the first one finds the buffer unreachable
                collectedBeforeFlush[0] = awaitCollected(collected, 5);
                // the freed block, handed out again (malloc reuses a block of the size just freed), other bytes in it
                final ByteBuffer other = ByteBuffer.allocateDirect(4096);
                MemorySegment.ofBuffer(other).fill(SECRET);
                keep[1] = other;
            });
            qp.postSend(fromBuffer.next(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(markerMr, 0, LENGTH)));
            assertTrue(hook.get() == null, "the payloads were not sent in place");

            final List<byte[]> payloads = receiveUntilMarker(wire);
            assertEquals(2, payloads.size());
            for (int i = 0; i < LENGTH; i++)
            {
                assertEquals(REGISTERED, payloads.get(0)[i], "byte " + i + " of the buffer's datagram; the buffer " +
                    "was " + (collectedBeforeFlush[0] ? "" : "not ") + "collected before the flush");
            }
            assertFalse(collectedBeforeFlush[0], "the buffer was collected while its datagram was queued");
            assertEquals(2, TestVerbs.pollFor(cq, 2, 10_000).size());
            // sent, the datagram no longer holds the buffer
            assertTrue(awaitCollected(collected, 20), "the link kept the buffer after the flush");
            markerMr.close();
        }
    }

    /**
     * Register a direct buffer's memory: the region only in {@code region}, the buffer only behind a phantom
     * reference on {@code collected}, the SEND naming the memory by address and key.
     */
    private static SendWr bufferRegion(final ProtectionDomain pd, final AtomicReference<MemoryRegion> region,
        final java.lang.ref.ReferenceQueue<ByteBuffer> collected, final Object[] keep)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        final MemorySegment segment = MemorySegment.ofBuffer(buffer);
        segment.fill(REGISTERED);
        final MemoryRegion mr = pd.regMr(segment, EnumSet.noneOf(AccessFlag.class));
        region.set(mr);
        keep[0] = new java.lang.ref.PhantomReference<>(buffer, collected);
        return new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(segment.address(), LENGTH, mr.lkey());
    }

    /**
     * Collect garbage until the buffer behind the phantom reference is unreachable (its cleaner then frees the
     * memory), at most {@code rounds} times.
     *
     * @return true if it was collected.
     */
    private static boolean awaitCollected(final java.lang.ref.ReferenceQueue<ByteBuffer> collected, final int rounds)
    {
        try
        {
            for (int round = 0; round < rounds; round++)
            {
                System.gc();
                if (collected.remove(50) != null)
                {
                    // the buffer's own cleaner runs on the reference handler's thread: a GC more gives it its turn
                    System.gc();
                    return true;
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /**
     * A device over the Linux socket (as the fabric's would be) whose link runs the hook, without a progress
     * thread: the queue is flushed only where the test says, at the end of a postSend (or by an arena's close).
     */
    private static Context withoutProgressThread(final Fabric fabric, final AtomicReference<Runnable> hook,
        final java.util.concurrent.atomic.AtomicInteger before)
    {
        final Context context = SoftDevice.builder("zero-copy", fabric.address(150)).sameHost(false)
            .progressThread(false)
            .link(a -> new ClosingLink(io.rdma4j.soft.link.TestLinks.open(a), hook, Close.BEFORE_FLUSH, before))
            .build().open();
        fabric.adopt(context);
        return context;
    }

    /** A UC QP at RTS aimed at a QP 0x99 on {@code peer}, which is only a socket: it shows the wire's bytes. */
    private static QueuePair ucQpTo(final ProtectionDomain pd, final CompletionQueue cq, final InetAddress peer,
        final int depth)
    {
        final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.UC, cq, new QpCap(depth, 1, 1, 1, 0)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(0));
        qp.modify(new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(Gid.fromInet(peer), 64))
            .pathMtu(Mtu.MTU_1024).destQpNum(0x99).rqPsn(0));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        return qp;
    }

    /** The payloads (BTH to ICRC, less the BTH) of every datagram up to and with the marker SEND's. */
    private static List<byte[]> receiveUntilMarker(final DatagramChannel wire) throws IOException
    {
        final List<byte[]> payloads = new ArrayList<>();
        final ByteBuffer buffer = ByteBuffer.allocate(65536);
        wire.configureBlocking(false);
        try (Selector selector = Selector.open())
        {
            wire.register(selector, SelectionKey.OP_READ);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < deadline)
            {
                buffer.clear();
                if (wire.receive(buffer) == null)
                {
                    selector.select(100);
                    selector.selectedKeys().clear();
                    continue;
                }
                buffer.flip();
                final byte[] payload = new byte[LENGTH];
                buffer.get(BTH_BYTES, payload);
                payloads.add(payload);
                if (payload[0] == MARKER)
                {
                    return payloads;
                }
            }
        }
        throw new AssertionError("the marker SEND never came; received " + payloads.size());
    }

    /** Runs the hook once, at the given side of the first gathered datagram's queueing (or a later one's). */
    private static final class ClosingLink extends ForwardingLink
    {
        private final AtomicReference<Runnable> hook;
        private final Close when;
        /** Gathered datagrams queued, since the hook was set, before the one the hook runs at. */
        private final java.util.concurrent.atomic.AtomicInteger before;

        ClosingLink(final Link inner, final AtomicReference<Runnable> hook, final Close when)
        {
            this(inner, hook, when, new java.util.concurrent.atomic.AtomicInteger());
        }

        ClosingLink(final Link inner, final AtomicReference<Runnable> hook, final Close when,
            final java.util.concurrent.atomic.AtomicInteger before)
        {
            super(inner);
            this.hook = hook;
            this.when = when;
            this.before = before;
        }

        @Override
        public boolean queueGathered(
            final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
            final ByteBuffer tail, final InetAddress destination, final int hopLimit)
        {
            final Runnable close = hook.get() != null && before.getAndDecrement() <= 0 ? hook.getAndSet(null) : null;
            if (close != null && when == Close.BEFORE_QUEUEING)
            {
                close.run();
            }
            final boolean queued =
                inner.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit);
            if (close != null && when == Close.BEFORE_FLUSH)
            {
                close.run();
            }
            return queued;
        }
    }
}
