package io.rdma4j.soft.cm.mad;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the 256-byte management datagram that carries every InfiniBand CM message, and over its 24-byte
 * common header in particular.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  BaseVersion  |   MgmtClass   | ClassVersion  |R|   Method    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Status             |         ClassSpecific         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    TransactionID (64 bits)                    |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          AttributeID          |           Reserved            |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       AttributeModifier                       |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            message body: 232 bytes, see the Cm* flyweights    |
 * </pre>
 * On RoCE the MAD is the whole payload of a UD SEND from QP1 to QP1, between the DETH and the ICRC. The
 * AttributeID says which CM message the body holds; the message flyweights wrap the same MAD offset as this one.
 */
public final class CmMad extends MadFlyweight<CmMad>
{
    /** Every MAD is this long, whatever part of it the message uses. */
    public static final int MAD_LENGTH = 256;
    /** Length of the common MAD header; CM messages start right after it. */
    public static final int HEADER_LENGTH = 24;

    /** Offset of BaseVersion. */
    public static final int BASE_VERSION_OFFSET = 0;
    /** Offset of MgmtClass. */
    public static final int MGMT_CLASS_OFFSET = 1;
    /** Offset of ClassVersion. */
    public static final int CLASS_VERSION_OFFSET = 2;
    /** Offset of the byte holding the response bit and Method. */
    public static final int METHOD_OFFSET = 3;
    /** Offset of the 16-bit Status. */
    public static final int STATUS_OFFSET = 4;
    /** Offset of the 16-bit ClassSpecific. */
    public static final int CLASS_SPECIFIC_OFFSET = 6;
    /** Offset of the 64-bit TransactionID. */
    public static final int TRANSACTION_ID_OFFSET = 8;
    /** Offset of the 16-bit AttributeID. */
    public static final int ATTRIBUTE_ID_OFFSET = 16;
    /** Offset of the 16 reserved bits after the AttributeID. */
    public static final int RESERVED_OFFSET = 18;
    /** Offset of the 32-bit AttributeModifier. */
    public static final int ATTRIBUTE_MODIFIER_OFFSET = 20;

    /** The only MAD base version there is. */
    public static final int BASE_VERSION = 1;
    /** The management class of the communication manager. */
    public static final int MGMT_CLASS_CM = 0x07;
    /** The CM class version Linux speaks; it rejects any other with INVALID_CLASS_VERSION. */
    public static final int CLASS_VERSION = 2;
    /** The method of every CM message: the CM never uses Get/Set, each message is a one-way Send. */
    public static final int METHOD_SEND = 0x03;
    /** The response bit of the method byte; CM messages never set it. */
    public static final int METHOD_RESPONSE_BIT = 0x80;

    /** ClassPortInfo, which some stacks query; rdma_cm never sends it. */
    public static final int ATTR_CLASS_PORT_INFO = 0x0001;
    /** Connection request. */
    public static final int ATTR_REQ = 0x0010;
    /** Message receipt acknowledgement: "I need more time". */
    public static final int ATTR_MRA = 0x0011;
    /** Connection reject. */
    public static final int ATTR_REJ = 0x0012;
    /** Connection reply. */
    public static final int ATTR_REP = 0x0013;
    /** Ready to use: the active side's last word of the handshake. */
    public static final int ATTR_RTU = 0x0014;
    /** Disconnection request. */
    public static final int ATTR_DREQ = 0x0015;
    /** Disconnection reply. */
    public static final int ATTR_DREP = 0x0016;
    /** Service ID resolution request: the UD "connect". */
    public static final int ATTR_SIDR_REQ = 0x0017;
    /** Service ID resolution reply. */
    public static final int ATTR_SIDR_REP = 0x0018;
    /** Load alternate path; path migration, which rdma_cm does not use on RoCE. */
    public static final int ATTR_LAP = 0x0019;
    /** Alternate path response; path migration, which rdma_cm does not use on RoCE. */
    public static final int ATTR_APR = 0x001A;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public CmMad()
    {
        super(0);
    }

    /**
     * Tell whether a received UD payload is a CM MAD this stack can read, so the receiver drops others (subnet
     * administration, performance management, a newer CM class version) before touching their fields. It never
     * throws, whatever it is given, as it runs on bytes straight off the network.
     *
     * @param segment the memory holding the payload, or null.
     * @param offset  where the payload starts.
     * @param length  how many bytes of payload there are.
     * @return true when the payload is at least a whole MAD of base version 1, class CM, class version 2.
     */
    public static boolean looksLikeCm(final MemorySegment segment, final long offset, final int length)
    {
        if (null == segment || offset < 0 || length < MAD_LENGTH || !segment.scope().isAlive() ||
            !segment.isAccessibleBy(Thread.currentThread()))
        {
            return false;
        }
        final long size = segment.byteSize();
        if (offset > size || size - offset < MAD_LENGTH)
        {
            return false;
        }
        return MadFields.u8(segment, offset + BASE_VERSION_OFFSET) == BASE_VERSION &&
            MadFields.u8(segment, offset + MGMT_CLASS_OFFSET) == MGMT_CLASS_CM &&
            MadFields.u8(segment, offset + CLASS_VERSION_OFFSET) == CLASS_VERSION;
    }

    /**
     * Read the AttributeID of the MAD at {@code offset} without wrapping, to pick the message flyweight.
     *
     * @param segment the memory holding the MAD.
     * @param offset  where the MAD starts.
     * @return the AttributeID, 16 bits.
     */
    public static int attributeId(final MemorySegment segment, final long offset)
    {
        return MadFields.u16(segment, offset + ATTRIBUTE_ID_OFFSET);
    }

    /**
     * Zero the whole MAD and write a CM header as the Linux CM does for every message it sends: base version 1,
     * class CM, class version 2, method Send, status, class-specific, reserved bits and attribute modifier 0. The
     * zeroing matters: the CM has no length fields, so unused bytes of a body and of private data go on the wire.
     *
     * @param attributeId   which message the body will hold, one of the {@code ATTR_} constants.
     * @param transactionId the transaction ID; the replies to a REQ reuse the REQ's.
     * @return this.
     */
    public CmMad initHeader(final int attributeId, final long transactionId)
    {
        MadFields.zero(segment(), offset(), MAD_LENGTH);
        u8(BASE_VERSION_OFFSET, BASE_VERSION);
        u8(MGMT_CLASS_OFFSET, MGMT_CLASS_CM);
        u8(CLASS_VERSION_OFFSET, CLASS_VERSION);
        u8(METHOD_OFFSET, METHOD_SEND);
        u64(TRANSACTION_ID_OFFSET, transactionId);
        return u16(ATTRIBUTE_ID_OFFSET, attributeId);
    }

    /** @return BaseVersion, 1 for every MAD that is not an OPA MAD. */
    public int baseVersion()
    {
        return u8(BASE_VERSION_OFFSET);
    }

    /**
     * @param baseVersion BaseVersion, 8 bits.
     * @return this.
     */
    public CmMad baseVersion(final int baseVersion)
    {
        return u8(BASE_VERSION_OFFSET, baseVersion);
    }

    /** @return MgmtClass, {@link #MGMT_CLASS_CM} for the CM. */
    public int mgmtClass()
    {
        return u8(MGMT_CLASS_OFFSET);
    }

    /**
     * @param mgmtClass MgmtClass, 8 bits.
     * @return this.
     */
    public CmMad mgmtClass(final int mgmtClass)
    {
        return u8(MGMT_CLASS_OFFSET, mgmtClass);
    }

    /** @return ClassVersion. */
    public int classVersion()
    {
        return u8(CLASS_VERSION_OFFSET);
    }

    /**
     * @param classVersion ClassVersion, 8 bits.
     * @return this.
     */
    public CmMad classVersion(final int classVersion)
    {
        return u8(CLASS_VERSION_OFFSET, classVersion);
    }

    /**
     * The whole method byte, response bit included, so that a MAD read and written back keeps it.
     *
     * @return the method byte, {@link #METHOD_SEND} for every CM message.
     */
    public int method()
    {
        return u8(METHOD_OFFSET);
    }

    /**
     * @param method the method byte, response bit included.
     * @return this.
     */
    public CmMad method(final int method)
    {
        return u8(METHOD_OFFSET, method);
    }

    /** @return Status, 16 bits; the CM sends 0 and does not look at it. */
    public int status()
    {
        return u16(STATUS_OFFSET);
    }

    /**
     * @param status Status, 16 bits.
     * @return this.
     */
    public CmMad status(final int status)
    {
        return u16(STATUS_OFFSET, status);
    }

    /** @return ClassSpecific, 16 bits; 0 for the CM. */
    public int classSpecific()
    {
        return u16(CLASS_SPECIFIC_OFFSET);
    }

    /**
     * @param classSpecific ClassSpecific, 16 bits.
     * @return this.
     */
    public CmMad classSpecific(final int classSpecific)
    {
        return u16(CLASS_SPECIFIC_OFFSET, classSpecific);
    }

    /**
     * Linux puts its MAD agent's ID in the high half and the sender's local communication ID in the low half, but
     * a receiver must treat it as opaque: it only echoes it in replies and uses it to spot retransmissions.
     *
     * @return TransactionID.
     */
    public long transactionId()
    {
        return u64(TRANSACTION_ID_OFFSET);
    }

    /**
     * @param transactionId TransactionID.
     * @return this.
     */
    public CmMad transactionId(final long transactionId)
    {
        return u64(TRANSACTION_ID_OFFSET, transactionId);
    }

    /** @return AttributeID: which CM message the body holds, one of the {@code ATTR_} constants. */
    public int attributeId()
    {
        return u16(ATTRIBUTE_ID_OFFSET);
    }

    /**
     * @param attributeId AttributeID, 16 bits.
     * @return this.
     */
    public CmMad attributeId(final int attributeId)
    {
        return u16(ATTRIBUTE_ID_OFFSET, attributeId);
    }

    /**
     * Newer kernels carry enhanced connection establishment (ECE) options here in REQ, REP and SIDR_REP; older
     * ones, and rdma_cm without ECE, send 0.
     *
     * @return AttributeModifier.
     */
    public int attributeModifier()
    {
        return u32(ATTRIBUTE_MODIFIER_OFFSET);
    }

    /**
     * @param attributeModifier AttributeModifier.
     * @return this.
     */
    public CmMad attributeModifier(final int attributeModifier)
    {
        return u32(ATTRIBUTE_MODIFIER_OFFSET, attributeModifier);
    }
}
