/**
 * The software device's entry point for the API's provider lookup ({@code ServiceLoader}).
 * <p>
 * Arrows: the top of {@code rdma4j-soft}. It imports the connection manager ({@code soft.cm}) and the device
 * registry ({@code io.rdma4j.soft}); nothing in the module imports it.
 */
package io.rdma4j.soft.provider;
