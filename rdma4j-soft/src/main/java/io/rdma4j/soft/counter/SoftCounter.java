package io.rdma4j.soft.counter;

/**
 * The counters of a software device and of each of its QPs: rxe's {@code hw_counters} names where
 * rxe has one, ours in the same style for every cause of a dropped packet.
 */
public enum SoftCounter
{
    SENT_PKTS("sent_pkts"),
    RCVD_PKTS("rcvd_pkts"),
    DUPLICATE_REQUEST("duplicate_request"),
    OUT_OF_SEQ_REQUEST("out_of_seq_request"),
    RCVD_RNR_ERR("rcvd_rnr_err"),
    SEND_RNR_ERR("send_rnr_err"),
    RCVD_SEQ_ERR("rcvd_seq_err"),
    ACK_DEFERRED("ack_deferred"),
    RETRY_EXCEEDED_ERR("retry_exceeded_err"),
    RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err"),
    COMPLETER_RETRY_ERR("completer_retry_err"),
    SEND_ERR("send_err"),
    LINK_DOWNED("link_downed"),
    RDMA_SENDS("rdma_sends"),
    RDMA_RECVS("rdma_recvs"),
    RETRANSMITTED_PKTS("retransmitted_pkts"),
    RCVD_NAKS("rcvd_naks"),
    SENT_NAKS("sent_naks"),
    SENT_ACKS("sent_acks"),
    MCAST_FANOUT("mcast_fanout"),
    GSI_SENT_MADS("gsi_sent_mads"),
    GSI_RCVD_MADS("gsi_rcvd_mads"),
    GSI_DROPPED_MADS("gsi_dropped_mads"),
    MCAST_LOOPBACK("mcast_loopback"),
    /** A QP's own multicast send not looped back to it: it was created with BLOCK_SELF_MCAST_LB. */
    MCAST_SELF_BLOCKED("mcast_self_blocked"),
    UD_OVERSIZE_NOT_SENT("ud_oversize_not_sent"),
    DROP_TOO_SHORT("drop_too_short"),
    DROP_UNKNOWN_OPCODE("drop_unknown_opcode"),
    DROP_BAD_TRANSPORT_VERSION("drop_bad_transport_version"),
    DROP_BAD_PKEY("drop_bad_pkey"),
    DROP_BAD_PAD("drop_bad_pad"),
    DROP_HDR_TRUNCATED("drop_hdr_truncated"),
    DROP_BAD_QPN("drop_bad_qpn"),
    DROP_ADDR_MISMATCH("drop_addr_mismatch"),
    DROP_SHORT_MAD("drop_short_mad"),
    DROP_ICRC("icrc_err"),
    DROP_NO_QP("drop_no_qp"),
    DROP_QP_STATE("drop_qp_state"),
    DROP_WRONG_TRANSPORT("drop_wrong_transport"),
    DROP_QKEY_VIOLATION("qkey_violation"),
    DROP_NO_RECV_WQE("drop_no_recv_wqe"),
    DROP_RECV_TOO_SMALL("drop_recv_too_small"),
    DROP_RECV_BAD_LKEY("drop_recv_bad_lkey"),
    DROP_NOT_A_MEMBER("drop_mcast_not_member"),
    DROP_OWN_MCAST_ECHO("drop_own_mcast_echo"),
    DROP_LINK_SEND("drop_link_send"),
    DROP_NOT_FOR_US("drop_not_for_us"),
    /** A key whose index names a live region but whose key byte is another: stale, or guessed. */
    MR_KEY_MISMATCH("mr_key_mismatch"),
    /** Throwables the progress loop caught and survived: bugs or resource exhaustion, not packets. */
    PROGRESS_ERRORS("progress_errors"),
    /** Datagrams sent through a same-host device's shared-memory inbox instead of UDP. */
    SHM_SENT_PKTS("shm_sent_pkts"),
    /** Datagrams taken from this device's shared-memory inbox (then checked as any datagram). */
    SHM_RCVD_PKTS("shm_rcvd_pkts"),
    /** Datagrams handed to the UDP socket (0 for a link of another kind). */
    UDP_SENT_PKTS("udp_sent_pkts"),
    /** Datagrams read from the UDP socket, wake-ups not included. */
    UDP_RCVD_PKTS("udp_rcvd_pkts"),
    /** Datagrams dropped because the destination's inbox was full: the same as a loss on a wire. */
    SHM_RING_FULL("shm_ring_full"),
    /** A destination's inbox found closed or its process dead: its datagrams go by UDP again. */
    SHM_PEER_GONE("shm_peer_gone"),
    /** Wake-up datagrams sent to a same-host device waiting in its socket's selector: one per wait. */
    SHM_WAKEUPS_SENT("shm_wakeups_sent"),
    /** Wake-up datagrams (empty UDP datagrams) received. */
    SHM_WAKEUPS_RCVD("shm_wakeups_rcvd"),
    /** An inbox file refused: not a regular file of this user. */
    SHM_REFUSED_OWNER("shm_refused_owner"),
    /** An inbox file refused: others than its owner may read or write it. */
    SHM_REFUSED_MODE("shm_refused_mode"),
    /** An inbox file refused: not laid out as an inbox of its address. */
    SHM_REFUSED_FORMAT("shm_refused_format"),
    /** An inbox file refused: closed, or left by a dead process. */
    SHM_REFUSED_DEAD("shm_refused_dead"),
    /** This device's inbox held a record no sender of ours writes, or stalled: replaced by a fresh one. */
    SHM_INBOX_CORRUPT("shm_inbox_corrupt"),
    /** The stat file was truncated, replaced or removed by another process: the device stopped publishing. */
    STAT_FILE_ABANDONED("stat_file_abandoned"),
    /** A UD datagram whose payload is larger than the port's active MTU: no UD message may be. */
    DROP_UD_OVER_MTU("drop_ud_over_mtu"),
    /** A response no outstanding request expects (to an idle QP, or an old duplicate): ignored, as rxe does. */
    DROP_UNEXPECTED_RESPONSE("drop_unexpected_response"),
    /** ICMP port unreachable answers to our datagrams: no RoCEv2 device listens at that address. */
    ICMP_PORT_UNREACHABLE("icmp_port_unreachable"),
    /** Datagrams the kernel dropped because the socket's receive buffer was full (SO_RXQ_OVFL, Linux socket). */
    UDP_RCVBUF_DROPS("udp_rcvbuf_drops");

    private static final SoftCounter[] VALUES = values();
    private static final java.util.Set<SoftCounter> RECEIVE_VERDICTS = java.util.Collections.unmodifiableSet(
        java.util.EnumSet.of(RCVD_PKTS, DROP_TOO_SHORT, DROP_UNKNOWN_OPCODE, DROP_HDR_TRUNCATED,
            DROP_BAD_TRANSPORT_VERSION, DROP_BAD_QPN, DROP_BAD_PKEY, DROP_BAD_PAD, DROP_ICRC, DROP_NO_QP,
            DROP_WRONG_TRANSPORT, DROP_QP_STATE, DROP_ADDR_MISMATCH, DROP_QKEY_VIOLATION, DROP_SHORT_MAD,
            DROP_NOT_A_MEMBER, DROP_OWN_MCAST_ECHO, DROP_NOT_FOR_US, DROP_UD_OVER_MTU));

    private final String counterName;

    SoftCounter(final String counterName)
    {
        this.counterName = counterName;
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
     * @param index ordinal.
     * @return the counter.
     */
    public static SoftCounter of(final int index)
    {
        return VALUES[index];
    }
}
