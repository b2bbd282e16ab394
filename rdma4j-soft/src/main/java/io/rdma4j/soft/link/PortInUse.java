package io.rdma4j.soft.link;

import io.rdma4j.verbs.Verbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The sentence of a link whose address and port another socket holds. The usual holders are another process on
 * the same address and the kernel's rxe, which binds UDP 4791 on the wildcard address: where the host has RDMA
 * devices, the sentence also says how to use them through the native engine instead, since the software device
 * cannot share the port with rxe.
 */
public final class PortInUse
{
    /** Where Linux lists its RDMA devices, rxe's among them: one directory entry per device. */
    static final Path RDMA_DEVICES = Path.of("/sys/class/infiniband");

    /**
     * The directory {@link #message(String)} reads: {@link #RDMA_DEVICES}, or a test's own, which stands for a host
     * with (or without) devices where the sockets and the device's open meet a port in use.
     */
    private static volatile Path rdmaDevices = RDMA_DEVICES;

    private PortInUse()
    {
    }

    /**
     * @param addressAndPort the link's {@code address:port}.
     * @return the sentence, naming the native engine's setting where this host has RDMA devices.
     */
    public static String message(final String addressAndPort)
    {
        return message(addressAndPort, rdmaDevices);
    }

    /**
     * @param directory where the host's RDMA devices are listed from now on (a test's stand-in for
     *                  {@link #RDMA_DEVICES}).
     * @return the directory read until now, for the test to put back.
     */
    static Path listDevicesIn(final Path directory)
    {
        final Path before = rdmaDevices;
        rdmaDevices = directory;
        return before;
    }

    /**
     * @param addressAndPort the link's {@code address:port}.
     * @param rdmaDevices    the directory that lists the host's RDMA devices ({@link #RDMA_DEVICES}).
     * @return the sentence.
     */
    static String message(final String addressAndPort, final Path rdmaDevices)
    {
        final String sentence = addressAndPort + " is already in use by another process (or by the kernel's rxe, " +
            "which binds the wildcard address): each process needs its own address (127.x.y.z on loopback)";
        final List<String> devices = devices(rdmaDevices);
        if (devices.isEmpty())
        {
            return sentence;
        }
        return sentence + "; this host has RDMA devices " + devices + ": to use them, choose the native engine " +
            "with -D" + Verbs.PROVIDER_PROPERTY + "=native (or " + Verbs.PROVIDER_ENVIRONMENT + "=native) and " +
            "rdma4j-rdmacore on the class path";
    }

    /**
     * @param rdmaDevices the directory that lists the host's RDMA devices.
     * @return their names, sorted; none where the directory is missing or unreadable (not Linux, a container).
     */
    static List<String> devices(final Path rdmaDevices)
    {
        try (Stream<Path> entries = Files.list(rdmaDevices))
        {
            return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
        }
        catch (final IOException | SecurityException ex)
        {
            // no directory to read is no device to point to
            return List.of();
        }
    }
}
