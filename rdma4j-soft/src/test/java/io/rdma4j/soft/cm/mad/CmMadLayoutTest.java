package io.rdma4j.soft.cm.mad;

import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ObjLongConsumer;
import java.util.function.ToIntBiFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every field of every CM codec against the IBTA layout, written out here as literal byte offsets and bit masks
 * (from the reference's section 4 and the kernel's ibta_vol1_c12.h) rather than taken from the classes' constants.
 * Each field is written, in memory that is all zeros and in memory that is all ones, with its maximum, zero, its
 * lowest bit, its highest bit and a pattern, and the whole buffer is compared with the bytes the mask predicts: a
 * wrong offset, mask, shift, bit order or a write that spills into a neighbour fails. The MAD sits at an odd
 * offset in a larger buffer so that the bytes around it are checked too.
 */
class CmMadLayoutTest
{
    private static final int AT = 5;
    private static final int BUFFER = AT + CmMad.MAD_LENGTH + 7;
    private static final int BODY = 24;
    private static final int REQ_PRIVATE_DATA = BODY + 140;
    private static final long PATTERN = 0x0123_4567_89AB_CDEFL;

    /**
     * A field: where it lies in the MAD, which bits it owns there, and how the codec writes and reads it.
     *
     * @param name      message and field, for the report.
     * @param madOffset where the mask starts, from the start of the MAD.
     * @param mask      the bits the field owns, big-endian from {@code madOffset}; they need not be contiguous.
     * @param write     writes a value through the codec.
     * @param read      reads it back through the codec, unsigned.
     */
    record Field(
        String name, int madOffset, String mask, ObjLongConsumer<MemorySegment> write,
        ToLongFunction<MemorySegment> read)
    {
        @Override
        public String toString()
        {
            return name;
        }
    }

    /**
     * A byte area: private data, ARI, additional information or a REQ's alternate path.
     *
     * @param name      message and area.
     * @param madOffset where it starts, from the start of the MAD.
     * @param length    its length.
     * @param write     copies {@code length} bytes in through the codec.
     * @param read      copies out through the codec, returning the count.
     */
    record Area(
        String name, int madOffset, int length, Writer write, ToIntBiFunction<MemorySegment, byte[]> read)
    {
        @Override
        public String toString()
        {
            return name;
        }
    }

    @FunctionalInterface
    interface Writer
    {
        void write(MemorySegment segment, byte[] src, int length);
    }

    private static <F> Field field(
        final Function<MemorySegment, F> wrap,
        final String name,
        final int madOffset,
        final String mask,
        final ObjLongConsumer<F> set,
        final ToLongFunction<F> get)
    {
        return new Field(
            name, madOffset, mask, (s, v) -> set.accept(wrap.apply(s), v), s -> get.applyAsLong(wrap.apply(s)));
    }

    private static <F> Field flag(
        final Function<MemorySegment, F> wrap,
        final String name,
        final int madOffset,
        final String mask,
        final BiConsumer<F, Boolean> set,
        final Function<F, Boolean> get)
    {
        return field(wrap, name, madOffset, mask, (f, v) -> set.accept(f, v != 0), f -> get.apply(f) ? 1 : 0);
    }

    private static <F> Area area(
        final Function<MemorySegment, F> wrap,
        final String name,
        final int madOffset,
        final int length,
        final ObjIntWriter<F> write,
        final ToIntBiFunction<F, byte[]> read)
    {
        return new Area(name, madOffset, length, (s, src, n) -> write.write(wrap.apply(s), src, n),
            (s, dst) -> read.applyAsInt(wrap.apply(s), dst));
    }

    @FunctionalInterface
    interface ObjIntWriter<F>
    {
        void write(F flyweight, byte[] src, int length);
    }

    private static final String U64 = "ffffffffffffffff";

    static List<Field> fields()
    {
        final Function<MemorySegment, CmMad> mad = s -> new CmMad().wrap(s, AT);
        final Function<MemorySegment, CmReq> req = s -> new CmReq().wrap(s, AT);
        final Function<MemorySegment, CmRep> rep = s -> new CmRep().wrap(s, AT);
        final Function<MemorySegment, CmRtu> rtu = s -> new CmRtu().wrap(s, AT);
        final Function<MemorySegment, CmRej> rej = s -> new CmRej().wrap(s, AT);
        final Function<MemorySegment, CmMra> mra = s -> new CmMra().wrap(s, AT);
        final Function<MemorySegment, CmDreq> dreq = s -> new CmDreq().wrap(s, AT);
        final Function<MemorySegment, CmDrep> drep = s -> new CmDrep().wrap(s, AT);
        final Function<MemorySegment, SidrReq> sreq = s -> new SidrReq().wrap(s, AT);
        final Function<MemorySegment, SidrRep> srep = s -> new SidrRep().wrap(s, AT);
        final Function<MemorySegment, CmaHeader> cma = s -> new CmaHeader().wrap(s, AT + REQ_PRIVATE_DATA);
        return List.of(
            field(mad, "MAD baseVersion", 0, "ff", (f, v) -> f.baseVersion((int)v), CmMad::baseVersion),
            field(mad, "MAD mgmtClass", 1, "ff", (f, v) -> f.mgmtClass((int)v), CmMad::mgmtClass),
            field(mad, "MAD classVersion", 2, "ff", (f, v) -> f.classVersion((int)v), CmMad::classVersion),
            field(mad, "MAD method", 3, "ff", (f, v) -> f.method((int)v), CmMad::method),
            field(mad, "MAD status", 4, "ffff", (f, v) -> f.status((int)v), CmMad::status),
            field(mad, "MAD classSpecific", 6, "ffff", (f, v) -> f.classSpecific((int)v), CmMad::classSpecific),
            field(mad, "MAD transactionId", 8, U64, (f, v) -> f.transactionId(v), CmMad::transactionId),
            field(mad, "MAD attributeId", 16, "ffff", (f, v) -> f.attributeId((int)v), CmMad::attributeId),
            field(mad, "MAD attributeModifier", 20, "ffffffff", (f, v) -> f.attributeModifier((int)v),
                f -> Integer.toUnsignedLong(f.attributeModifier())),

            field(req, "REQ localCommId", BODY, "ffffffff", (f, v) -> f.localCommId((int)v),
                f -> Integer.toUnsignedLong(f.localCommId())),
            field(req, "REQ vendorId", BODY + 5, "ffffff", (f, v) -> f.vendorId((int)v), CmReq::vendorId),
            field(req, "REQ serviceId", BODY + 8, U64, (f, v) -> f.serviceId(v), CmReq::serviceId),
            field(req, "REQ localCaGuid", BODY + 16, U64, (f, v) -> f.localCaGuid(v), CmReq::localCaGuid),
            field(req, "REQ localQkey", BODY + 28, "ffffffff", (f, v) -> f.localQkey((int)v),
                f -> Integer.toUnsignedLong(f.localQkey())),
            field(req, "REQ localQpn", BODY + 32, "ffffff", (f, v) -> f.localQpn((int)v), CmReq::localQpn),
            field(req, "REQ responderResources", BODY + 35, "ff", (f, v) -> f.responderResources((int)v),
                CmReq::responderResources),
            field(req, "REQ localEecn", BODY + 36, "ffffff", (f, v) -> f.localEecn((int)v), CmReq::localEecn),
            field(req, "REQ initiatorDepth", BODY + 39, "ff", (f, v) -> f.initiatorDepth((int)v),
                CmReq::initiatorDepth),
            field(req, "REQ remoteEecn", BODY + 40, "ffffff", (f, v) -> f.remoteEecn((int)v), CmReq::remoteEecn),
            field(req, "REQ remoteCmResponseTimeout", BODY + 43, "f8", (f, v) -> f.remoteCmResponseTimeout((int)v),
                CmReq::remoteCmResponseTimeout),
            field(req, "REQ transportServiceType", BODY + 43, "06", (f, v) -> f.transportServiceType((int)v),
                CmReq::transportServiceType),
            flag(req, "REQ endToEndFlowControl", BODY + 43, "01", CmReq::endToEndFlowControl,
                CmReq::endToEndFlowControl),
            field(req, "REQ startingPsn", BODY + 44, "ffffff", (f, v) -> f.startingPsn((int)v), CmReq::startingPsn),
            field(req, "REQ localCmResponseTimeout", BODY + 47, "f8", (f, v) -> f.localCmResponseTimeout((int)v),
                CmReq::localCmResponseTimeout),
            field(req, "REQ retryCount", BODY + 47, "07", (f, v) -> f.retryCount((int)v), CmReq::retryCount),
            field(req, "REQ partitionKey", BODY + 48, "ffff", (f, v) -> f.partitionKey((int)v),
                CmReq::partitionKey),
            field(req, "REQ pathMtu", BODY + 50, "f0", (f, v) -> f.pathMtu((int)v), CmReq::pathMtu),
            flag(req, "REQ rdcExists", BODY + 50, "08", CmReq::rdcExists, CmReq::rdcExists),
            field(req, "REQ rnrRetryCount", BODY + 50, "07", (f, v) -> f.rnrRetryCount((int)v),
                CmReq::rnrRetryCount),
            field(req, "REQ maxCmRetries", BODY + 51, "f0", (f, v) -> f.maxCmRetries((int)v), CmReq::maxCmRetries),
            flag(req, "REQ srq", BODY + 51, "08", CmReq::srq, CmReq::srq),
            field(req, "REQ extendedTransportType", BODY + 51, "07", (f, v) -> f.extendedTransportType((int)v),
                CmReq::extendedTransportType),
            field(req, "REQ primaryLocalPortLid", BODY + 52, "ffff", (f, v) -> f.primaryLocalPortLid((int)v),
                CmReq::primaryLocalPortLid),
            field(req, "REQ primaryRemotePortLid", BODY + 54, "ffff", (f, v) -> f.primaryRemotePortLid((int)v),
                CmReq::primaryRemotePortLid),
            field(req, "REQ primaryLocalPortGidHigh", BODY + 56, U64, (f, v) -> f.primaryLocalPortGidHigh(v),
                CmReq::primaryLocalPortGidHigh),
            field(req, "REQ primaryLocalPortGidLow", BODY + 64, U64, (f, v) -> f.primaryLocalPortGidLow(v),
                CmReq::primaryLocalPortGidLow),
            field(req, "REQ primaryRemotePortGidHigh", BODY + 72, U64, (f, v) -> f.primaryRemotePortGidHigh(v),
                CmReq::primaryRemotePortGidHigh),
            field(req, "REQ primaryRemotePortGidLow", BODY + 80, U64, (f, v) -> f.primaryRemotePortGidLow(v),
                CmReq::primaryRemotePortGidLow),
            field(req, "REQ primaryFlowLabel", BODY + 88, "fffff0", (f, v) -> f.primaryFlowLabel((int)v),
                CmReq::primaryFlowLabel),
            field(req, "REQ primaryPacketRate", BODY + 91, "3f", (f, v) -> f.primaryPacketRate((int)v),
                CmReq::primaryPacketRate),
            field(req, "REQ primaryTrafficClass", BODY + 92, "ff", (f, v) -> f.primaryTrafficClass((int)v),
                CmReq::primaryTrafficClass),
            field(req, "REQ primaryHopLimit", BODY + 93, "ff", (f, v) -> f.primaryHopLimit((int)v),
                CmReq::primaryHopLimit),
            field(req, "REQ primarySl", BODY + 94, "f0", (f, v) -> f.primarySl((int)v), CmReq::primarySl),
            flag(req, "REQ primarySubnetLocal", BODY + 94, "08", CmReq::primarySubnetLocal,
                CmReq::primarySubnetLocal),
            field(req, "REQ primaryLocalAckTimeout", BODY + 95, "f8", (f, v) -> f.primaryLocalAckTimeout((int)v),
                CmReq::primaryLocalAckTimeout),

            field(rep, "REP localCommId", BODY, "ffffffff", (f, v) -> f.localCommId((int)v),
                f -> Integer.toUnsignedLong(f.localCommId())),
            field(rep, "REP remoteCommId", BODY + 4, "ffffffff", (f, v) -> f.remoteCommId((int)v),
                f -> Integer.toUnsignedLong(f.remoteCommId())),
            field(rep, "REP localQkey", BODY + 8, "ffffffff", (f, v) -> f.localQkey((int)v),
                f -> Integer.toUnsignedLong(f.localQkey())),
            field(rep, "REP localQpn", BODY + 12, "ffffff", (f, v) -> f.localQpn((int)v), CmRep::localQpn),
            field(rep, "REP vendorId", BODY + 15, "ff000000ff000000ff", (f, v) -> f.vendorId((int)v),
                CmRep::vendorId),
            field(rep, "REP localEecn", BODY + 16, "ffffff", (f, v) -> f.localEecn((int)v), CmRep::localEecn),
            field(rep, "REP startingPsn", BODY + 20, "ffffff", (f, v) -> f.startingPsn((int)v), CmRep::startingPsn),
            field(rep, "REP responderResources", BODY + 24, "ff", (f, v) -> f.responderResources((int)v),
                CmRep::responderResources),
            field(rep, "REP initiatorDepth", BODY + 25, "ff", (f, v) -> f.initiatorDepth((int)v),
                CmRep::initiatorDepth),
            field(rep, "REP targetAckDelay", BODY + 26, "f8", (f, v) -> f.targetAckDelay((int)v),
                CmRep::targetAckDelay),
            field(rep, "REP failoverAccepted", BODY + 26, "06", (f, v) -> f.failoverAccepted((int)v),
                CmRep::failoverAccepted),
            flag(rep, "REP endToEndFlowControl", BODY + 26, "01", CmRep::endToEndFlowControl,
                CmRep::endToEndFlowControl),
            field(rep, "REP rnrRetryCount", BODY + 27, "e0", (f, v) -> f.rnrRetryCount((int)v),
                CmRep::rnrRetryCount),
            flag(rep, "REP srq", BODY + 27, "10", CmRep::srq, CmRep::srq),
            field(rep, "REP localCaGuid", BODY + 28, U64, (f, v) -> f.localCaGuid(v), CmRep::localCaGuid),

            field(rtu, "RTU localCommId", BODY, "ffffffff", (f, v) -> f.localCommId((int)v),
                f -> Integer.toUnsignedLong(f.localCommId())),
            field(rtu, "RTU remoteCommId", BODY + 4, "ffffffff", (f, v) -> f.remoteCommId((int)v),
                f -> Integer.toUnsignedLong(f.remoteCommId())),

            field(rej, "REJ localCommId", BODY, "ffffffff", (f, v) -> f.localCommId((int)v),
                f -> Integer.toUnsignedLong(f.localCommId())),
            field(rej, "REJ remoteCommId", BODY + 4, "ffffffff", (f, v) -> f.remoteCommId((int)v),
                f -> Integer.toUnsignedLong(f.remoteCommId())),
            field(rej, "REJ messageRejected", BODY + 8, "c0", (f, v) -> f.messageRejected((int)v),
                CmRej::messageRejected),
            field(rej, "REJ rejectInfoLength", BODY + 9, "fe", (f, v) -> f.rejectInfoLength((int)v),
                CmRej::rejectInfoLength),
            field(rej, "REJ reason", BODY + 10, "ffff", (f, v) -> f.reason((int)v), CmRej::reason),

            field(mra, "MRA localCommId", BODY, "ffffffff", (f, v) -> f.localCommId((int)v),
                f -> Integer.toUnsignedLong(f.localCommId())),
            field(mra, "MRA remoteCommId", BODY + 4, "ffffffff", (f, v) -> f.remoteCommId((int)v),
                f -> Integer.toUnsignedLong(f.remoteCommId())),
            field(mra, "MRA messageMraed", BODY + 8, "c0", (f, v) -> f.messageMraed((int)v), CmMra::messageMraed),
            field(mra, "MRA serviceTimeout", BODY + 9, "f8", (f, v) -> f.serviceTimeout((int)v),
                CmMra::serviceTimeout),

            field(dreq, "DREQ localCommId", BODY, "ffffffff", (f, v) -> f.localCommId((int)v),
                f -> Integer.toUnsignedLong(f.localCommId())),
            field(dreq, "DREQ remoteCommId", BODY + 4, "ffffffff", (f, v) -> f.remoteCommId((int)v),
                f -> Integer.toUnsignedLong(f.remoteCommId())),
            field(dreq, "DREQ remoteQpn", BODY + 8, "ffffff", (f, v) -> f.remoteQpn((int)v), CmDreq::remoteQpn),

            field(drep, "DREP localCommId", BODY, "ffffffff", (f, v) -> f.localCommId((int)v),
                f -> Integer.toUnsignedLong(f.localCommId())),
            field(drep, "DREP remoteCommId", BODY + 4, "ffffffff", (f, v) -> f.remoteCommId((int)v),
                f -> Integer.toUnsignedLong(f.remoteCommId())),

            field(sreq, "SIDR_REQ requestId", BODY, "ffffffff", (f, v) -> f.requestId((int)v),
                f -> Integer.toUnsignedLong(f.requestId())),
            field(sreq, "SIDR_REQ partitionKey", BODY + 4, "ffff", (f, v) -> f.partitionKey((int)v),
                SidrReq::partitionKey),
            field(sreq, "SIDR_REQ serviceId", BODY + 8, U64, (f, v) -> f.serviceId(v), SidrReq::serviceId),

            field(srep, "SIDR_REP requestId", BODY, "ffffffff", (f, v) -> f.requestId((int)v),
                f -> Integer.toUnsignedLong(f.requestId())),
            field(srep, "SIDR_REP status", BODY + 4, "ff", (f, v) -> f.status((int)v), SidrRep::status),
            field(srep, "SIDR_REP additionalInfoLength", BODY + 5, "ff", (f, v) -> f.additionalInfoLength((int)v),
                SidrRep::additionalInfoLength),
            field(srep, "SIDR_REP vendorId", BODY + 6, "ffff000000ff", (f, v) -> f.vendorId((int)v),
                SidrRep::vendorId),
            field(srep, "SIDR_REP qpn", BODY + 8, "ffffff", (f, v) -> f.qpn((int)v), SidrRep::qpn),
            field(srep, "SIDR_REP serviceId", BODY + 12, U64, (f, v) -> f.serviceId(v), SidrRep::serviceId),
            field(srep, "SIDR_REP qkey", BODY + 20, "ffffffff", (f, v) -> f.qkey((int)v),
                f -> Integer.toUnsignedLong(f.qkey())),

            field(cma, "CMA version", REQ_PRIVATE_DATA, "ff", (f, v) -> f.version((int)v), CmaHeader::version),
            field(cma, "CMA ipVersion", REQ_PRIVATE_DATA + 1, "f0", (f, v) -> f.ipVersion((int)v),
                CmaHeader::ipVersion),
            field(cma, "CMA sourcePort", REQ_PRIVATE_DATA + 2, "ffff", (f, v) -> f.sourcePort((int)v),
                CmaHeader::sourcePort),
            field(cma, "CMA sourceAddressHigh", REQ_PRIVATE_DATA + 4, U64, (f, v) -> f.sourceAddressHigh(v),
                CmaHeader::sourceAddressHigh),
            field(cma, "CMA sourceAddressLow", REQ_PRIVATE_DATA + 12, U64, (f, v) -> f.sourceAddressLow(v),
                CmaHeader::sourceAddressLow),
            field(cma, "CMA destinationAddressHigh", REQ_PRIVATE_DATA + 20, U64,
                (f, v) -> f.destinationAddressHigh(v), CmaHeader::destinationAddressHigh),
            field(cma, "CMA destinationAddressLow", REQ_PRIVATE_DATA + 28, U64,
                (f, v) -> f.destinationAddressLow(v), CmaHeader::destinationAddressLow));
    }

    static List<Area> areas()
    {
        final Function<MemorySegment, CmReq> req = s -> new CmReq().wrap(s, AT);
        final Function<MemorySegment, CmRep> rep = s -> new CmRep().wrap(s, AT);
        final Function<MemorySegment, CmRtu> rtu = s -> new CmRtu().wrap(s, AT);
        final Function<MemorySegment, CmRej> rej = s -> new CmRej().wrap(s, AT);
        final Function<MemorySegment, CmMra> mra = s -> new CmMra().wrap(s, AT);
        final Function<MemorySegment, CmDreq> dreq = s -> new CmDreq().wrap(s, AT);
        final Function<MemorySegment, CmDrep> drep = s -> new CmDrep().wrap(s, AT);
        final Function<MemorySegment, SidrReq> sreq = s -> new SidrReq().wrap(s, AT);
        final Function<MemorySegment, SidrRep> srep = s -> new SidrRep().wrap(s, AT);
        return List.of(
            area(req, "REQ alternatePath", BODY + 96, 44, CmReq::alternatePath, CmReq::alternatePath),
            area(req, "REQ privateData", BODY + 140, 92, CmReq::privateData, CmReq::privateData),
            area(rep, "REP privateData", BODY + 36, 196, CmRep::privateData, CmRep::privateData),
            area(rtu, "RTU privateData", BODY + 8, 224, CmRtu::privateData, CmRtu::privateData),
            area(rej, "REJ ari", BODY + 12, 72, CmRej::ari, CmRej::ari),
            area(rej, "REJ privateData", BODY + 84, 148, CmRej::privateData, CmRej::privateData),
            area(mra, "MRA privateData", BODY + 10, 222, CmMra::privateData, CmMra::privateData),
            area(dreq, "DREQ privateData", BODY + 12, 220, CmDreq::privateData, CmDreq::privateData),
            area(drep, "DREP privateData", BODY + 8, 224, CmDrep::privateData, CmDrep::privateData),
            area(sreq, "SIDR_REQ privateData", BODY + 16, 216, SidrReq::privateData, SidrReq::privateData),
            area(srep, "SIDR_REP additionalInfo", BODY + 24, 72, SidrRep::additionalInfo, SidrRep::additionalInfo),
            area(srep, "SIDR_REP privateData", BODY + 96, 136, SidrRep::privateData, SidrRep::privateData));
    }

    private static byte[] filled(final int value)
    {
        final byte[] bytes = new byte[BUFFER];
        Arrays.fill(bytes, (byte)value);
        return bytes;
    }

    /** Scatter the low bits of {@code value} over the set bits of {@code mask}, lowest first. */
    private static BigInteger deposit(final BigInteger mask, final long value)
    {
        BigInteger out = BigInteger.ZERO;
        int next = 0;
        for (int bit = 0; bit < mask.bitLength(); bit++)
        {
            if (mask.testBit(bit))
            {
                if (((value >>> next) & 1) != 0)
                {
                    out = out.setBit(bit);
                }
                next++;
            }
        }
        return out;
    }

    /** The buffer the field should leave: {@code background} with the field's bits replaced by {@code value}. */
    private static byte[] expected(final Field field, final int background, final long value)
    {
        final byte[] maskBytes = HexFormat.of().parseHex(field.mask());
        final BigInteger mask = new BigInteger(1, maskBytes);
        final byte[] bits = toBytes(deposit(mask, value), maskBytes.length);
        final byte[] out = filled(background);
        for (int i = 0; i < maskBytes.length; i++)
        {
            final int at = AT + field.madOffset() + i;
            out[at] = (byte)((out[at] & ~maskBytes[i]) | (bits[i] & maskBytes[i]));
        }
        return out;
    }

    private static byte[] toBytes(final BigInteger value, final int length)
    {
        final byte[] raw = value.toByteArray();
        final byte[] out = new byte[length];
        final int copy = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - copy, out, length - copy, copy);
        return out;
    }

    private static int width(final Field field)
    {
        return new BigInteger(1, HexFormat.of().parseHex(field.mask())).bitCount();
    }

    private static long max(final Field field)
    {
        return width(field) == 64 ? -1L : (1L << width(field)) - 1;
    }

    @ParameterizedTest
    @MethodSource("fields")
    void shouldOwnExactlyItsBits(final Field field)
    {
        final long max = max(field);
        final long top = 1L << (width(field) - 1);
        for (final int background : new int[] {0x00, 0xFF})
        {
            for (final long value : new long[] {max, 0, 1, top, PATTERN & max, ~PATTERN & max})
            {
                final byte[] bytes = filled(background);
                final MemorySegment segment = MemorySegment.ofArray(bytes);
                field.write().accept(segment, value);

                assertArrayEquals(expected(field, background, value), bytes,
                    () -> field + " = 0x" + Long.toHexString(value) + " over 0x" + Integer.toHexString(background));
                assertEquals(value, field.read().applyAsLong(segment), () -> field + " read back");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("fields")
    void shouldCutValuesToTheFieldWidth(final Field field)
    {
        final byte[] bytes = filled(0);
        final MemorySegment segment = MemorySegment.ofArray(bytes);
        field.write().accept(segment, -1L);

        assertArrayEquals(expected(field, 0, max(field)), bytes, field::toString);
        assertEquals(max(field), field.read().applyAsLong(segment));
    }

    @ParameterizedTest
    @MethodSource("areas")
    void shouldCopyAreasInPlaceAndZeroTheirTail(final Area area)
    {
        final byte[] src = new byte[area.length()];
        new Random(area.madOffset()).nextBytes(src);

        final byte[] bytes = filled(0);
        final MemorySegment segment = MemorySegment.ofArray(bytes);
        area.write().write(segment, src, src.length);
        final byte[] whole = filled(0);
        System.arraycopy(src, 0, whole, AT + area.madOffset(), src.length);
        assertArrayEquals(whole, bytes, area::toString);
        final byte[] back = new byte[area.length() + 5];
        assertEquals(area.length(), area.read().applyAsInt(segment, back));
        assertArrayEquals(src, Arrays.copyOf(back, area.length()));

        final byte[] ones = filled(0xFF);
        final MemorySegment dirty = MemorySegment.ofArray(ones);
        area.write().write(dirty, src, 3);
        final byte[] partial = filled(0xFF);
        Arrays.fill(partial, AT + area.madOffset(), AT + area.madOffset() + area.length(), (byte)0);
        System.arraycopy(src, 0, partial, AT + area.madOffset(), 3);
        assertArrayEquals(partial, ones, () -> area + ": a short copy zeroes the rest of the area and no more");

        final byte[] small = new byte[2];
        assertEquals(2, area.read().applyAsInt(segment, small));
        assertArrayEquals(Arrays.copyOf(src, 2), small);

        assertThrows(
            IllegalArgumentException.class, () -> area.write().write(segment, new byte[999], area.length() + 1));
        assertThrows(IllegalArgumentException.class, () -> area.write().write(segment, src, -1));
        assertThrows(IllegalArgumentException.class, () -> area.write().write(segment, new byte[1], 2));
        assertArrayEquals(whole, bytes, "a refused copy writes nothing");
    }

    @Test
    void shouldEndEveryPrivateDataAtTheEndOfTheMad()
    {
        assertEquals(92, CmReq.PRIVATE_DATA_LENGTH);
        assertEquals(196, CmRep.PRIVATE_DATA_LENGTH);
        assertEquals(224, CmRtu.PRIVATE_DATA_LENGTH);
        assertEquals(148, CmRej.PRIVATE_DATA_LENGTH);
        assertEquals(222, CmMra.PRIVATE_DATA_LENGTH);
        assertEquals(220, CmDreq.PRIVATE_DATA_LENGTH);
        assertEquals(224, CmDrep.PRIVATE_DATA_LENGTH);
        assertEquals(216, SidrReq.PRIVATE_DATA_LENGTH);
        assertEquals(136, SidrRep.PRIVATE_DATA_LENGTH);
        assertEquals(44, CmReq.PATH_LENGTH);
        assertEquals(72, CmRej.ARI_LENGTH);
        assertEquals(72, SidrRep.ADDITIONAL_INFO_LENGTH);
        for (final Area area : areas())
        {
            if (area.name().endsWith("privateData"))
            {
                assertEquals(CmMad.MAD_LENGTH, area.madOffset() + area.length(), area::toString);
            }
        }
    }

    @Test
    void shouldPointPrivateDataOffsetsAtThePrivateData()
    {
        final MemorySegment segment = MemorySegment.ofArray(filled(0));
        assertEquals(AT + BODY + 140, new CmReq().wrap(segment, AT).privateDataOffset());
        assertEquals(AT + BODY + 36, new CmRep().wrap(segment, AT).privateDataOffset());
        assertEquals(AT + BODY + 8, new CmRtu().wrap(segment, AT).privateDataOffset());
        assertEquals(AT + BODY + 84, new CmRej().wrap(segment, AT).privateDataOffset());
        assertEquals(AT + BODY + 10, new CmMra().wrap(segment, AT).privateDataOffset());
        assertEquals(AT + BODY + 12, new CmDreq().wrap(segment, AT).privateDataOffset());
        assertEquals(AT + BODY + 8, new CmDrep().wrap(segment, AT).privateDataOffset());
        assertEquals(AT + BODY + 16, new SidrReq().wrap(segment, AT).privateDataOffset());
        assertEquals(AT + BODY + 96, new SidrRep().wrap(segment, AT).privateDataOffset());
        final CmaHeader cma = new CmaHeader().wrap(segment, AT + BODY + 140);
        assertEquals(AT + BODY + 140 + 36, cma.userDataOffset());
        assertEquals(36, CmaHeader.USER_DATA_OFFSET);
        assertEquals(36, CmaHeader.LENGTH);
    }

    @Test
    void shouldWriteIpv4AddressesAfterTwelveZeroBytes()
    {
        final byte[] bytes = filled(0xFF);
        final MemorySegment segment = MemorySegment.ofArray(bytes);
        final CmaHeader cma = new CmaHeader().wrap(segment, AT + REQ_PRIVATE_DATA)
            .sourceIpv4(0x0A4D_000C)
            .destinationIpv4(0x0A4D_000B);

        final byte[] header = Arrays.copyOfRange(bytes, AT + REQ_PRIVATE_DATA, AT + REQ_PRIVATE_DATA + 40);
        assertArrayEquals(HexFormat.of().parseHex(
            "ffffffff" + "000000000000000000000000" + "0a4d000c" + "000000000000000000000000" + "0a4d000b" +
            "ffffffff"), header);
        assertEquals(0x0A4D_000C, cma.sourceIpv4());
        assertEquals(0x0A4D_000B, cma.destinationIpv4());
        assertEquals(0x0A4D_000CL, cma.sourceAddressLow());
        assertEquals(0, cma.destinationAddressHigh());
        assertEquals((byte)0xFF, bytes[AT + REQ_PRIVATE_DATA - 1]);
    }

    @Test
    void shouldKeepTheMadHeaderOffsetsOfTheReference()
    {
        assertEquals(256, CmMad.MAD_LENGTH);
        assertEquals(24, CmMad.HEADER_LENGTH);
        assertEquals(Stream.of(0x0010, 0x0011, 0x0012, 0x0013, 0x0014, 0x0015, 0x0016, 0x0017, 0x0018).toList(),
            Stream.of(CmMad.ATTR_REQ, CmMad.ATTR_MRA, CmMad.ATTR_REJ, CmMad.ATTR_REP, CmMad.ATTR_RTU,
                CmMad.ATTR_DREQ, CmMad.ATTR_DREP, CmMad.ATTR_SIDR_REQ, CmMad.ATTR_SIDR_REP).toList());
        assertEquals(1, CmMad.BASE_VERSION);
        assertEquals(0x07, CmMad.MGMT_CLASS_CM);
        assertEquals(2, CmMad.CLASS_VERSION);
        assertEquals(0x03, CmMad.METHOD_SEND);
    }

    @Test
    void shouldReadWhatWasWrittenAtTheWrappedOffsetOnly()
    {
        final byte[] bytes = filled(0);
        final MemorySegment segment = MemorySegment.ofArray(bytes);
        new CmDreq().wrap(segment, AT).remoteQpn(0xABCDEF);

        assertEquals(0xABCDEF, new CmDreq().wrap(segment, AT).remoteQpn());
        assertEquals(0xCDEF00, new CmDreq().wrap(segment, AT + 1).remoteQpn());
        assertEquals(0xAB, bytes[AT + BODY + 8] & 0xFF);
    }
}
