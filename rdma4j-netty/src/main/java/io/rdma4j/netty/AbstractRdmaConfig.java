package io.rdma4j.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.RecvByteBufAllocator;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * What the rdma4j channels' configurations share: Netty's options, int and boolean options of their own that are
 * read and set through the configuration's getter and checked setter, and {@code AUTO_READ}'s clearing, which the channel
 * hears of.
 */
abstract class AbstractRdmaConfig extends DefaultChannelConfig
{
    /** An option of the configuration's own. */
    private record OwnOption(Supplier<Object> getter, Consumer<Object> setter)
    {
    }

    private final Map<ChannelOption<?>, OwnOption> own = new LinkedHashMap<>();
    private final Runnable autoReadCleared;

    /**
     * @param channel         the channel.
     * @param autoReadCleared what the channel does when {@code AUTO_READ} is turned off.
     */
    AbstractRdmaConfig(final Channel channel, final Runnable autoReadCleared)
    {
        super(channel);
        this.autoReadCleared = autoReadCleared;
    }

    /**
     * @param channel         the channel.
     * @param allocator       how its reads are sized.
     * @param autoReadCleared what the channel does when {@code AUTO_READ} is turned off.
     */
    AbstractRdmaConfig(final Channel channel, final RecvByteBufAllocator allocator, final Runnable autoReadCleared)
    {
        super(channel, allocator);
        this.autoReadCleared = autoReadCleared;
    }

    /**
     * Add an option of this configuration's own; in the constructor.
     *
     * @param option the option.
     * @param getter its value.
     * @param setter checks and sets it; throws {@link IllegalArgumentException} for a value out of range.
     */
    final void option(final ChannelOption<Integer> option, final IntSupplier getter, final IntConsumer setter)
    {
        own.put(option, new OwnOption(getter::getAsInt, value -> setter.accept((Integer)value)));
    }

    /**
     * Add a boolean option of this configuration's own; in the constructor.
     *
     * @param option the option.
     * @param getter its value.
     * @param setter sets it.
     */
    final void flag(final ChannelOption<Boolean> option, final BooleanSupplier getter, final Consumer<Boolean> setter)
    {
        own.put(option, new OwnOption(getter::getAsBoolean, value -> setter.accept((Boolean)value)));
    }

    /**
     * @param name  the option's name, for the message.
     * @param value a value.
     * @param min   the least it may be.
     * @param max   the most it may be.
     * @return the value.
     * @throws IllegalArgumentException if it is outside {@code min..max}.
     */
    static int inRange(final String name, final int value, final int min, final int max)
    {
        return inRange(name, value, min, max, min + ".." + max);
    }

    /**
     * @param name  the option's name, for the message.
     * @param value a value.
     * @param min   the least it may be.
     * @param max   the most it may be.
     * @param range the range in words, for the message.
     * @return the value.
     * @throws IllegalArgumentException if it is outside {@code min..max}.
     */
    static int inRange(final String name, final int value, final int min, final int max, final String range)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " " + value + " is outside " + range);
        }
        return value;
    }

    @Override
    public final Map<ChannelOption<?>, Object> getOptions()
    {
        return getOptions(super.getOptions(), own.keySet().toArray(new ChannelOption<?>[0]));
    }

    @Override
    @SuppressWarnings("unchecked")
    public final <T> T getOption(final ChannelOption<T> option)
    {
        final OwnOption mine = own.get(option);
        return mine == null ? super.getOption(option) : (T)mine.getter().get();
    }

    @Override
    public final <T> boolean setOption(final ChannelOption<T> option, final T value)
    {
        validate(option, value);
        final OwnOption mine = own.get(option);
        if (mine == null)
        {
            return super.setOption(option, value);
        }
        mine.setter().accept(value);
        return true;
    }

    @Override
    protected final void autoReadCleared()
    {
        autoReadCleared.run();
    }
}
