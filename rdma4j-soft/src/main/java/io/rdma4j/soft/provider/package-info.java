/**
 * The software device's entry point for the API's provider lookup ({@code ServiceLoader}), and what an open device
 * tells the tools about itself ({@code DevicePath}).
 * <p>
 * Arrows: the top of {@code rdma4j-soft}. It imports the connection manager ({@code soft.cm}) and the device
 * registry ({@code io.rdma4j.soft}), and the links ({@code soft.link}) for their path; nothing in the module
 * imports it.
 */
package io.rdma4j.soft.provider;
