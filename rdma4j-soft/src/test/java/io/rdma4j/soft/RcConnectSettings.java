package io.rdma4j.soft;

import io.rdma4j.verbs.Mtu;

/**
 * How a test connects two RC (or UC) endpoints, by name: path MTU, the local ACK timeout exponent,
 * the transport and RNR retry counts, the minimum RNR timer, and each side's starting PSN. Starts from
 * the values rdma-core's ping-pong tools use; each wither changes one.
 *
 * @param mtu         path MTU.
 * @param timeout     local ACK timeout exponent (4.096 µs × 2^timeout).
 * @param retryCount  transport retries before RETRY_EXC_ERR.
 * @param rnrRetry    RNR retries before RNR_RETRY_EXC_ERR (7: for ever).
 * @param minRnrTimer the RNR NAK's timer code the responder asks for.
 * @param psnA        first PSN of the first endpoint's sends.
 * @param psnB        first PSN of the second endpoint's sends.
 */
record RcConnectSettings(Mtu mtu, int timeout, int retryCount, int rnrRetry, int minRnrTimer, int psnA, int psnB)
{
    /**
     * @return MTU 1024, timeout 14, seven retries of each kind, RNR timer 1, PSNs 0.
     */
    static RcConnectSettings defaults()
    {
        return new RcConnectSettings(Mtu.MTU_1024, 14, 7, 7, 1, 0, 0);
    }

    RcConnectSettings mtu(final Mtu value)
    {
        return new RcConnectSettings(value, timeout, retryCount, rnrRetry, minRnrTimer, psnA, psnB);
    }

    RcConnectSettings timeout(final int value)
    {
        return new RcConnectSettings(mtu, value, retryCount, rnrRetry, minRnrTimer, psnA, psnB);
    }

    RcConnectSettings retryCount(final int value)
    {
        return new RcConnectSettings(mtu, timeout, value, rnrRetry, minRnrTimer, psnA, psnB);
    }

    RcConnectSettings rnrRetry(final int value)
    {
        return new RcConnectSettings(mtu, timeout, retryCount, value, minRnrTimer, psnA, psnB);
    }

    RcConnectSettings minRnrTimer(final int value)
    {
        return new RcConnectSettings(mtu, timeout, retryCount, rnrRetry, value, psnA, psnB);
    }

    /**
     * @param first  the first endpoint's starting PSN.
     * @param second the second endpoint's.
     * @return these settings with those PSNs.
     */
    RcConnectSettings psns(final int first, final int second)
    {
        return new RcConnectSettings(mtu, timeout, retryCount, rnrRetry, minRnrTimer, first, second);
    }

    /**
     * Take both endpoints' QPs to RTS, each aimed at the other.
     */
    void connect(final RcEndpoint a, final RcEndpoint b)
    {
        a.toRts(b, mtu, timeout, retryCount, rnrRetry, minRnrTimer, psnA, psnB);
        b.toRts(a, mtu, timeout, retryCount, rnrRetry, minRnrTimer, psnB, psnA);
    }
}
