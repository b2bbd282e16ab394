package io.rdma4j.soft;

import io.rdma4j.soft.cm.CmCounter;
import io.rdma4j.soft.counter.CounterGroup;
import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.receive.ReceivePath;
import io.rdma4j.soft.wire.DropCause;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoftCounterTest
{
    /**
     * Every counter ever published, as {@code id group name}: what the stat files and JMX of every version have
     * told readers. Ids 0 to 66 are the positions version 1 of the stat file gave the counters then. A new
     * counter adds its line with the next free id; a line is never edited, and a removed counter's moves to
     * {@link #RETIRED} so that its id is not given to another.
     */
    private static final String PUBLISHED = """
            0 device sent_pkts
            1 device rcvd_pkts
            2 device duplicate_request
            3 device out_of_seq_request
            4 device rcvd_rnr_err
            5 device send_rnr_err
            6 device rcvd_seq_err
            7 device ack_deferred
            8 device retry_exceeded_err
            9 device retry_rnr_exceeded_err
            10 device completer_retry_err
            11 device send_err
            12 device link_downed
            13 device rdma_sends
            14 device rdma_recvs
            15 device retransmitted_pkts
            16 device rcvd_naks
            17 device sent_naks
            18 device sent_acks
            19 device mcast_fanout
            20 device gsi_sent_mads
            21 device gsi_rcvd_mads
            22 device gsi_dropped_mads
            23 device mcast_loopback
            24 device mcast_self_blocked
            25 device ud_oversize_not_sent
            26 device drop_too_short
            27 device drop_unknown_opcode
            28 device drop_bad_transport_version
            29 device drop_bad_pkey
            30 device drop_bad_pad
            31 device drop_hdr_truncated
            32 device drop_bad_qpn
            33 device drop_addr_mismatch
            34 device drop_short_mad
            35 device icrc_err
            36 device drop_no_qp
            37 device drop_qp_state
            38 device drop_wrong_transport
            39 device qkey_violation
            40 device drop_no_recv_wqe
            41 device drop_recv_too_small
            42 device drop_recv_bad_lkey
            43 device drop_mcast_not_member
            44 device drop_own_mcast_echo
            45 device drop_link_send
            46 device drop_not_for_us
            47 device mr_key_mismatch
            48 device progress_errors
            49 link shm_sent_pkts
            50 link shm_rcvd_pkts
            51 link udp_sent_pkts
            52 link udp_rcvd_pkts
            53 link shm_ring_full
            54 link shm_peer_gone
            55 link shm_wakeups_sent
            56 link shm_wakeups_rcvd
            57 link shm_refused_owner
            58 link shm_refused_mode
            59 link shm_refused_format
            60 link shm_refused_dead
            61 link shm_inbox_corrupt
            62 device stat_file_abandoned
            63 device drop_ud_over_mtu
            64 device drop_unexpected_response
            65 link icmp_port_unreachable
            66 link udp_rcvbuf_drops
            67 link udp_send_failures
            68 link udp_recv_failures
            69 link udp_send_syscalls
            70 link udp_recv_syscalls
            71 link udp_gso_msgs
            72 link udp_gro_runs
            73 link udp_gathered_pkts
            74 link udp_truncated_drops
            75 link drop_injected
            76 cm cm_handled
            77 cm cm_drop_queue_full
            78 cm cm_drop_malformed
            79 cm cm_drop_unknown_comm_id
            80 cm cm_drop_wrong_source
            81 cm cm_drop_wrong_remote_comm_id
            82 cm cm_drop_wrong_qpn
            83 cm cm_drop_wrong_tid
            84 cm cm_drop_repeated_mra
            85 cm cm_drop_unexpected
            86 cm cm_refused
            87 cm cm_task_failed
            88 device drop_local_peer_by_udp
            89 link udp_recv_socket_errors
            90 cm cm_drop_backlog_full
            91 cm cm_mra_limit
            92 link shm_dir_refused
            93 link shm_unprotected_peer
            94 device keepalive_probes
            95 device keepalive_answered
            96 device keepalive_timeouts
            97 device wait_spins
            98 device wait_spins_paid
            """;

    /** Ids of counters that were published and removed since: never to be used again. */
    private static final Set<Integer> RETIRED = Set.of();

    @Test
    void shouldKeepEveryPublishedIdGroupAndName()
    {
        final String counters = SoftCounter.inIdOrder().stream()
            .map(c -> c.id() + " " + c.group().groupName() + " " + c.counterName())
            .collect(Collectors.joining("\n"));
        assertEquals(PUBLISHED.strip(), counters, "an id, group or name readers know changed, or a counter " +
            "has no line in PUBLISHED yet");
        for (final int id : RETIRED)
        {
            assertNull(SoftCounter.byId(id), "retired id " + id + " was given to another counter");
        }
    }

    @Test
    void shouldIndexEveryCounterByItsOwnIdAndName()
    {
        final Set<Integer> ids = new HashSet<>();
        for (final SoftCounter counter : SoftCounter.values())
        {
            assertTrue(ids.add(counter.id()), counter + " shares id " + counter.id());
            assertTrue(counter.id() < SoftCounter.ID_LIMIT, counter + " is beyond the table");
            assertSame(counter, SoftCounter.byId(counter.id()));
            assertSame(counter, SoftCounter.byName(counter.counterName()));
            // the stat file's fields: 40 bytes of name and 16 of group, NUL-terminated
            assertTrue(counter.counterName().getBytes(StandardCharsets.UTF_8).length < 40, counter.counterName());
            assertTrue(counter.group().groupName().getBytes(StandardCharsets.UTF_8).length < 16, counter.name());
        }
        assertEquals(SoftCounter.ID_LIMIT, ids.stream().mapToInt(Integer::intValue).max().orElseThrow() + 1,
            "the table ends at the largest id");
    }

    @Test
    void shouldCountEachCounterInItsOwnSlotWhateverItsPlaceInTheEnum()
    {
        final Counters counters = new Counters();
        for (final SoftCounter counter : SoftCounter.values())
        {
            counters.add(counter, counter.id() + 1L);
        }
        counters.incrementOwned(SoftCounter.UDP_SEND_SYSCALLS);
        for (final SoftCounter counter : SoftCounter.values())
        {
            final long extra = counter == SoftCounter.UDP_SEND_SYSCALLS ? 1 : 0;
            assertEquals(counter.id() + 1L + extra, counters.get(counter), counter.counterName());
        }
        assertEquals(List.copyOf(counters.snapshot().keySet()),
            SoftCounter.inIdOrder().stream().map(SoftCounter::counterName).toList());
    }

    @Test
    void shouldCountEveryConnectionManagerVerdictAsACmCounterOfItsOwn()
    {
        final Set<SoftCounter> cm = EnumSet.noneOf(SoftCounter.class);
        for (final CmCounter verdict : CmCounter.values())
        {
            assertTrue(cm.add(verdict.counter()), verdict + " shares " + verdict.counter());
            assertEquals(CounterGroup.CM, verdict.counter().group(), verdict.toString());
        }
        for (final SoftCounter counter : SoftCounter.values())
        {
            assertEquals(counter.group() == CounterGroup.CM, cm.contains(counter), counter.counterName());
        }
    }

    @Test
    void shouldGiveEveryParserDropItsOwnCounter()
    {
        final Set<SoftCounter> seen = EnumSet.noneOf(SoftCounter.class);
        for (final DropCause cause : DropCause.values())
        {
            final SoftCounter counter = ReceivePath.counterOf(cause);
            assertTrue(seen.add(counter), cause + " shares " + counter);
            assertTrue(SoftCounter.receiveVerdicts().contains(counter), cause + " is no receive verdict");
        }
        assertEquals(SoftCounter.DROP_HDR_TRUNCATED, ReceivePath.counterOf(DropCause.HEADER_TRUNCATED));
    }

    @Test
    void shouldNameEveryCounterOnceInSnakeCase()
    {
        final Set<String> names = new HashSet<>();
        for (final SoftCounter counter : SoftCounter.values())
        {
            assertTrue(counter.counterName().matches("[a-z]+(_[a-z]+)*"), counter.name());
            assertTrue(names.add(counter.counterName()), counter.counterName() + " twice");
        }
    }
}
