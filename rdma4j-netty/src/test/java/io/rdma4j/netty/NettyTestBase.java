package io.rdma4j.netty;

import io.rdma4j.testing.NettyLeaks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the transport's tests share: a fresh {@link NettyFixture} per test, and Netty's leak detector watching
 * every buffer from the first one on, with the class failing if any leaked.
 */
abstract class NettyTestBase
{
    static
    {
        NettyLeaks.install();
    }

    /** This test's addresses and event loops. */
    NettyFixture net;

    @BeforeEach
    void startNet()
    {
        net = newFixture();
    }

    /**
     * @return this test's fixture; a subclass may give its loops another handler.
     */
    NettyFixture newFixture()
    {
        return new NettyFixture();
    }

    @AfterEach
    void stopNet()
    {
        net.close();
    }

    @AfterAll
    static void noLeaks()
    {
        assertEquals(List.of(), NettyLeaks.leaks(), "ByteBufs leaked");
    }
}
