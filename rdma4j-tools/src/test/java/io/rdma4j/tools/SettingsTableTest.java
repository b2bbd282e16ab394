package io.rdma4j.tools;

import io.rdma4j.rdmacore.NativeLibrary;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.spi.Setting;
import io.rdma4j.verbs.Verbs;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's table of settings is the one the declarations render ({@code Setting.table(Verbs.settings())}), so
 * a setting added, renamed or redescribed in code and not in the README (or the other way round) fails here, with
 * the table to paste. This module's tests have both providers on the class path, so every setting is listed.
 */
class SettingsTableTest
{
    static final String BEGIN = "<!-- settings table: rendered from Verbs.settings(), SettingsTableTest checks it -->";
    static final String END = "<!-- end of settings table -->";

    @Test
    void theReadmesTableIsTheOneTheDeclarationsRender() throws IOException
    {
        final String readme = Files.readString(readme());
        final int begin = readme.indexOf(BEGIN);
        final int end = readme.indexOf(END);
        final String rendered = Setting.table(Verbs.settings());
        assertTrue(begin >= 0 && end > begin, "README.md has no table between '" + BEGIN + "' and '" + END +
            "'; it should be:\n" + rendered);
        assertEquals(rendered, readme.substring(begin + BEGIN.length() + 1, end),
            "README.md's settings table differs from the declarations; it should be:\n" + rendered);
    }

    @Test
    void everyEngineDeclaresItsSettings()
    {
        final List<Setting> expected = new ArrayList<>(List.of(Verbs.PROVIDER, NativeLibrary.IBVERBS,
            NativeLibrary.RDMACM));
        expected.addAll(SoftSettings.DECLARED);
        assertEquals(expected, Verbs.settings());
    }

    /** The repository's README, beside this module's directory, where surefire runs. */
    private static Path readme()
    {
        return Path.of("").toAbsolutePath().getParent().resolve("README.md");
    }
}
