/**
 * {@code rdma4j cmtime}: librdmacm's cmtime ({@link io.rdma4j.tools.cmtime.CmtimeCommand}), the time each step of
 * connection setup and teardown takes (create id, resolve addr and route, create qp, connect, disconnect,
 * destroy), per connection and in all, for {@code -c} connections at once, in rdma-core's table.
 */
package io.rdma4j.tools.cmtime;
