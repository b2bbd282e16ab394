package io.rdma4j.verbs;

/**
 * An address handle ({@code struct ibv_ah}): where UD sends go.
 */
public interface AddressHandle extends AutoCloseable
{
    /**
     * @return the PD it was made in.
     */
    ProtectionDomain pd();

    /**
     * @return the address vector.
     */
    AhAttr attr();

    /**
     * Destroy it ({@code ibv_destroy_ah}).
     */
    @Override
    void close();
}
