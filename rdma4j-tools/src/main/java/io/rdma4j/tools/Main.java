package io.rdma4j.tools;

import io.rdma4j.tools.cmatose.CmatoseCommand;
import io.rdma4j.tools.cmtime.CmtimeCommand;
import io.rdma4j.tools.ep.RdmaClientCommand;
import io.rdma4j.tools.ep.RdmaServerCommand;
import io.rdma4j.tools.perf.PerfCommand;
import io.rdma4j.tools.pingpong.RcPingPongCommand;
import io.rdma4j.tools.pingpong.SrqPingPongCommand;
import io.rdma4j.tools.pingpong.UcPingPongCommand;
import io.rdma4j.tools.pingpong.UdPingPongCommand;
import io.rdma4j.tools.rmcast.RmcastPubCommand;
import io.rdma4j.tools.rmcast.RmcastSubCommand;
import io.rdma4j.tools.rping.RpingCommand;
import io.rdma4j.tools.soak.SoakCommand;
import io.rdma4j.tools.udaddy.UdaddyCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.Arrays;
import java.util.List;

/**
 * The {@code rdma4j} command line: the rdma-core tools people already know ({@code ibv_devices},
 * {@code ibv_devinfo}, the {@code ibv_*_pingpong} tools, {@code mckey}, {@code rping}, {@code udaddy},
 * {@code rdma_server}, {@code rdma_client}, {@code cmatose}, {@code cmtime})
 * on rdma4j's devices, a one-command multicast demo, perftest's tests ({@code perf}), the live counters of
 * every device on the machine ({@code stat}), leak-hunting cycles ({@code soak}) and a reliable multicast
 * publisher and subscriber ({@code rmcast_pub}, {@code rmcast_sub}).
 */
@Command(
    name = "rdma4j",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "rdma-core's and librdmacm's tools on rdma4j's devices (devices, devinfo, the ping-pongs, mckey, " +
        "rping, udaddy, cmatose or ucmatose, cmtime, rdma_server, rdma_client), a multicast demo, perftest's tests beside a " +
        "raw-UDP baseline (perf), every running device's counters, live (stat), leak-hunting cycles (soak), and a " +
        "reliable multicast publisher and subscriber (rmcast_pub, rmcast_sub).")
public final class Main implements Runnable
{
    /** The subcommands, in the order the help lists them. */
    private static final List<Class<?>> COMMANDS = List.of(
        DevicesCommand.class, DevinfoCommand.class, McKeyCommand.class, DemoCommand.class,
        RcPingPongCommand.class, UcPingPongCommand.class, UdPingPongCommand.class, SrqPingPongCommand.class,
        RpingCommand.class, UdaddyCommand.class, CmatoseCommand.class, CmtimeCommand.class, RdmaServerCommand.class,
        RdmaClientCommand.class, SoakCommand.class, StatCommand.class, PerfCommand.class, RmcastPubCommand.class,
        RmcastSubCommand.class,
        CommandLine.HelpCommand.class);

    @Spec
    private CommandSpec spec;

    /**
     * Run a command line and exit with its status.
     *
     * @param args the arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(execute(args));
    }

    /**
     * Run a command line without exiting, for tests and embedding.
     *
     * @param args the arguments.
     * @return the exit status.
     */
    public static int execute(final String... args)
    {
        return commandLine(args.length == 0 ? null : args[0]).execute(args);
    }

    /**
     * @return the command line, with every subcommand, ready to parse or execute.
     */
    public static CommandLine commandLine()
    {
        return commandLine(null);
    }

    /**
     * picocli builds the model of every subcommand it is given, by reflection, before it parses: that is most of
     * a tool's start (2 of 2.4 s for {@code rdma4j mckey --help} on a loaded host, half a minute in the emulated
     * lab guest). A command line naming a subcommand gets only that one; any other (help, version, a typo) gets
     * them all, so what it prints is as before.
     *
     * @param first the first argument, or null.
     * @return the command line, with the subcommand {@code first} names or with every subcommand.
     */
    static CommandLine commandLine(final String first)
    {
        final Class<?> only = first == null || "help".equals(first) ? null : named(first);
        final CommandLine main = new CommandLine(new Main());
        for (final Class<?> command : COMMANDS)
        {
            if (only == null || command == only)
            {
                main.addSubcommand(command);
            }
        }
        return main;
    }

    private static Class<?> named(final String name)
    {
        for (final Class<?> command : COMMANDS)
        {
            final Command annotation = command.getAnnotation(Command.class);
            if (name.equals(annotation.name()) || Arrays.asList(annotation.aliases()).contains(name))
            {
                return command;
            }
        }
        return null;
    }

    /**
     * With no subcommand there is nothing to do but explain what there is.
     */
    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getErr());
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    /**
     * The version from the jar's manifest when there is one, else the build's default.
     */
    public static final class Version implements IVersionProvider
    {
        /**
         * @return the version lines.
         */
        @Override
        public String[] getVersion()
        {
            final String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {
                "rdma4j " + (version == null ? "0.1.0-SNAPSHOT" : version),
                "Java " + Runtime.version() + " (" + System.getProperty("java.home") + ")" };
        }
    }
}
