/**
 * The {@code rdma4j} command line ({@code io.rdma4j.tools.Main}): an application of {@code io.rdma4j.api}
 * that also reads the software device's stat files. Both engines are bound through the API's {@code uses}
 * when they are on the module path.
 */
module io.rdma4j.tools
{
    requires io.rdma4j.api;
    requires io.rdma4j.rmcast;
    // the soft device's settings and provider context, which the tools hand it in code
    requires io.rdma4j.soft;
    // rdma4j stat's reader: the files of soft devices and of reliable multicast's publications and subscriptions
    requires io.rdma4j.stat;
    requires info.picocli;
    // an automatic module: HdrHistogram's jar has neither a descriptor nor an Automatic-Module-Name
    requires HdrHistogram;
    // soak's footprint: memory and buffer pool MXBeans, and the DiagnosticCommand MBean of jdk.management
    requires java.management;
    requires jdk.management;

    // picocli builds each command from its annotated fields and constructor by reflection, and makes the
    // converters an option names (common's CNumber) the same way
    opens io.rdma4j.tools to info.picocli;
    opens io.rdma4j.tools.cmatose to info.picocli;
    opens io.rdma4j.tools.cmtime to info.picocli;
    opens io.rdma4j.tools.common to info.picocli;
    opens io.rdma4j.tools.perf to info.picocli;
    opens io.rdma4j.tools.pingpong to info.picocli;
    opens io.rdma4j.tools.rmcast to info.picocli;
    opens io.rdma4j.tools.rping to info.picocli;
    opens io.rdma4j.tools.soak to info.picocli;
    opens io.rdma4j.tools.udaddy to info.picocli;
}
