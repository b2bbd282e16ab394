package io.rdma4j.soft.cm;

import io.rdma4j.cm.ConnParam;
import io.rdma4j.soft.cm.mad.CmRej;
import io.rdma4j.soft.cm.mad.CmRep;
import io.rdma4j.soft.cm.mad.CmReq;
import io.rdma4j.soft.cm.mad.CmaHeader;
import io.rdma4j.soft.cm.mad.SidrRep;
import io.rdma4j.soft.cm.mad.SidrReq;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The private-data limits the API promises are what the soft device's MADs hold: the private-data
 * field of each message, less the rdma_cm header that a REQ and a SIDR_REQ carry in front of the
 * application's bytes.
 */
class CmWireLimitsTest
{
    @Test
    void shouldLeaveTheApplicationTheRequestsPrivateDataLessTheRdmaCmHeader()
    {
        assertEquals(CmReq.PRIVATE_DATA_LENGTH - CmaHeader.LENGTH, ConnParam.MAX_CONNECT_PRIVATE_DATA);
        assertEquals(SidrReq.PRIVATE_DATA_LENGTH - CmaHeader.LENGTH, ConnParam.MAX_UD_CONNECT_PRIVATE_DATA);
        assertEquals(ConnParam.MAX_CONNECT_PRIVATE_DATA, CmWire.REQ_USER_DATA);
        assertEquals(ConnParam.MAX_UD_CONNECT_PRIVATE_DATA, CmWire.SIDR_REQ_USER_DATA);
    }

    @Test
    void shouldLeaveTheApplicationTheRepliesWholePrivateData()
    {
        assertEquals(CmRep.PRIVATE_DATA_LENGTH, ConnParam.MAX_ACCEPT_PRIVATE_DATA);
        assertEquals(CmRej.PRIVATE_DATA_LENGTH, ConnParam.MAX_REJECT_PRIVATE_DATA);
        assertEquals(SidrRep.PRIVATE_DATA_LENGTH, ConnParam.MAX_UD_ACCEPT_PRIVATE_DATA);
        assertEquals(ConnParam.MAX_ACCEPT_PRIVATE_DATA, CmWire.REP_PRIVATE_DATA);
        assertEquals(ConnParam.MAX_REJECT_PRIVATE_DATA, CmWire.REJ_PRIVATE_DATA);
        assertEquals(ConnParam.MAX_UD_ACCEPT_PRIVATE_DATA, CmWire.SIDR_REP_PRIVATE_DATA);
    }
}
