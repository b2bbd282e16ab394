/**
 * The InfiniBand CM's management datagrams as rdma_cm sends them on RoCE: flyweight codecs for the
 * MAD header, REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR REQ and SIDR REP, rdma_cm's private-data
 * header ({@link io.rdma4j.soft.cm.mad.CmaHeader}), service ids and the reject and SIDR status codes.
 * <p>
 * <b>Arrows.</b> A leaf used by {@code cm}. Every CM MAD in the rxe captures decodes and re-encodes
 * byte for byte.
 * <p>
 * <b>Threads.</b> Stateless codecs; the CM thread and the tests use them.
 */
package io.rdma4j.soft.cm.mad;
