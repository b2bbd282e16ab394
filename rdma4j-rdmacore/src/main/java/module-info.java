/**
 * The native engine for {@code io.rdma4j.api}: rdma-core's libibverbs and librdmacm through the FFM API,
 * found through {@code provides}. Its calls into C are restricted methods: run the JVM with
 * {@code --enable-native-access=io.rdma4j.rdmacore} on the module path ({@code ALL-UNNAMED} on the class
 * path). Without it, JDK 25 warns once; with {@code --illegal-native-access=deny} the provider lists no
 * device and its unavailability reason names the flag.
 */
module io.rdma4j.rdmacore
{
    requires io.rdma4j.api;

    provides io.rdma4j.spi.RdmaProvider with io.rdma4j.rdmacore.provider.NativeProvider;
}
