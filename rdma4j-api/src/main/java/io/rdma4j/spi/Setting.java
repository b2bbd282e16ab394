package io.rdma4j.spi;

import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * One setting of rdma4j, declared once beside the code that reads it: the system property, the environment
 * variable read when the property is not set, the default, the values accepted, and what it does and costs. The
 * README's table of settings is {@link #table} of {@code Verbs.settings()}, so the table cannot say something the
 * code does not.
 *
 * @param property     the system property, which wins over the variable.
 * @param environment  the environment variable, or null where there is none.
 * @param defaultValue what applies when neither is set, as Markdown.
 * @param accepted     the values accepted, as Markdown.
 * @param effect       what the setting does and what it costs, a sentence or two of Markdown.
 */
public record Setting(String property, String environment, String defaultValue, String accepted, String effect)
{
    /**
     * @param property     the system property, which wins over the variable.
     * @param environment  the environment variable, or null where there is none.
     * @param defaultValue what applies when neither is set, as Markdown.
     * @param accepted     the values accepted, as Markdown.
     * @param effect       what the setting does and what it costs, a sentence or two of Markdown.
     */
    public Setting
    {
        Objects.requireNonNull(property, "property");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(accepted, "accepted");
        Objects.requireNonNull(effect, "effect");
    }

    /**
     * @return the value this process is given: {@link #read(UnaryOperator, UnaryOperator)} of the system
     *     properties and the environment.
     */
    public String read()
    {
        return read(System::getProperty, System::getenv);
    }

    /**
     * The value given, the property's over the variable's: a blank one counts as not given, so that
     * {@code -Dx=} or {@code X=} in a script leaves the default.
     *
     * @param properties  looks a property up (null when unset).
     * @param environment looks a variable up (null when unset).
     * @return the value trimmed, or null when neither gives one.
     */
    public String read(final UnaryOperator<String> properties, final UnaryOperator<String> environment)
    {
        final String fromProperty = properties.apply(property);
        if (fromProperty != null && !fromProperty.isBlank())
        {
            return fromProperty.trim();
        }
        final String fromEnvironment = this.environment == null ? null : environment.apply(this.environment);
        return fromEnvironment == null || fromEnvironment.isBlank() ? null : fromEnvironment.trim();
    }

    /**
     * @param settings the settings, in the order to list them.
     * @return a Markdown table of them, one row each, ending with a newline.
     */
    public static String table(final List<Setting> settings)
    {
        final StringBuilder table = new StringBuilder()
            .append("| Property | Variable | Default | Values | What it does and costs |\n")
            .append("|---|---|---|---|---|\n");
        for (final Setting setting : settings)
        {
            table.append("| `").append(cell(setting.property)).append("` | ")
                .append(setting.environment == null ? "none" : "`" + cell(setting.environment) + "`").append(" | ")
                .append(cell(setting.defaultValue)).append(" | ")
                .append(cell(setting.accepted)).append(" | ")
                .append(cell(setting.effect)).append(" |\n");
        }
        return table.toString();
    }

    /** A pipe would end the cell, a newline the row. */
    private static String cell(final String text)
    {
        return text.replace("|", "\\|").replace('\n', ' ');
    }
}
