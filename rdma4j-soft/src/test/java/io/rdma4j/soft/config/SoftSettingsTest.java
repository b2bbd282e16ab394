package io.rdma4j.soft.config;

import io.rdma4j.spi.Setting;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every setting of the software device read from given properties and variables, as the registry reads the
 * system's: the defaults when nothing is set, the property over the variable, a blank value as none, and a value
 * the setting does not accept refused with EINVAL and a sentence naming the setting and what it accepts.
 */
class SoftSettingsTest
{
    private static final Map<String, String> JVM = Map.of("user.name", "ann", "java.io.tmpdir", "/tmp/jvm",
        "user.home", "/home/ann");

    private static SoftSettings read(final Map<String, String> properties, final Map<String, String> environment)
    {
        final Map<String, String> withJvm = new java.util.HashMap<>(JVM);
        withJvm.putAll(properties);
        return SettingsReader.read(withJvm::get, environment::get);
    }

    private static SoftSettings property(final Setting setting, final String value)
    {
        return read(Map.of(setting.property(), value), Map.of());
    }

    private static SoftSettings variable(final Setting setting, final String value)
    {
        return read(Map.of(), Map.of(setting.environment(), value));
    }

    private static String refused(final Setting setting, final String value)
    {
        final RdmaException fromProperty = assertThrows(RdmaException.class, () -> property(setting, value));
        assertEquals(Errno.EINVAL, fromProperty.errno());
        final RdmaException fromVariable = assertThrows(RdmaException.class, () -> variable(setting, value));
        assertEquals(fromProperty.getMessage(), fromVariable.getMessage());
        final String message = fromProperty.getMessage();
        assertTrue(message.startsWith("EINVAL: " + setting.property() + " ") && message.contains("'" + value + "'"),
            message);
        return message;
    }

    @Test
    void nothingSetGivesEveryDefault()
    {
        final SoftSettings settings = read(Map.of(), Map.of());
        assertEquals(List.of(InetAddress.ofLiteral("127.0.0.1")), settings.addresses());
        assertEquals(OptionalDouble.empty(), settings.loss());
        assertEquals(OptionalLong.empty(), settings.lossSeed());
        assertTrue(settings.polling(), "polling mode by default");
        assertEquals(SocketChoice.AUTO, settings.socket());
        assertTrue(settings.sameHost());
        assertTrue(settings.shmDirectory().equals(Path.of("/dev/shm/rdma4j-ann")) ||
            settings.shmDirectory().equals(Path.of("/tmp/jvm/rdma4j-shm-ann")), settings.shmDirectory().toString());
        // the second place is one no other user can make first: in the home directory, named by this boot
        assertEquals(2, settings.shmDirectories().size(), settings.shmDirectories().toString());
        final Path second = settings.shmDirectories().get(1);
        assertEquals(Path.of("/home/ann/.rdma4j"), second.getParent());
        assertTrue(second.getFileName().toString().matches("shm-([0-9a-f-]{36}|host)"), second.toString());
        assertTrue(settings.stat());
        assertEquals(Path.of("/tmp/jvm/rdma4j-stat-ann"), settings.statDirectory());
    }

    @Test
    void theUsersNameIsMadeSafeForADirectoryName()
    {
        final SoftSettings settings = SettingsReader.read(
            Map.of("user.name", "a/b c", "java.io.tmpdir", "/tmp/jvm")::get, Map.<String, String>of()::get);
        assertEquals(Path.of("/tmp/jvm/rdma4j-stat-a_b_c"), settings.statDirectory());
    }

    @Test
    void thePropertyWinsOverTheVariableAndABlankOneCountsAsNone()
    {
        final Map<String, String> environment = Map.of("RDMA4J_SOFT_PROGRESS", "thread");
        assertFalse(read(Map.of(), environment).polling(), "the variable alone");
        assertTrue(read(Map.of("rdma4j.soft.progress", "polling"), environment).polling(), "the property wins");
        assertFalse(read(Map.of("rdma4j.soft.progress", "  "), environment).polling(), "a blank property is none");
        assertTrue(read(Map.of(), Map.of("RDMA4J_SOFT_PROGRESS", "")).polling(), "a blank variable is none");
        assertFalse(read(Map.of("rdma4j.soft.progress", " thread\n"), Map.of()).polling(), "trimmed");
    }

    @Test
    void addressesAreCommaSeparatedLiteralsOfEitherFamily()
    {
        assertEquals(List.of(InetAddress.ofLiteral("127.0.0.2"), InetAddress.ofLiteral("::1")),
            property(SoftSettings.ADDRESS, "127.0.0.2, ::1,").addresses());
        assertEquals(List.of(InetAddress.ofLiteral("10.1.2.3")),
            variable(SoftSettings.ADDRESS, "10.1.2.3").addresses());
        assertEquals(List.of(), property(SoftSettings.ADDRESS, ",").addresses(), "given, but none");
        assertTrue(refused(SoftSettings.ADDRESS, "localhost").contains("entry 'localhost' is not an IP address"));
    }

    @Test
    void theLossIsAFractionBelowOneAndItsSeedALong()
    {
        assertEquals(OptionalDouble.of(0.25), property(SoftSettings.LOSS, "0.25").loss());
        assertEquals(OptionalDouble.of(0), variable(SoftSettings.LOSS, "0").loss());
        assertTrue(refused(SoftSettings.LOSS, "1.5").contains("'1.5' is not a fraction in [0, 1)"));
        refused(SoftSettings.LOSS, "1");
        refused(SoftSettings.LOSS, "-0.1");
        refused(SoftSettings.LOSS, "NaN");
        refused(SoftSettings.LOSS, "some");
        assertEquals(OptionalLong.of(-7), variable(SoftSettings.LOSS_SEED, "-7").lossSeed());
        assertTrue(refused(SoftSettings.LOSS_SEED, "0x11").contains("is not a long integer"));
    }

    @Test
    void theProgressModeIsPollingOrThread()
    {
        assertTrue(property(SoftSettings.PROGRESS, "polling").polling());
        assertFalse(variable(SoftSettings.PROGRESS, "THREAD").polling());
        final String message = refused(SoftSettings.PROGRESS, "spin");
        assertTrue(message.contains("'polling'") && message.contains("'thread'"), message);
    }

    @Test
    void theSocketIsAutoNioOrLinux()
    {
        assertEquals(SocketChoice.NIO, property(SoftSettings.SOCKET, "nio").socket());
        assertEquals(SocketChoice.LINUX, variable(SoftSettings.SOCKET, "Linux").socket());
        assertEquals(SocketChoice.AUTO, property(SoftSettings.SOCKET, "auto").socket());
        final String message = refused(SoftSettings.SOCKET, "epoll");
        assertTrue(message.contains("'auto'") && message.contains("'nio'") && message.contains("'linux'"), message);
    }

    @Test
    void theSameHostPathIsAutoOrOffInTheDirectoryGiven()
    {
        assertFalse(property(SoftSettings.SHM, "off").sameHost());
        assertTrue(variable(SoftSettings.SHM, "auto").sameHost());
        assertTrue(refused(SoftSettings.SHM, "on").contains("'on' is neither 'auto'"));
        assertEquals(Path.of("/var/inboxes"), variable(SoftSettings.SHM_DIR, "/var/inboxes").shmDirectory());
        assertEquals(List.of(Path.of("/var/inboxes")),
            variable(SoftSettings.SHM_DIR, "/var/inboxes").shmDirectories());
        assertEquals(List.of(Path.of("/a"), Path.of("/b c")),
            property(SoftSettings.SHM_DIR, "/a::/b c:").shmDirectories(), "in order, empty entries skipped");
        assertTrue(refused(SoftSettings.SHM_DIR, "a\0b").contains("is not a directory path"));
        assertTrue(refused(SoftSettings.SHM_DIR, ":").contains("names no directory"));
        final RdmaException none = assertThrows(RdmaException.class,
            () -> read(Map.of(), Map.of()).toBuilder().shmDirectories(List.of()));
        assertEquals(Errno.EINVAL, none.errno());
    }

    @Test
    void statFilesAreOnOrOffInTheDirectoryGiven()
    {
        assertFalse(property(SoftSettings.STAT, "false").stat());
        assertFalse(variable(SoftSettings.STAT, "FALSE").stat());
        assertTrue(property(SoftSettings.STAT, "true").stat());
        final String message = refused(SoftSettings.STAT, "no");
        assertTrue(message.contains("'true'") && message.contains("'false'"), message);
        assertEquals(Path.of("/srv/stat"), property(SoftSettings.STAT_DIR, "/srv/stat").statDirectory());
    }

    @Test
    void progressModesAndTheWaitsSpinAreReadAndCheckedAsTheOthers()
    {
        final SoftSettings defaults = read(Map.of(), Map.of());
        assertTrue(defaults.polling() && defaults.waiting(), "polling by default, whose waiters receive too");
        assertEquals(20_000, defaults.waitSpinNs(), "hadroNIO's 20 us by default");
        final SoftSettings waiting = property(SoftSettings.PROGRESS, "waiting");
        assertFalse(waiting.polling());
        assertTrue(waiting.waiting());
        assertEquals("waiting", waiting.progressName());
        final SoftSettings thread = variable(SoftSettings.PROGRESS, "thread");
        assertFalse(thread.polling() || thread.waiting());
        assertEquals(35_000, property(SoftSettings.WAIT_SPIN, "35").waitSpinNs());
        refused(SoftSettings.WAIT_SPIN, "-1");
        refused(SoftSettings.WAIT_SPIN, "soon");
        refused(SoftSettings.PROGRESS, "spin");
    }

    @Test
    void keepaliveIsOffByDefaultAndReadInMilliseconds()
    {
        assertEquals(0, read(Map.of(), Map.of()).keepaliveIdleNs(), "off by default, as a socket's");
        assertEquals(0, property(SoftSettings.KEEPALIVE, "off").keepaliveIdleNs());
        assertEquals(30_000_000_000L, variable(SoftSettings.KEEPALIVE, " 30000 ").keepaliveIdleNs());
        assertTrue(property(SoftSettings.KEEPALIVE, "250").toString().contains("rdma4j.soft.keepalive=250"));
        refused(SoftSettings.KEEPALIVE, "0");
        refused(SoftSettings.KEEPALIVE, "86400001");
        refused(SoftSettings.KEEPALIVE, "2h");
    }

    @Test
    void everySettingIsDeclaredOnceWithItsOwnNames()
    {
        final Set<String> names = new HashSet<>();
        for (final Setting setting : SoftSettings.DECLARED)
        {
            assertTrue(names.add(setting.property()) && names.add(setting.environment()), setting.toString());
            assertTrue(setting.property().startsWith("rdma4j.") && setting.environment().startsWith("RDMA4J_"),
                setting.toString());
        }
        assertEquals(11, SoftSettings.DECLARED.size());
    }

    @Test
    void aBuilderChangesWhatItIsToldAndKeepsTheRest()
    {
        final SoftSettings read = property(SoftSettings.SOCKET, "nio");
        final SoftSettings changed = read.toBuilder().polling(false).loss(0.5).lossSeed(3)
            .addresses(List.of(InetAddress.ofLiteral("127.0.0.9"))).stat(false).statDirectory(Path.of("/s"))
            .sameHost(false).shmDirectory(Path.of("/i")).build();
        assertEquals(SocketChoice.NIO, changed.socket());
        assertFalse(changed.polling());
        assertEquals(OptionalDouble.of(0.5), changed.loss());
        assertEquals(OptionalLong.of(3), changed.lossSeed());
        assertEquals(OptionalDouble.empty(), changed.toBuilder().noLoss().build().loss());
        assertEquals(read, read.toBuilder().build());
        assertFalse(read.equals(changed));
        final RdmaException ex = assertThrows(RdmaException.class, () -> read.toBuilder().loss(1.0));
        assertEquals(Errno.EINVAL, ex.errno());
        assertThrows(UnsupportedOperationException.class,
            () -> changed.addresses().add(InetAddress.ofLiteral("127.0.0.1")), "immutable");
    }

    @Test
    void saysEverySettingItHolds()
    {
        final String text = read(Map.of(), Map.of()).toString();
        for (final Setting setting : SoftSettings.DECLARED)
        {
            assertTrue(text.contains(setting.property() + "="), text);
        }
    }
}
