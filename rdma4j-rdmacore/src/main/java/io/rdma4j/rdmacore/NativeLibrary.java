package io.rdma4j.rdmacore;

import io.rdma4j.spi.Setting;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * A shared library of rdma-core found at run time with the dynamic linker's search, or the sentence saying why
 * it could not be. Nothing here is compiled for the user's machine: the library is whatever the system has
 * installed ({@code libibverbs1}, {@code librdmacm1} on Debian). The name can be overridden with a system
 * property, which is how a test forces the missing-library path.
 */
public final class NativeLibrary
{
    /** The system property naming libibverbs, {@value #DEFAULT_IBVERBS} by default. */
    public static final String IBVERBS_PROPERTY = "rdma4j.rdmacore.libibverbs";

    /** The system property naming librdmacm, {@value #DEFAULT_RDMACM} by default. */
    public static final String RDMACM_PROPERTY = "rdma4j.rdmacore.librdmacm";

    /** The soname of libibverbs whose ABI this module's layouts follow. */
    public static final String DEFAULT_IBVERBS = "libibverbs.so.1";

    /** The soname of librdmacm. */
    public static final String DEFAULT_RDMACM = "librdmacm.so.1";

    /**
     * libibverbs' file. Read by this module when the library first loads, once per process, not by a configuration
     * object: {@code io.rdma4j.api} is below the providers, and the soft device's settings are another module's.
     */
    public static final Setting IBVERBS = new Setting(IBVERBS_PROPERTY, null, "`" + DEFAULT_IBVERBS + "`",
        "a library name or path", "Which libibverbs the native provider loads; one it cannot load leaves the " +
        "native provider without devices, with a sentence saying why.");

    /** librdmacm's file, read as {@link #IBVERBS} is. */
    public static final Setting RDMACM = new Setting(RDMACM_PROPERTY, null, "`" + DEFAULT_RDMACM + "`",
        "a library name or path", "Which librdmacm the native provider's connection manager loads.");

    private static final Linker LINKER = Linker.nativeLinker();

    private final String name;
    private final SymbolLookup lookup;
    private final String unavailableReason;

    private NativeLibrary(final String name, final SymbolLookup lookup, final String unavailableReason)
    {
        this.name = name;
        this.lookup = lookup;
        this.unavailableReason = unavailableReason;
    }

    /**
     * Load a library for the life of the process.
     *
     * @param setting     the setting that may name another file.
     * @param defaultName the soname to load otherwise.
     * @return the library, loaded or not; never throws.
     */
    public static NativeLibrary load(final Setting setting, final String defaultName)
    {
        final String configured = setting.read();
        final String name = configured == null ? defaultName : configured;
        try
        {
            return new NativeLibrary(name, SymbolLookup.libraryLookup(name, Arena.global()), null);
        }
        catch (final IllegalCallerException ex)
        {
            // --illegal-native-access=deny without this module enabled: the library may well be installed
            return new NativeLibrary(name, null, name + " was not loaded: native access is not enabled for " +
                nativeAccessName() + "; run java with --enable-native-access=" + nativeAccessName());
        }
        catch (final IllegalArgumentException ex)
        {
            return new NativeLibrary(name, null, name + " could not be loaded (" + ex.getMessage() +
                "): install rdma-core's user-space library (Debian: libibverbs1 librdmacm1)");
        }
    }

    /**
     * @return what {@code --enable-native-access} must name for this provider: its module on the module path,
     * {@code ALL-UNNAMED} on the class path.
     */
    public static String nativeAccessName()
    {
        final Module module = NativeLibrary.class.getModule();
        return module.isNamed() ? module.getName() : "ALL-UNNAMED";
    }

    /**
     * @return the file name that was loaded or tried.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return true if the library is loaded.
     */
    public boolean isLoaded()
    {
        return lookup != null;
    }

    /**
     * @return why the library is not loaded, or null when it is.
     */
    public String unavailableReason()
    {
        return unavailableReason;
    }

    /**
     * @param symbol a function's name.
     * @return its address, if the library exports it.
     */
    public Optional<MemorySegment> find(final String symbol)
    {
        return lookup == null ? Optional.empty() : lookup.find(symbol);
    }

    /**
     * @param symbol a function's name.
     * @param descriptor its C signature.
     * @param options linker options, e.g. capturing {@code errno}.
     * @return a downcall handle to it.
     * @throws UnsatisfiedLinkError if the library is not loaded or lacks the symbol.
     */
    public MethodHandle downcall(final String symbol, final FunctionDescriptor descriptor,
        final Linker.Option... options)
    {
        final MemorySegment address = find(symbol).orElseThrow(() -> new UnsatisfiedLinkError(
            lookup == null ? unavailableReason : name + " has no symbol " + symbol));
        return LINKER.downcallHandle(address, descriptor, options);
    }
}
