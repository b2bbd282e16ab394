package io.rdma4j.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector at PARANOID, with its reports collected so a test can fail on them instead of a log line
 * going unseen. It must be installed before the first buffer class is loaded: the tests touch {@link #install()}
 * in a static initializer. For the tests of modules that have Netty; this module's dependency on it is optional,
 * so the others never see it.
 */
public final class NettyLeaks
{
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    static
    {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory()
        {
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(final Class<T> resource,
                final int samplingInterval, final long maxActive)
            {
                return new ResourceLeakDetector<T>(resource, samplingInterval, maxActive)
                {
                    @Override
                    protected void reportTracedLeak(final String resourceType, final String records)
                    {
                        LEAKS.add(resourceType + records);
                        super.reportTracedLeak(resourceType, records);
                    }

                    @Override
                    protected void reportUntracedLeak(final String resourceType)
                    {
                        LEAKS.add(resourceType);
                        super.reportUntracedLeak(resourceType);
                    }
                };
            }
        });
    }

    private NettyLeaks()
    {
    }

    /** Load the class, and with it the detector's factory. */
    public static void install()
    {
        // the static initializer did it
    }

    /**
     * Collect garbage, let the detector look at what was collected, and say what leaked.
     *
     * @return the leak reports since the JVM started.
     */
    public static List<String> leaks()
    {
        for (int i = 0; i < 3; i++)
        {
            System.gc();
            // the detector reports collected, unreleased buffers when it tracks the next one
            for (int j = 0; j < 16; j++)
            {
                final ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                pooled.release();
                final ByteBuf unpooled = UnpooledByteBufAllocator.DEFAULT.heapBuffer(16);
                unpooled.release();
            }
        }
        return List.copyOf(LEAKS);
    }
}
