package io.rdma4j.rdmacore.abi;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * C's layout rules for the x86-64 and aarch64 Linux ABI (LP64), so that each struct is declared as its
 * header lists its members and the padding follows by itself: every member at the next multiple of its
 * alignment, the whole rounded up to the largest alignment. The layout test compiles a C program against
 * rdma-core's headers and compares every named member's offset and size with what these give.
 */
public final class CLayout
{
    /** {@code uint8_t}, {@code char}. */
    public static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    /** {@code uint16_t}. */
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT;
    /** {@code uint32_t}, {@code int}, {@code unsigned int} and every enum. */
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT;
    /** {@code uint64_t}, {@code size_t}. */
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG;
    /** Any pointer. */
    public static final ValueLayout POINTER = ValueLayout.ADDRESS;

    private CLayout()
    {
    }

    /**
     * @param name the C struct tag, e.g. {@code ibv_wc}; the layout test names the C type from it.
     * @param members the members in declaration order, each named as in C (anonymous unions unnamed).
     * @return the struct with C's padding between members and at the end.
     */
    public static StructLayout struct(final String name, final MemoryLayout... members)
    {
        final List<MemoryLayout> padded = new ArrayList<>();
        long offset = 0;
        long alignment = 1;
        for (final MemoryLayout member : members)
        {
            final long memberAlignment = member.byteAlignment();
            final long aligned = align(offset, memberAlignment);
            if (aligned > offset)
            {
                padded.add(MemoryLayout.paddingLayout(aligned - offset));
            }
            padded.add(member);
            offset = aligned + member.byteSize();
            alignment = Math.max(alignment, memberAlignment);
        }
        final long size = align(offset, alignment);
        if (size > offset)
        {
            padded.add(MemoryLayout.paddingLayout(size - offset));
        }
        final StructLayout layout = MemoryLayout.structLayout(padded.toArray(MemoryLayout[]::new));
        return name == null ? layout : layout.withName(name);
    }

    /**
     * @param name the union's member name in its enclosing struct, or null for an anonymous union.
     * @param members the alternatives.
     * @return the union, its size rounded up to its alignment as C does.
     */
    public static UnionLayout union(final String name, final MemoryLayout... members)
    {
        long size = 0;
        long alignment = 1;
        for (final MemoryLayout member : members)
        {
            size = Math.max(size, member.byteSize());
            alignment = Math.max(alignment, member.byteAlignment());
        }
        final long padded = align(size, alignment);
        final MemoryLayout[] all;
        if (padded > size)
        {
            all = new MemoryLayout[members.length + 1];
            System.arraycopy(members, 0, all, 0, members.length);
            all[members.length] = MemoryLayout.sequenceLayout(padded, ValueLayout.JAVA_BYTE);
        }
        else
        {
            all = members;
        }
        final UnionLayout layout = MemoryLayout.unionLayout(all);
        return name == null ? layout : layout.withName(name);
    }

    /**
     * @param name the member's name.
     * @param count the array's length.
     * @return {@code char name[count]}.
     */
    public static MemoryLayout chars(final String name, final long count)
    {
        return MemoryLayout.sequenceLayout(count, ValueLayout.JAVA_BYTE).withName(name);
    }

    /**
     * An opaque member whose contents Java never reads, such as a {@code pthread_mutex_t}.
     *
     * @param name the member's name.
     * @param size its size in bytes.
     * @param alignment its alignment in bytes.
     * @return the member.
     */
    public static MemoryLayout opaque(final String name, final long size, final long alignment)
    {
        return MemoryLayout.sequenceLayout(size, ValueLayout.JAVA_BYTE).withByteAlignment(alignment).withName(name);
    }

    /**
     * @param layout a struct or union.
     * @param path member names from the outside in, e.g. {@code "wr", "rdma", "rkey"}; an anonymous union's
     *     members are named directly.
     * @return the member's offset from the start of {@code layout}.
     */
    public static long offset(final GroupLayout layout, final String... path)
    {
        long offset = 0;
        GroupLayout group = layout;
        for (int i = 0; i < path.length; i++)
        {
            final Found found = find(group, path[i]);
            if (found == null)
            {
                throw new IllegalArgumentException(layout.name().orElse("?") + " has no member " +
                    String.join(".", path));
            }
            offset += found.offset;
            if (i < path.length - 1)
            {
                group = (GroupLayout)found.layout;
            }
        }
        return offset;
    }

    private static Found find(final GroupLayout group, final String name)
    {
        long offset = 0;
        for (final MemoryLayout member : group.memberLayouts())
        {
            if (member.name().filter(name::equals).isPresent())
            {
                return new Found(offset, member);
            }
            if (member.name().isEmpty() && member instanceof final GroupLayout anonymous)
            {
                final Found inner = find(anonymous, name);
                if (inner != null)
                {
                    return new Found(offset + inner.offset, inner.layout);
                }
            }
            if (group instanceof StructLayout)
            {
                offset += member.byteSize();
            }
        }
        return null;
    }

    private static long align(final long offset, final long alignment)
    {
        return (offset + alignment - 1) / alignment * alignment;
    }

    private record Found(long offset, MemoryLayout layout)
    {
    }
}
