package io.rdma4j.tools;

import io.rdma4j.tools.common.GidText;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.DeviceAttr;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.PortAttr;
import io.rdma4j.verbs.RdmaException;

/**
 * Writes a device's attributes exactly as rdma-core's {@code ibv_devinfo} (and {@code -v}) lays
 * them out, tabs included, so output can be compared line by line with a real rxe device. The
 * attributes the API does not model (ODP, TSO, RSS, packet pacing, tag matching) are printed as
 * rxe reports them, since neither rxe nor the software device has them.
 */
public final class DevinfoFormatter
{
    private static final String[] CAP_FLAG_NAMES = {
        "RESIZE_MAX_WR", "BAD_PKEY_CNTR", "BAD_QKEY_CNTR", "RAW_MULTI", "AUTO_PATH_MIG", "CHANGE_PHY_PORT",
        "UD_AV_PORT_ENFORCE", "CURR_QP_STATE_MOD", "SHUTDOWN_PORT", "INIT_TYPE", "PORT_ACTIVE_EVENT",
        "SYS_IMAGE_GUID", "RC_RNR_NAK_GEN", "SRQ_RESIZE", "N_NOTIFY_CQ", null, null, "MEM_WINDOW", "UD_IP_CSUM",
        null, "XRC", "MEM_MGT_EXTENSIONS", null, "MEM_WINDOW_TYPE_2A", "MEM_WINDOW_TYPE_2B", "RC_IP_CSUM",
        "RAW_IP_CSUM", null, null, "MANAGED_FLOW_STEERING" };

    private DevinfoFormatter()
    {
    }

    /**
     * @param ctx      an open device.
     * @param portNum  only this port, or 0 for every port.
     * @param verbose  true for {@code ibv_devinfo -v}.
     * @return the device's block, ending with a blank line after each port.
     */
    public static String format(final Context ctx, final int portNum, final boolean verbose)
    {
        final DeviceAttr a = ctx.queryDevice();
        final StringBuilder sb = new StringBuilder(4096);
        sb.append("hca_id:\t").append(ctx.device().name()).append('\n');
        // rxe registers as an IB transport even on Ethernet; so does every RoCE device.
        sb.append("\ttransport:\t\t\tInfiniBand (0)\n");
        sb.append("\tfw_ver:\t\t\t\t").append(a.fwVer()).append('\n');
        sb.append("\tnode_guid:\t\t\t").append(GidText.guid(a.nodeGuid())).append('\n');
        sb.append("\tsys_image_guid:\t\t\t").append(GidText.guid(a.sysImageGuid())).append('\n');
        sb.append(String.format("\tvendor_id:\t\t\t0x%04x%n", a.vendorId()));
        sb.append("\tvendor_part_id:\t\t\t").append(a.vendorPartId()).append('\n');
        sb.append(String.format("\thw_ver:\t\t\t\t0x%X%n", a.hwVer()));
        sb.append("\tphys_port_cnt:\t\t\t").append(a.physPortCnt()).append('\n');
        if (verbose)
        {
            appendDeviceVerbose(sb, a);
        }
        for (int port = 1; port <= a.physPortCnt(); port++)
        {
            if (portNum != 0 && port != portNum)
            {
                continue;
            }
            appendPort(sb, ctx, port, verbose);
        }
        return sb.toString().replace(System.lineSeparator(), "\n");
    }

    private static void appendDeviceVerbose(final StringBuilder sb, final DeviceAttr a)
    {
        sb.append(String.format("\tmax_mr_size:\t\t\t0x%x%n", a.maxMrSize()));
        sb.append(String.format("\tpage_size_cap:\t\t\t0x%x%n", a.pageSizeCap()));
        sb.append("\tmax_qp:\t\t\t\t").append(a.maxQp()).append('\n');
        sb.append("\tmax_qp_wr:\t\t\t").append(a.maxQpWr()).append('\n');
        sb.append(String.format("\tdevice_cap_flags:\t\t0x%08x%n", a.deviceCapFlags()));
        appendCapFlags(sb, a.deviceCapFlags());
        sb.append("\tmax_sge:\t\t\t").append(a.maxSge()).append('\n');
        sb.append("\tmax_sge_rd:\t\t\t").append(a.maxSgeRd()).append('\n');
        sb.append("\tmax_cq:\t\t\t\t").append(a.maxCq()).append('\n');
        sb.append("\tmax_cqe:\t\t\t").append(a.maxCqe()).append('\n');
        sb.append("\tmax_mr:\t\t\t\t").append(a.maxMr()).append('\n');
        sb.append("\tmax_pd:\t\t\t\t").append(a.maxPd()).append('\n');
        sb.append("\tmax_qp_rd_atom:\t\t\t").append(a.maxQpRdAtom()).append('\n');
        sb.append("\tmax_ee_rd_atom:\t\t\t").append(a.maxEeRdAtom()).append('\n');
        sb.append("\tmax_res_rd_atom:\t\t").append(a.maxResRdAtom()).append('\n');
        sb.append("\tmax_qp_init_rd_atom:\t\t").append(a.maxQpInitRdAtom()).append('\n');
        sb.append("\tmax_ee_init_rd_atom:\t\t").append(a.maxEeInitRdAtom()).append('\n');
        sb.append("\tatomic_cap:\t\t\t").append(atomicCap(a.atomicCap())).append(" (").append(a.atomicCap())
            .append(")\n");
        sb.append("\tmax_ee:\t\t\t\t").append(a.maxEe()).append('\n');
        sb.append("\tmax_rdd:\t\t\t").append(a.maxRdd()).append('\n');
        sb.append("\tmax_mw:\t\t\t\t").append(a.maxMw()).append('\n');
        sb.append("\tmax_raw_ipv6_qp:\t\t").append(a.maxRawIpv6Qp()).append('\n');
        sb.append("\tmax_raw_ethy_qp:\t\t").append(a.maxRawEthyQp()).append('\n');
        sb.append("\tmax_mcast_grp:\t\t\t").append(a.maxMcastGrp()).append('\n');
        sb.append("\tmax_mcast_qp_attach:\t\t").append(a.maxMcastQpAttach()).append('\n');
        sb.append("\tmax_total_mcast_qp_attach:\t").append(a.maxTotalMcastQpAttach()).append('\n');
        sb.append("\tmax_ah:\t\t\t\t").append(a.maxAh()).append('\n');
        sb.append("\tmax_fmr:\t\t\t").append(a.maxFmr()).append('\n');
        if (a.maxFmr() > 0)
        {
            sb.append("\tmax_map_per_fmr:\t\t").append(a.maxMapPerFmr()).append('\n');
        }
        sb.append("\tmax_srq:\t\t\t").append(a.maxSrq()).append('\n');
        if (a.maxSrq() > 0)
        {
            sb.append("\tmax_srq_wr:\t\t\t").append(a.maxSrqWr()).append('\n');
            sb.append("\tmax_srq_sge:\t\t\t").append(a.maxSrqSge()).append('\n');
        }
        sb.append("\tmax_pkeys:\t\t\t").append(a.maxPkeys()).append('\n');
        sb.append("\tlocal_ca_ack_delay:\t\t").append(a.localCaAckDelay()).append('\n');
        sb.append("\tgeneral_odp_caps:\n");
        for (final String transport : new String[] {"rc", "uc", "ud", "xrc"})
        {
            sb.append('\t').append(transport).append("_odp_caps:\n\t\t\t\t\tNO SUPPORT\n");
        }
        sb.append("\tcompletion_timestamp_mask not supported\n");
        sb.append("\tcore clock not supported\n");
        sb.append(String.format("\tdevice_cap_flags_ex:\t\t0x%X%n", a.deviceCapFlags()));
        sb.append("\ttso_caps:\n\t\tmax_tso:\t\t\t0\n");
        sb.append("\trss_caps:\n");
        sb.append("\t\tmax_rwq_indirection_tables:\t\t\t0\n");
        sb.append("\t\tmax_rwq_indirection_table_size:\t\t\t0\n");
        sb.append("\t\trx_hash_function:\t\t\t\t0x0\n");
        sb.append("\t\trx_hash_fields_mask:\t\t\t\t0x0\n");
        sb.append("\tmax_wq_type_rq:\t\t\t0\n");
        sb.append("\tpacket_pacing_caps:\n");
        sb.append("\t\tqp_rate_limit_min:\t0kbps\n");
        sb.append("\t\tqp_rate_limit_max:\t0kbps\n");
        sb.append("\ttag matching not supported\n");
        // The API has no completion vectors; every provider has exactly one, as rxe.
        sb.append("\tnum_comp_vectors:\t\t1\n");
    }

    private static void appendCapFlags(final StringBuilder sb, final long flags)
    {
        long unknown = 0;
        for (int bit = 0; bit < 64; bit++)
        {
            if ((flags & (1L << bit)) == 0)
            {
                continue;
            }
            final String name = bit < CAP_FLAG_NAMES.length ? CAP_FLAG_NAMES[bit] : null;
            if (name == null)
            {
                unknown |= 1L << bit;
            }
            else
            {
                sb.append("\t\t\t\t\t").append(name).append('\n');
            }
        }
        if (unknown != 0)
        {
            sb.append(String.format("\t\t\t\t\tUnknown flags: 0x%X%n", unknown));
        }
    }

    private static void appendPort(final StringBuilder sb, final Context ctx, final int port, final boolean verbose)
    {
        final PortAttr p = ctx.queryPort(port);
        sb.append("\t\tport:\t").append(port).append('\n');
        sb.append("\t\t\tstate:\t\t\t").append(p.state().description()).append(" (").append(p.state().ordinal())
            .append(")\n");
        sb.append("\t\t\tmax_mtu:\t\t").append(mtu(p.maxMtu())).append('\n');
        sb.append("\t\t\tactive_mtu:\t\t").append(mtu(p.activeMtu())).append('\n');
        sb.append("\t\t\tsm_lid:\t\t\t").append(p.smLid()).append('\n');
        sb.append("\t\t\tport_lid:\t\t").append(p.lid()).append('\n');
        sb.append(String.format("\t\t\tport_lmc:\t\t0x%02x%n", p.lmc()));
        sb.append("\t\t\tlink_layer:\t\t").append(p.linkLayer()).append('\n');
        if (verbose)
        {
            sb.append(String.format("\t\t\tmax_msg_sz:\t\t0x%x%n", p.maxMsgSz()));
            sb.append(String.format("\t\t\tport_cap_flags:\t\t0x%08x%n", p.portCapFlags()));
            // The API has no cap_flags2; rxe reports none.
            sb.append("\t\t\tport_cap_flags2:\t0x0000\n");
            sb.append("\t\t\tmax_vl_num:\t\t").append(vlNum(p.maxVlNum())).append(" (").append(p.maxVlNum())
                .append(")\n");
            sb.append(String.format("\t\t\tbad_pkey_cntr:\t\t0x%x%n", p.badPkeyCntr()));
            sb.append(String.format("\t\t\tqkey_viol_cntr:\t\t0x%x%n", p.qkeyViolCntr()));
            sb.append("\t\t\tsm_sl:\t\t\t").append(p.smSl()).append('\n');
            sb.append("\t\t\tpkey_tbl_len:\t\t").append(p.pkeyTblLen()).append('\n');
            sb.append("\t\t\tgid_tbl_len:\t\t").append(p.gidTblLen()).append('\n');
            sb.append("\t\t\tsubnet_timeout:\t\t").append(p.subnetTimeout()).append('\n');
            sb.append("\t\t\tinit_type_reply:\t").append(p.initTypeReply()).append('\n');
            sb.append("\t\t\tactive_width:\t\t").append(width(p.activeWidth())).append(" (").append(p.activeWidth())
                .append(")\n");
            sb.append("\t\t\tactive_speed:\t\t").append(speed(p.activeSpeed())).append(" (").append(p.activeSpeed())
                .append(")\n");
            sb.append("\t\t\tphys_state:\t\t").append(physState(p.physState())).append(" (").append(p.physState())
                .append(")\n");
            appendGids(sb, ctx, port, p.gidTblLen(), "Ethernet".equals(p.linkLayer()));
        }
        sb.append('\n');
    }

    private static void appendGids(
        final StringBuilder sb, final Context ctx, final int port, final int tableLength, final boolean roce)
    {
        for (int i = 0; i < tableLength; i++)
        {
            final Gid gid;
            try
            {
                gid = ctx.queryGid(port, i);
            }
            catch (final RdmaException ex)
            {
                // Past the populated entries some providers refuse rather than return zero.
                break;
            }
            if (gid == null || gid.isZero())
            {
                continue;
            }
            sb.append(String.format("\t\t\tGID[%3d]:\t\t%s", i, GidText.of(gid)));
            // The API reports no GID type; every rdma4j RoCE GID is RoCE v2 (the soft device has no v1).
            sb.append(roce ? ", RoCE v2\n" : "\n");
        }
    }

    /**
     * @param mtu an MTU.
     * @return e.g. {@code 1024 (3)}.
     */
    public static String mtu(final Mtu mtu)
    {
        return mtu.bytes() + " (" + mtu.value() + ")";
    }

    private static String atomicCap(final int cap)
    {
        return switch (cap)
        {
            case 0 -> "ATOMIC_NONE";
            case 1 -> "ATOMIC_HCA";
            case 2 -> "ATOMIC_GLOB";
            default -> "invalid atomic capability";
        };
    }

    private static String vlNum(final int code)
    {
        return switch (code)
        {
            case 1 -> "1";
            case 2 -> "2";
            case 3 -> "4";
            case 4 -> "8";
            case 5 -> "15";
            default -> "invalid value";
        };
    }

    private static String width(final int code)
    {
        return switch (code)
        {
            case 1 -> "1X";
            case 2 -> "4X";
            case 4 -> "8X";
            case 8 -> "12X";
            case 16 -> "2X";
            default -> "invalid width";
        };
    }

    private static String speed(final int code)
    {
        return switch (code)
        {
            case 1 -> "2.5 Gbps";
            case 2 -> "5.0 Gbps";
            case 4, 8 -> "10.0 Gbps";
            case 16 -> "14.0 Gbps";
            case 32 -> "25.0 Gbps";
            case 64 -> "50.0 Gbps";
            case 128 -> "100.0 Gbps";
            default -> "invalid speed";
        };
    }

    private static String physState(final int code)
    {
        return switch (code)
        {
            case 1 -> "SLEEP";
            case 2 -> "POLLING";
            case 3 -> "DISABLED";
            case 4 -> "PORT_CONFIGURATION TRAINNING";
            case 5 -> "LINK_UP";
            case 6 -> "LINK_ERROR_RECOVERY";
            case 7 -> "PHY TEST";
            default -> "invalid physical state";
        };
    }
}
