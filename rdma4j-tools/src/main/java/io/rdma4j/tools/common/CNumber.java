package io.rdma4j.tools.common;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Numbers as rdma-core's tools read them, {@code strtol(optarg, NULL, 0)}: decimal, {@code 0x}
 * hex or leading-zero octal, with an optional sign. Unlike strtol, trailing junk is refused
 * rather than ignored, so a typo is not silently taken as 0.
 */
public final class CNumber implements ITypeConverter<Integer>
{
    /**
     * @param text the argument.
     * @return its value.
     * @throws TypeConversionException if it is not a C integer literal that fits an int.
     */
    @Override
    public Integer convert(final String text)
    {
        return parse(text);
    }

    /**
     * @param text a C integer literal.
     * @return its value.
     * @throws TypeConversionException if it is not one or does not fit an int.
     */
    public static int parse(final String text)
    {
        String digits = text.trim();
        boolean negative = false;
        if (digits.startsWith("-") || digits.startsWith("+"))
        {
            negative = digits.charAt(0) == '-';
            digits = digits.substring(1);
        }
        int radix = 10;
        if (digits.startsWith("0x") || digits.startsWith("0X"))
        {
            radix = 16;
            digits = digits.substring(2);
        }
        else if (digits.length() > 1 && digits.startsWith("0"))
        {
            radix = 8;
            digits = digits.substring(1);
        }
        try
        {
            final long value = Long.parseLong(digits, radix);
            final long signed = negative ? -value : value;
            if (signed < Integer.MIN_VALUE || signed > 0xFFFF_FFFFL)
            {
                throw new TypeConversionException("'" + text + "' is out of range");
            }
            return (int)signed;
        }
        catch (final NumberFormatException ex)
        {
            throw new TypeConversionException("'" + text + "' is not a number");
        }
    }
}
