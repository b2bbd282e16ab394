/**
 * The verbs objects a transport reads but never drives: memory regions ({@link io.rdma4j.soft.resource.SoftMr})
 * with the device's key table ({@link io.rdma4j.soft.resource.MrTable}, lkey = rkey = slot index and a random
 * key byte, as rxe), and address handles ({@link io.rdma4j.soft.resource.SoftAh}, the destination taken from the
 * GID once). They belong to a PD above, which they know only as the API's
 * {@link io.rdma4j.verbs.ProtectionDomain}; destroying one calls back into it.
 * <p>
 * <b>Arrows.</b> Imports the API ({@code io.rdma4j.verbs}) and {@code counter} only; {@code transport} and the
 * verbs objects of {@code soft} use it.
 */
package io.rdma4j.soft.resource;
