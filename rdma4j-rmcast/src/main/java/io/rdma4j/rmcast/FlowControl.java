package io.rdma4j.rmcast;

/**
 * How far ahead of its members a publication may run, from the positions they write into its status array.
 */
public enum FlowControl
{
    /** Never overrun the slowest member: it holds the publication back, so it never loses a fragment. */
    MIN,
    /** Keep pace with the fastest member: a slower one repairs from the window, or loses what left it. */
    MAX
}
