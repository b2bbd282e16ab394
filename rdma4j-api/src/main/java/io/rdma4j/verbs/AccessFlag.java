package io.rdma4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * Memory region and queue pair access rights ({@code enum ibv_access_flags}).
 */
public enum AccessFlag
{
    LOCAL_WRITE(1), REMOTE_WRITE(1 << 1), REMOTE_READ(1 << 2), REMOTE_ATOMIC(1 << 3), MW_BIND(1 << 4);

    private final int bit;

    AccessFlag(final int bit)
    {
        this.bit = bit;
    }

    /**
     * @return the bit libibverbs uses.
     */
    public int bit()
    {
        return bit;
    }

    /**
     * @param flags a set of flags.
     * @return their bits or-ed together.
     */
    public static int toMask(final Set<AccessFlag> flags)
    {
        int mask = 0;
        for (final AccessFlag flag : flags)
        {
            mask |= flag.bit;
        }
        return mask;
    }

    /**
     * @param mask bits as libibverbs writes them.
     * @return the flags; unknown bits are refused.
     */
    public static EnumSet<AccessFlag> fromMask(final int mask)
    {
        final EnumSet<AccessFlag> flags = EnumSet.noneOf(AccessFlag.class);
        int rest = mask;
        for (final AccessFlag flag : values())
        {
            if ((mask & flag.bit) != 0)
            {
                flags.add(flag);
                rest &= ~flag.bit;
            }
        }
        if (rest != 0)
        {
            throw new RdmaException(Errno.EINVAL, "unknown access flag bits 0x" + Integer.toHexString(rest));
        }
        return flags;
    }
}
