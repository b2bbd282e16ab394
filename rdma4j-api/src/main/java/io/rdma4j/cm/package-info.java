/**
 * The connection manager, named as librdmacm names it: {@link io.rdma4j.cm.RdmaCm} creates an
 * {@link io.rdma4j.cm.EventChannel}, which makes {@link io.rdma4j.cm.CmId}s that bind, resolve, listen,
 * connect, accept and join or leave multicast groups, and hands out their {@link io.rdma4j.cm.CmEvent}s.
 * Each id takes the engine whose device owns its address ({@link io.rdma4j.cm.CmRouting}), so one channel
 * can hold ids of both engines.
 * <p>
 * <b>Arrows.</b> Builds on {@code io.rdma4j.verbs} (an id's context, PD and QP, the errors) and uses
 * {@code io.rdma4j.spi} to reach the engines' own channels; {@code spi}'s {@code RdmaProvider} in turn
 * hands out this package's {@code EventChannel}, which closes the API's one allowed package cycle (see
 * {@code io.rdma4j.verbs}). It imports nothing else. The engines' connection managers
 * ({@code io.rdma4j.soft.cm}, {@code io.rdma4j.rdmacore.cm}) implement it and their providers hand it out;
 * the tools, the Netty transport and the examples use it.
 */
package io.rdma4j.cm;
