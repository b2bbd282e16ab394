package io.rdma4j.tools.perf;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The machine line from sample {@code /proc/cpuinfo} and {@code /proc/loadavg} texts, never the live machine's.
 */
class MachineLineTest
{
    /** Two processors of an x86 host, as the kernel prints them (tab before the colon, a blank line between). */
    private static final String X86 = """
        processor\t: 0
        vendor_id\t: GenuineIntel
        model name\t: Intel(R) Xeon(R)  CPU E5-2680 v4 @ 2.40GHz
        cpu cores\t: 1

        processor\t: 1
        vendor_id\t: GenuineIntel
        model name\t: Intel(R) Xeon(R)  CPU E5-2680 v4 @ 2.40GHz
        cpu cores\t: 1
        """;

    /** An aarch64 kernel names no model. */
    private static final String ARM = """
        processor\t: 0
        BogoMIPS\t: 50.00
        CPU part\t: 0xd0c

        processor\t: 1
        BogoMIPS\t: 50.00
        CPU part\t: 0xd0c

        processor\t: 2
        BogoMIPS\t: 50.00
        CPU part\t: 0xd0c
        """;

    @Test
    void namesTheModelTheOnlineProcessorsAndTheThreeLoadAverages()
    {
        final MachineLine line = MachineLine.parse(X86, "18.52 20.07 19.33 7/1234 56789\n", "amd64", 1,
            "Linux 6.8.0-49-generic", "25.0.1+8-LTS");
        assertEquals(new MachineLine("Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", 2, 1, "Linux 6.8.0-49-generic",
            "25.0.1+8-LTS", "18.52 20.07 19.33"), line);
        assertEquals("# machine: cpu Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz, 2 online (1 for this JVM), "
            + "kernel Linux 6.8.0-49-generic, JVM 25.0.1+8-LTS, load 18.52 20.07 19.33", line.text());
    }

    @Test
    void aCpuinfoWithoutAModelNameGivesTheArchitecture()
    {
        final MachineLine line = MachineLine.parse(ARM, "0.10 0.20 0.30 1/99 42", "aarch64", 3, "Linux 6.1", "25");
        assertEquals("aarch64", line.cpu());
        assertEquals(3, line.online());
    }

    @Test
    void whatCouldNotBeReadIsShownAsUnknown()
    {
        final MachineLine line = MachineLine.parse("", "", "amd64", 8, "Mac OS X 15.1", "25");
        assertEquals("# machine: cpu amd64, ? online (8 for this JVM), kernel Mac OS X 15.1, JVM 25, load ?",
            line.text());
    }
}
