package io.rdma4j.tools.common;

import io.rdma4j.verbs.Gid;

/**
 * GIDs as glibc's {@code inet_ntop(AF_INET6)} writes them, which is how ibv_devinfo and mckey print
 * them: the longest run of two or more zero groups becomes {@code ::}, and IPv4-mapped or
 * IPv4-compatible addresses end in dotted decimal.
 */
public final class GidText
{
    private GidText()
    {
    }

    /**
     * @param gid a GID.
     * @return the text inet_ntop gives for its 16 bytes.
     */
    public static String of(final Gid gid)
    {
        final byte[] b = gid.toBytes();
        final int[] words = new int[8];
        for (int i = 0; i < 8; i++)
        {
            words[i] = ((b[2 * i] & 0xFF) << 8) | (b[2 * i + 1] & 0xFF);
        }
        int bestBase = -1;
        int bestLen = 0;
        int curBase = -1;
        int curLen = 0;
        for (int i = 0; i < 8; i++)
        {
            if (words[i] == 0)
            {
                if (curBase == -1)
                {
                    curBase = i;
                    curLen = 1;
                }
                else
                {
                    curLen++;
                }
            }
            else if (curBase != -1)
            {
                if (bestBase == -1 || curLen > bestLen)
                {
                    bestBase = curBase;
                    bestLen = curLen;
                }
                curBase = -1;
            }
        }
        if (curBase != -1 && (bestBase == -1 || curLen > bestLen))
        {
            bestBase = curBase;
            bestLen = curLen;
        }
        if (bestBase != -1 && bestLen < 2)
        {
            bestBase = -1;
        }
        final StringBuilder sb = new StringBuilder(46);
        for (int i = 0; i < 8; i++)
        {
            if (bestBase != -1 && i >= bestBase && i < bestBase + bestLen)
            {
                if (i == bestBase)
                {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0)
            {
                sb.append(':');
            }
            final boolean ipv4Tail = i == 6 && bestBase == 0 &&
                (bestLen == 6 || (bestLen == 7 && words[7] != 0x0001) || (bestLen == 5 && words[5] == 0xFFFF));
            if (ipv4Tail)
            {
                sb.append(b[12] & 0xFF).append('.').append(b[13] & 0xFF).append('.')
                    .append(b[14] & 0xFF).append('.').append(b[15] & 0xFF);
                return sb.toString();
            }
            sb.append(Integer.toHexString(words[i]));
        }
        if (bestBase != -1 && bestBase + bestLen == 8)
        {
            sb.append(':');
        }
        return sb.toString();
    }

    /**
     * @param guid a 64-bit GUID.
     * @return it as ibv_devinfo prints node GUIDs: four groups of four hex digits.
     */
    public static String guid(final long guid)
    {
        return String.format("%04x:%04x:%04x:%04x",
            (guid >>> 48) & 0xFFFF, (guid >>> 32) & 0xFFFF, (guid >>> 16) & 0xFFFF, guid & 0xFFFF);
    }
}
