package io.rdma4j.soft.counter;

import static io.rdma4j.soft.counter.CounterGroup.CM;
import static io.rdma4j.soft.counter.CounterGroup.DEVICE;
import static io.rdma4j.soft.counter.CounterGroup.LINK;

/**
 * The counters of a software device and of each of its QPs, of its link and of the connection manager's work on
 * it: rxe's {@code hw_counters} names where rxe has one, ours in the same style for every cause of a dropped
 * packet or MAD.
 * <p>
 * Each counter has an id written here by hand, which the stat file and JMX publish with its name: readers in
 * other processes (another rdma4j version's {@code rdma4j stat}, a monitoring agent) may know a counter by
 * either, so neither may follow the declaration order. A new counter takes the next unused id, wherever it is
 * declared; a removed counter's id is retired, never given to another. {@code SoftCounterTest} holds the list
 * of every id ever published and fails when one changes.
 */
public enum SoftCounter
{
    SENT_PKTS(0, DEVICE, "sent_pkts"),
    RCVD_PKTS(1, DEVICE, "rcvd_pkts"),
    DUPLICATE_REQUEST(2, DEVICE, "duplicate_request"),
    OUT_OF_SEQ_REQUEST(3, DEVICE, "out_of_seq_request"),
    RCVD_RNR_ERR(4, DEVICE, "rcvd_rnr_err"),
    SEND_RNR_ERR(5, DEVICE, "send_rnr_err"),
    RCVD_SEQ_ERR(6, DEVICE, "rcvd_seq_err"),
    ACK_DEFERRED(7, DEVICE, "ack_deferred"),
    RETRY_EXCEEDED_ERR(8, DEVICE, "retry_exceeded_err"),
    RETRY_RNR_EXCEEDED_ERR(9, DEVICE, "retry_rnr_exceeded_err"),
    COMPLETER_RETRY_ERR(10, DEVICE, "completer_retry_err"),
    SEND_ERR(11, DEVICE, "send_err"),
    LINK_DOWNED(12, DEVICE, "link_downed"),
    RDMA_SENDS(13, DEVICE, "rdma_sends"),
    RDMA_RECVS(14, DEVICE, "rdma_recvs"),
    RETRANSMITTED_PKTS(15, DEVICE, "retransmitted_pkts"),
    RCVD_NAKS(16, DEVICE, "rcvd_naks"),
    SENT_NAKS(17, DEVICE, "sent_naks"),
    SENT_ACKS(18, DEVICE, "sent_acks"),
    MCAST_FANOUT(19, DEVICE, "mcast_fanout"),
    GSI_SENT_MADS(20, DEVICE, "gsi_sent_mads"),
    GSI_RCVD_MADS(21, DEVICE, "gsi_rcvd_mads"),
    GSI_DROPPED_MADS(22, DEVICE, "gsi_dropped_mads"),
    MCAST_LOOPBACK(23, DEVICE, "mcast_loopback"),
    /** A QP's own multicast send not looped back to it: it was created with BLOCK_SELF_MCAST_LB. */
    MCAST_SELF_BLOCKED(24, DEVICE, "mcast_self_blocked"),
    UD_OVERSIZE_NOT_SENT(25, DEVICE, "ud_oversize_not_sent"),
    DROP_TOO_SHORT(26, DEVICE, "drop_too_short"),
    DROP_UNKNOWN_OPCODE(27, DEVICE, "drop_unknown_opcode"),
    DROP_BAD_TRANSPORT_VERSION(28, DEVICE, "drop_bad_transport_version"),
    DROP_BAD_PKEY(29, DEVICE, "drop_bad_pkey"),
    DROP_BAD_PAD(30, DEVICE, "drop_bad_pad"),
    DROP_HDR_TRUNCATED(31, DEVICE, "drop_hdr_truncated"),
    DROP_BAD_QPN(32, DEVICE, "drop_bad_qpn"),
    DROP_ADDR_MISMATCH(33, DEVICE, "drop_addr_mismatch"),
    DROP_SHORT_MAD(34, DEVICE, "drop_short_mad"),
    DROP_ICRC(35, DEVICE, "icrc_err"),
    DROP_NO_QP(36, DEVICE, "drop_no_qp"),
    DROP_QP_STATE(37, DEVICE, "drop_qp_state"),
    DROP_WRONG_TRANSPORT(38, DEVICE, "drop_wrong_transport"),
    DROP_QKEY_VIOLATION(39, DEVICE, "qkey_violation"),
    DROP_NO_RECV_WQE(40, DEVICE, "drop_no_recv_wqe"),
    DROP_RECV_TOO_SMALL(41, DEVICE, "drop_recv_too_small"),
    DROP_RECV_BAD_LKEY(42, DEVICE, "drop_recv_bad_lkey"),
    DROP_NOT_A_MEMBER(43, DEVICE, "drop_mcast_not_member"),
    DROP_OWN_MCAST_ECHO(44, DEVICE, "drop_own_mcast_echo"),
    DROP_LINK_SEND(45, DEVICE, "drop_link_send"),
    DROP_NOT_FOR_US(46, DEVICE, "drop_not_for_us"),
    /** A key whose index names a live region but whose key byte is another: stale, or guessed. */
    MR_KEY_MISMATCH(47, DEVICE, "mr_key_mismatch"),
    /** Throwables the progress loop caught and survived: bugs or resource exhaustion, not packets. */
    PROGRESS_ERRORS(48, DEVICE, "progress_errors"),
    /** Datagrams sent through a same-host device's shared-memory inbox instead of UDP. */
    SHM_SENT_PKTS(49, LINK, "shm_sent_pkts"),
    /** Datagrams taken from this device's shared-memory inbox (then checked as any datagram). */
    SHM_RCVD_PKTS(50, LINK, "shm_rcvd_pkts"),
    /** Datagrams handed to the UDP socket (0 for a link of another kind). */
    UDP_SENT_PKTS(51, LINK, "udp_sent_pkts"),
    /** Datagrams read from the UDP socket, wake-ups not included. */
    UDP_RCVD_PKTS(52, LINK, "udp_rcvd_pkts"),
    /** Datagrams dropped because the destination's inbox was full: the same as a loss on a wire. */
    SHM_RING_FULL(53, LINK, "shm_ring_full"),
    /** A destination's inbox found closed or its process dead: its datagrams go by UDP again. */
    SHM_PEER_GONE(54, LINK, "shm_peer_gone"),
    /** Wake-up datagrams sent to a same-host device waiting in its socket's selector: one per wait. */
    SHM_WAKEUPS_SENT(55, LINK, "shm_wakeups_sent"),
    /** Wake-up datagrams (empty UDP datagrams) received. */
    SHM_WAKEUPS_RCVD(56, LINK, "shm_wakeups_rcvd"),
    /** An inbox file refused: not a regular file of this user. */
    SHM_REFUSED_OWNER(57, LINK, "shm_refused_owner"),
    /** An inbox file refused: others than its owner may read or write it. */
    SHM_REFUSED_MODE(58, LINK, "shm_refused_mode"),
    /** An inbox file refused: not laid out as an inbox of its address. */
    SHM_REFUSED_FORMAT(59, LINK, "shm_refused_format"),
    /** An inbox file refused: closed, or left by a dead process. */
    SHM_REFUSED_DEAD(60, LINK, "shm_refused_dead"),
    /** This device's inbox held a record no sender of ours writes, or stalled: replaced by a fresh one. */
    SHM_INBOX_CORRUPT(61, LINK, "shm_inbox_corrupt"),
    /** The stat file was truncated, replaced or removed by another process: the device stopped publishing. */
    STAT_FILE_ABANDONED(62, DEVICE, "stat_file_abandoned"),
    /** A UD datagram whose payload is larger than the port's active MTU: no UD message may be. */
    DROP_UD_OVER_MTU(63, DEVICE, "drop_ud_over_mtu"),
    /** A response no outstanding request expects (to an idle QP, or an old duplicate): ignored, as rxe does. */
    DROP_UNEXPECTED_RESPONSE(64, DEVICE, "drop_unexpected_response"),
    /**
     * A UDP datagram for a connected QP whose peer is a device of this user on this host, which sends through
     * the owner-only inbox: another local process claiming the peer's address (hardening issue, item 2).
     */
    DROP_LOCAL_PEER_BY_UDP(88, DEVICE, "drop_local_peer_by_udp"),
    /** Keepalive probes an idle RC QP sent (issue 43, item 4): a duplicate of its last PSN, which the peer re-ACKs. */
    KEEPALIVE_PROBES(94, DEVICE, "keepalive_probes"),
    /** Keepalive probes the peer acknowledged: it is alive. */
    KEEPALIVE_ANSWERED(95, DEVICE, "keepalive_answered"),
    /** Idle RC QPs whose keepalive probes all went unanswered: the QP went to ERR, as on retries exceeded. */
    KEEPALIVE_TIMEOUTS(96, DEVICE, "keepalive_timeouts"),
    /** Waits for an event that spun before they blocked ({@code rdma4j.soft.wait.spin}, issue 40). */
    WAIT_SPINS(97, DEVICE, "wait_spins"),
    /** Spins that paid: the wait was satisfied within the budget, with no sleep and no wake-up. */
    WAIT_SPINS_PAID(98, DEVICE, "wait_spins_paid"),
    /**
     * A place of the same-host inboxes refused when the device opened: made first by another user, open to others,
     * a link, or in a parent others may rename it in (issue 41). The device's inbox is in a later place, or with
     * every place refused it has none and speaks UDP only.
     */
    SHM_DIR_REFUSED(92, LINK, "shm_dir_refused"),
    /**
     * A connected QP's peer is an address of this host that no inbox of this user's serves (the peer is another
     * user's, has the path off, or this device has no inbox): any local user can send datagrams from
     * that address into the connection, which the receive checks cannot tell from the peer's (issue 41).
     */
    SHM_UNPROTECTED_PEER(93, LINK, "shm_unprotected_peer"),
    /** ICMP port unreachable answers to our datagrams: no RoCEv2 device listens at that address. */
    ICMP_PORT_UNREACHABLE(65, LINK, "icmp_port_unreachable"),
    /** Datagrams the kernel dropped because the socket's receive buffer was full (SO_RXQ_OVFL, Linux socket). */
    UDP_RCVBUF_DROPS(66, LINK, "udp_rcvbuf_drops"),
    /** Datagrams a link could not hand to the kernel (the NIO and the Linux socket, wake-ups included). */
    UDP_SEND_FAILURES(67, LINK, "udp_send_failures"),
    /** Receive calls that failed with an I/O error (the NIO socket; the Linux one has none, see its link). */
    UDP_RECV_FAILURES(68, LINK, "udp_recv_failures"),
    /** {@code sendmmsg}/{@code sendmsg} calls (the Linux socket). */
    UDP_SEND_SYSCALLS(69, LINK, "udp_send_syscalls"),
    /** {@code recvmmsg} calls that returned datagrams (the Linux socket). */
    UDP_RECV_SYSCALLS(70, LINK, "udp_recv_syscalls"),
    /** Messages sent with {@code UDP_SEGMENT}, each carrying several datagrams (the Linux socket). */
    UDP_GSO_MSGS(71, LINK, "udp_gso_msgs"),
    /** Slots that received a GRO run of several datagrams (the Linux socket). */
    UDP_GRO_RUNS(72, LINK, "udp_gro_runs"),
    /** Datagrams sent with their payload gathered in place from registered memory, not copied (the Linux socket). */
    UDP_GATHERED_PKTS(73, LINK, "udp_gathered_pkts"),
    /** Datagrams dropped because they did not fit a receive slot (the Linux socket; not below 64 KiB). */
    UDP_TRUNCATED_DROPS(74, LINK, "udp_truncated_drops"),
    /**
     * Receives that failed on an error the socket reported, most often an ICMP error answering one of our datagrams
     * (the Linux socket, with {@code IP_RECVERR}): the error is consumed and the receive tried again at once.
     */
    UDP_RECV_SOCKET_ERRORS(89, LINK, "udp_recv_socket_errors"),
    /** Datagrams a lossy link dropped on purpose ({@code rdma4j.soft.loss}), reported to the sender as sent. */
    DROP_INJECTED(75, LINK, "drop_injected"),
    /** MADs of this device the connection manager handled: a request offered or refused, a reply applied. */
    CM_HANDLED(76, CM, "cm_handled"),
    /** MADs of this device dropped because the connection manager's work queue was full. */
    CM_DROP_QUEUE_FULL(77, CM, "cm_drop_queue_full"),
    /** Not a CM MAD rdma_cm accepts (class, version, attribute, rdma_cm header). */
    CM_DROP_MALFORMED(78, CM, "cm_drop_malformed"),
    /** Names a communication id (or SIDR request id) that does not exist. */
    CM_DROP_UNKNOWN_COMM_ID(79, CM, "cm_drop_unknown_comm_id"),
    /** Came from another address than the connection's peer. */
    CM_DROP_WRONG_SOURCE(80, CM, "cm_drop_wrong_source"),
    /** Carries a peer communication id other than the connection's. */
    CM_DROP_WRONG_REMOTE_COMM_ID(81, CM, "cm_drop_wrong_remote_comm_id"),
    /** A DREQ naming a QP other than the connection's. */
    CM_DROP_WRONG_QPN(82, CM, "cm_drop_wrong_qpn"),
    /** A reply with another transaction id than its request's. */
    CM_DROP_WRONG_TID(83, CM, "cm_drop_wrong_tid"),
    /** An MRA for a message already MRAed. */
    CM_DROP_REPEATED_MRA(84, CM, "cm_drop_repeated_mra"),
    /** Valid, but not expected in the connection's phase. */
    CM_DROP_UNEXPECTED(85, CM, "cm_drop_unexpected"),
    /** A request nobody listens for: refused. */
    CM_REFUSED(86, CM, "cm_refused"),
    /** A MAD whose handling threw: a bug. The connection manager goes on. */
    CM_TASK_FAILED(87, CM, "cm_task_failed"),
    /** A request whose listener's backlog was full: dropped unanswered, so that its sender tries again. */
    CM_DROP_BACKLOG_FULL(90, CM, "cm_drop_backlog_full"),
    /** An MRA past the number one connection may receive: the connection attempt failed. */
    CM_MRA_LIMIT(91, CM, "cm_mra_limit");

    /**
     * One more than the largest id: the size of a table indexed by id. Ids are never reused, so a counter
     * removed leaves its slot unused rather than handing its id to another.
     */
    public static final int ID_LIMIT = 99;

    private static final SoftCounter[] BY_ID = indexById();
    /** Built once: the stat thread lists every QP's counters each second, and allocated a list a QP for it. */
    private static final java.util.List<SoftCounter> IN_ID_ORDER = listInIdOrder();
    private static final java.util.Map<String, SoftCounter> BY_NAME = indexByName();
    private static final java.util.Set<SoftCounter> RECEIVE_VERDICTS = java.util.Collections.unmodifiableSet(
        java.util.EnumSet.of(RCVD_PKTS, DROP_TOO_SHORT, DROP_UNKNOWN_OPCODE, DROP_HDR_TRUNCATED,
            DROP_BAD_TRANSPORT_VERSION, DROP_BAD_QPN, DROP_BAD_PKEY, DROP_BAD_PAD, DROP_ICRC, DROP_NO_QP,
            DROP_WRONG_TRANSPORT, DROP_QP_STATE, DROP_ADDR_MISMATCH, DROP_QKEY_VIOLATION, DROP_SHORT_MAD,
            DROP_NOT_A_MEMBER, DROP_OWN_MCAST_ECHO, DROP_NOT_FOR_US, DROP_UD_OVER_MTU, DROP_LOCAL_PEER_BY_UDP));

    /** Where the counter is in memory and in what readers see: fixed by hand, never derived from the order above. */
    private final int id;
    private final CounterGroup group;
    private final String counterName;

    SoftCounter(final int id, final CounterGroup group, final String counterName)
    {
        this.id = id;
        this.group = group;
        this.counterName = counterName;
    }

    private static SoftCounter[] indexById()
    {
        final SoftCounter[] table = new SoftCounter[ID_LIMIT];
        for (final SoftCounter counter : values())
        {
            // a duplicate or out-of-range id would make two counters share a slot: fail the class, not the data
            if (counter.id < 0 || counter.id >= ID_LIMIT || table[counter.id] != null)
            {
                throw new ExceptionInInitializerError("counter id " + counter.id + " of " + counter +
                    " is out of range or taken");
            }
            table[counter.id] = counter;
        }
        return table;
    }

    private static java.util.Map<String, SoftCounter> indexByName()
    {
        final java.util.Map<String, SoftCounter> map = new java.util.HashMap<>();
        for (final SoftCounter counter : values())
        {
            map.put(counter.counterName, counter);
        }
        return java.util.Map.copyOf(map);
    }

    /**
     * @return the counter's id: what the stat file and JMX identify it by, with its name. It never changes and
     *         is never given to another counter.
     */
    public int id()
    {
        return id;
    }

    /**
     * @return what the counter counts for: the device, its link, or the connection manager on it.
     */
    public CounterGroup group()
    {
        return group;
    }

    /**
     * @return the counter's name as tools print it.
     */
    public String counterName()
    {
        return counterName;
    }

    /**
     * The outcomes of the device's receive checks: every datagram the link delivers bumps exactly one
     * of these, {@code rcvd_pkts} when it passed and was handed to a QP, QP1 or a group, or the
     * counter of the first check it failed. (A datagram whose handling threw is counted in
     * {@code progress_errors} as well, which is no verdict.) What a QP's
     * transport then makes of a received packet (duplicate, out of sequence, no receive WQE...) is
     * counted on top, as rxe counts it.
     *
     * @return the device-level receive verdicts.
     */
    public static java.util.Set<SoftCounter> receiveVerdicts()
    {
        return RECEIVE_VERDICTS;
    }

    /**
     * @param id a counter's id.
     * @return the counter, or null if no counter has that id.
     */
    public static SoftCounter byId(final int id)
    {
        return id >= 0 && id < ID_LIMIT ? BY_ID[id] : null;
    }

    /**
     * @param name a counter's name.
     * @return the counter, or null if none is so named.
     */
    public static SoftCounter byName(final String name)
    {
        return BY_NAME.get(name);
    }

    /**
     * @return every counter, in id order; the list cannot be changed.
     */
    public static java.util.List<SoftCounter> inIdOrder()
    {
        return IN_ID_ORDER;
    }

    private static java.util.List<SoftCounter> listInIdOrder()
    {
        final java.util.List<SoftCounter> list = new java.util.ArrayList<>();
        for (final SoftCounter counter : BY_ID)
        {
            if (counter != null)
            {
                list.add(counter);
            }
        }
        return java.util.List.copyOf(list);
    }
}
