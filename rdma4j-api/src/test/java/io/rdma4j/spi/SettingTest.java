package io.rdma4j.spi;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A setting's value comes from its property, else its variable, trimmed, a blank one counting as none; its row in
 * the table keeps a pipe in its text from ending the cell.
 */
class SettingTest
{
    private static final Setting MODE = new Setting("x.mode", "X_MODE", "`a`", "`a`, `b`", "Picks a mode.");

    private static String read(final Setting setting, final Map<String, String> properties,
        final Map<String, String> environment)
    {
        return setting.read(properties::get, environment::get);
    }

    @Test
    void thePropertyWinsOverTheVariable()
    {
        assertEquals("b", read(MODE, Map.of("x.mode", " b "), Map.of("X_MODE", "a")));
        assertEquals("a", read(MODE, Map.of(), Map.of("X_MODE", "a\n")));
        assertEquals("a", read(MODE, Map.of("x.mode", " "), Map.of("X_MODE", "a")), "a blank property is none");
        assertNull(read(MODE, Map.of(), Map.of("X_MODE", "")));
    }

    @Test
    void aSettingWithoutAVariableReadsTheProperty()
    {
        final Setting library = new Setting("x.lib", null, "`libx.so`", "a name", "Loads it.");
        assertEquals("liby.so", read(library, Map.of("x.lib", "liby.so"), Map.of()));
        assertNull(read(library, Map.of(), Map.of()));
    }

    @Test
    void rendersOneRowEach()
    {
        final Setting library = new Setting("x.lib", null, "`libx.so`", "a name", "Loads it | or not.");
        assertEquals("""
            | Property | Variable | Default | Values | What it does and costs |
            |---|---|---|---|---|
            | `x.mode` | `X_MODE` | `a` | `a`, `b` | Picks a mode. |
            | `x.lib` | none | `libx.so` | a name | Loads it \\| or not. |
            """, Setting.table(List.of(MODE, library)));
    }
}
