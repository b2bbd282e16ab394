/**
 * The software RoCEv2 device, an engine for {@code io.rdma4j.api}: found through {@code provides}, it
 * exports nothing to applications, which use the API and configure the device with the {@code rdma4j.soft.*}
 * system properties. The stat file's format is shared with {@code rdma4j stat} alone, and the path a device runs
 * on ({@code DevicePath}) with {@code rdma4j perf}.
 */
module io.rdma4j.soft
{
    requires io.rdma4j.api;
    // the agent runner and idle strategies of the device and CM loops (an automatic module: Agrona has no
    // module-info; its buffers, which need jdk.internal.misc, are not used)
    requires org.agrona;
    // the device's counters as an MBean
    requires java.management;
    // IP_DONTFRAGMENT on the UDP socket, which the ICRC's IP identification relies on
    requires jdk.net;

    exports io.rdma4j.soft.stat to io.rdma4j.tools;
    // the settings' declarations and values, so the tools set and read the same names the devices do
    exports io.rdma4j.soft.config to io.rdma4j.tools;
    // which socket and same-host path an open device runs on, for rdma4j perf's header
    exports io.rdma4j.soft.provider to io.rdma4j.tools;

    provides io.rdma4j.spi.RdmaProvider with io.rdma4j.soft.provider.SoftProvider;
}
