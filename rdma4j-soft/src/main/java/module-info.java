/**
 * The software RoCEv2 device, an engine for {@code io.rdma4j.api}: found through {@code provides}. Applications use
 * the API, and configure the device with the {@code rdma4j.soft.*} system properties or in code: a
 * {@code SoftProviderContext} handed to {@code SoftProvider.launch} (an instance of their own) or
 * {@code SoftProvider.launchDefault} (the one the API finds), the two types it exports besides the settings'. Its
 * counters files are {@code io.rdma4j.stat}'s, which {@code rdma4j stat} reads.
 */
module io.rdma4j.soft
{
    requires io.rdma4j.api;
    // the counters files rdma4j stat reads, and the owner-only directory the same-host inboxes share with them
    requires io.rdma4j.stat;
    // the agent runner and idle strategies of the device and CM loops (an automatic module: Agrona has no
    // module-info; its buffers, which need jdk.internal.misc, are not used)
    requires org.agrona;
    // the device's counters as an MBean
    requires java.management;
    // IP_DONTFRAGMENT on the UDP socket, which the ICRC's IP identification relies on
    requires jdk.net;

    // the settings' declarations and values, which a context in code gives and reads (SocketChoice, SoftSettings)
    exports io.rdma4j.soft.config;
    // a provider instance made from a context in code, and which socket and same-host path an open device runs on
    exports io.rdma4j.soft.provider;

    provides io.rdma4j.spi.RdmaProvider with io.rdma4j.soft.provider.SoftProvider;
}
