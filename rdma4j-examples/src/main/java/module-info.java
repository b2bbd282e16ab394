/**
 * The examples, written as an application is: against {@code io.rdma4j.api} alone, with an engine
 * ({@code io.rdma4j.soft}) on the module path at run time, bound through the API's {@code uses}. Run one with
 * {@code java -p DIR -m io.rdma4j.examples/io.rdma4j.examples.RdmaServer ...}.
 */
module io.rdma4j.examples
{
    requires io.rdma4j.api;
}
