package io.rdma4j.soft;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

/**
 * The child of {@link ExitCleanupTest}: opens a device with the same-host path (an inbox) and a stat file, prints
 * {@code OPEN}, and never closes it: with {@code exit} it calls {@code System.exit(0)} at once, else it waits to
 * be told to end by a signal.
 */
public final class ExitCleanupPeer
{
    private ExitCleanupPeer()
    {
    }

    /**
     * @param args {@code exit} or {@code wait}, and the device's address.
     * @throws Exception if the device does not open: the test sees the process end.
     */
    public static void main(final String[] args) throws Exception
    {
        final SoftDevice device = SoftDevice.builder("exitpeer", InetAddress.getByName(args[1])).sameHost(true)
            .build();
        device.open();
        System.out.println("OPEN");
        System.out.flush();
        if (args[0].equals("exit"))
        {
            System.exit(0);
        }
        Thread.sleep(TimeUnit.MINUTES.toMillis(5));
    }
}
