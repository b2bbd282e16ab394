package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvAhAttr;
import io.rdma4j.rdmacore.abi.IbvQpAttr;
import io.rdma4j.rdmacore.abi.IbvQpCap;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpState;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.rdma4j.rdmacore.abi.CLayout.offset;

/**
 * Between the API's attribute objects and their C structs, for the control path (modify, query, create).
 */
public final class Structs
{
    private static final GroupLayout AH = IbvAhAttr.LAYOUT;
    private static final GroupLayout QP = IbvQpAttr.LAYOUT;
    private static final long AH_DGID = offset(AH, "grh", "dgid");
    private static final long AH_FLOW_LABEL = offset(AH, "grh", "flow_label");
    private static final long AH_SGID_INDEX = offset(AH, "grh", "sgid_index");
    private static final long AH_HOP_LIMIT = offset(AH, "grh", "hop_limit");
    private static final long AH_TRAFFIC_CLASS = offset(AH, "grh", "traffic_class");
    private static final long AH_DLID = offset(AH, "dlid");
    private static final long AH_SL = offset(AH, "sl");
    private static final long AH_SRC_PATH_BITS = offset(AH, "src_path_bits");
    private static final long AH_STATIC_RATE = offset(AH, "static_rate");
    private static final long AH_IS_GLOBAL = offset(AH, "is_global");
    private static final long AH_PORT_NUM = offset(AH, "port_num");

    private Structs()
    {
    }

    static void writeAhAttr(final MemorySegment segment, final AhAttr attr)
    {
        final MemorySegment ah = segment.asSlice(0, AH.byteSize()).fill((byte)0);
        if (attr.isGlobal())
        {
            final GlobalRoute grh = attr.grh();
            MemorySegment.copy(MemorySegment.ofArray(grh.dgid().toBytes()), 0, ah, AH_DGID, 16);
            ah.set(ValueLayout.JAVA_INT, AH_FLOW_LABEL, grh.flowLabel());
            ah.set(ValueLayout.JAVA_BYTE, AH_SGID_INDEX, (byte)grh.sgidIndex());
            ah.set(ValueLayout.JAVA_BYTE, AH_HOP_LIMIT, (byte)grh.hopLimit());
            ah.set(ValueLayout.JAVA_BYTE, AH_TRAFFIC_CLASS, (byte)grh.trafficClass());
            ah.set(ValueLayout.JAVA_BYTE, AH_IS_GLOBAL, (byte)1);
        }
        ah.set(ValueLayout.JAVA_SHORT, AH_DLID, (short)attr.dlid());
        ah.set(ValueLayout.JAVA_BYTE, AH_SL, (byte)attr.sl());
        ah.set(ValueLayout.JAVA_BYTE, AH_SRC_PATH_BITS, (byte)attr.srcPathBits());
        ah.set(ValueLayout.JAVA_BYTE, AH_STATIC_RATE, (byte)attr.staticRate());
        ah.set(ValueLayout.JAVA_BYTE, AH_PORT_NUM, (byte)attr.portNum());
    }

    /**
     * @param ah a {@code struct ibv_ah_attr}, e.g. inside librdmacm's {@code rdma_ud_param}.
     * @return its address vector.
     */
    public static AhAttr readAhAttr(final MemorySegment ah)
    {
        GlobalRoute grh = null;
        if (ah.get(ValueLayout.JAVA_BYTE, AH_IS_GLOBAL) != 0)
        {
            grh = new GlobalRoute(Gid.of(ah.asSlice(AH_DGID, 16).toArray(ValueLayout.JAVA_BYTE)),
                ah.get(ValueLayout.JAVA_INT, AH_FLOW_LABEL), u8(ah, AH_SGID_INDEX), u8(ah, AH_HOP_LIMIT),
                u8(ah, AH_TRAFFIC_CLASS));
        }
        return new AhAttr(grh, Short.toUnsignedInt(ah.get(ValueLayout.JAVA_SHORT, AH_DLID)), u8(ah, AH_SL),
            u8(ah, AH_SRC_PATH_BITS), u8(ah, AH_STATIC_RATE), u8(ah, AH_PORT_NUM));
    }

    /**
     * @param cap a {@code struct ibv_qp_cap} to fill.
     * @param value the capabilities asked for.
     */
    public static void writeCap(final MemorySegment cap, final QpCap value)
    {
        cap.set(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_send_wr"), value.maxSendWr());
        cap.set(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_recv_wr"), value.maxRecvWr());
        cap.set(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_send_sge"), value.maxSendSge());
        cap.set(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_recv_sge"), value.maxRecvSge());
        cap.set(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_inline_data"), value.maxInlineData());
    }

    /**
     * @param cap a {@code struct ibv_qp_cap}, as a create call wrote back what it granted.
     * @return the capabilities.
     */
    public static QpCap readCap(final MemorySegment cap)
    {
        return new QpCap(cap.get(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_send_wr")),
            cap.get(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_recv_wr")),
            cap.get(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_send_sge")),
            cap.get(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_recv_sge")),
            cap.get(ValueLayout.JAVA_INT, offset(IbvQpCap.LAYOUT, "max_inline_data")));
    }

    /**
     * Write every attribute; the mask passed to {@code ibv_modify_qp} says which the provider reads.
     */
    static void writeQpAttr(final MemorySegment a, final QpAttr attr)
    {
        a.fill((byte)0);
        a.set(ValueLayout.JAVA_INT, offset(QP, "qp_state"), attr.state().value());
        a.set(ValueLayout.JAVA_INT, offset(QP, "cur_qp_state"), attr.curState().value());
        a.set(ValueLayout.JAVA_INT, offset(QP, "path_mtu"), attr.pathMtu().value());
        a.set(ValueLayout.JAVA_INT, offset(QP, "qkey"), attr.qkey());
        a.set(ValueLayout.JAVA_INT, offset(QP, "rq_psn"), attr.rqPsn());
        a.set(ValueLayout.JAVA_INT, offset(QP, "sq_psn"), attr.sqPsn());
        a.set(ValueLayout.JAVA_INT, offset(QP, "dest_qp_num"), attr.destQpNum());
        a.set(ValueLayout.JAVA_INT, offset(QP, "qp_access_flags"), attr.accessFlags());
        if (attr.cap() != null)
        {
            writeCap(a.asSlice(offset(QP, "cap"), IbvQpCap.LAYOUT.byteSize()), attr.cap());
        }
        if (attr.ahAttr() != null)
        {
            writeAhAttr(a.asSlice(offset(QP, "ah_attr"), AH.byteSize()), attr.ahAttr());
        }
        a.set(ValueLayout.JAVA_SHORT, offset(QP, "pkey_index"), (short)attr.pkeyIndex());
        a.set(ValueLayout.JAVA_BYTE, offset(QP, "sq_draining"), (byte)(attr.sqDraining() ? 1 : 0));
        a.set(ValueLayout.JAVA_BYTE, offset(QP, "max_rd_atomic"), (byte)attr.maxRdAtomic());
        a.set(ValueLayout.JAVA_BYTE, offset(QP, "max_dest_rd_atomic"), (byte)attr.maxDestRdAtomic());
        a.set(ValueLayout.JAVA_BYTE, offset(QP, "min_rnr_timer"), (byte)attr.minRnrTimer());
        a.set(ValueLayout.JAVA_BYTE, offset(QP, "port_num"), (byte)attr.portNum());
        a.set(ValueLayout.JAVA_BYTE, offset(QP, "timeout"), (byte)attr.timeout());
        a.set(ValueLayout.JAVA_BYTE, offset(QP, "retry_cnt"), (byte)attr.retryCnt());
        a.set(ValueLayout.JAVA_BYTE, offset(QP, "rnr_retry"), (byte)attr.rnrRetry());
    }

    public static QpAttr readQpAttr(final MemorySegment a)
    {
        final QpState[] states = QpState.values();
        final int state = a.get(ValueLayout.JAVA_INT, offset(QP, "qp_state"));
        final int current = a.get(ValueLayout.JAVA_INT, offset(QP, "cur_qp_state"));
        final int mtu = a.get(ValueLayout.JAVA_INT, offset(QP, "path_mtu"));
        final QpAttr attr = new QpAttr()
            .state(state >= 0 && state < states.length ? states[state] : QpState.ERR)
            .curState(current >= 0 && current < states.length ? states[current] : QpState.ERR)
            .pathMtu(mtu >= 1 && mtu <= 5 ? Mtu.fromValue(mtu) : Mtu.MTU_256)
            .qkey(a.get(ValueLayout.JAVA_INT, offset(QP, "qkey")))
            .rqPsn(a.get(ValueLayout.JAVA_INT, offset(QP, "rq_psn")))
            .sqPsn(a.get(ValueLayout.JAVA_INT, offset(QP, "sq_psn")))
            .destQpNum(a.get(ValueLayout.JAVA_INT, offset(QP, "dest_qp_num")))
            .accessFlags(a.get(ValueLayout.JAVA_INT, offset(QP, "qp_access_flags")))
            .cap(readCap(a.asSlice(offset(QP, "cap"), IbvQpCap.LAYOUT.byteSize())))
            .pkeyIndex(Short.toUnsignedInt(a.get(ValueLayout.JAVA_SHORT, offset(QP, "pkey_index"))))
            .sqDraining(a.get(ValueLayout.JAVA_BYTE, offset(QP, "sq_draining")) != 0)
            .maxRdAtomic(u8(a, offset(QP, "max_rd_atomic")))
            .maxDestRdAtomic(u8(a, offset(QP, "max_dest_rd_atomic")))
            .minRnrTimer(u8(a, offset(QP, "min_rnr_timer")))
            .portNum(u8(a, offset(QP, "port_num")))
            .timeout(u8(a, offset(QP, "timeout")))
            .retryCnt(u8(a, offset(QP, "retry_cnt")))
            .rnrRetry(u8(a, offset(QP, "rnr_retry")));
        final MemorySegment ah = a.asSlice(offset(QP, "ah_attr"), AH.byteSize());
        if (ah.get(ValueLayout.JAVA_BYTE, AH_IS_GLOBAL) != 0 || ah.get(ValueLayout.JAVA_SHORT, AH_DLID) != 0)
        {
            attr.ahAttr(readAhAttr(ah));
        }
        return attr.clearMask();
    }

    private static int u8(final MemorySegment segment, final long offset)
    {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset));
    }
}
