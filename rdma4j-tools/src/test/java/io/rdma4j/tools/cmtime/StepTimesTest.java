package io.rdma4j.tools.cmtime;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * cmtime's table: the whole step's span gives avg/conn and total(us), the connections' own spans give us/conn,
 * sum, max and min; a step nobody timed prints zeros, and the full connect's sum is not reported.
 */
class StepTimesTest
{
    @Test
    void shouldPrintCmtimesColumnsFromTheSpans()
    {
        final StepTimes times = new StepTimes(2);
        times.total(Step.RESOLVE_ADDR, 1_000, 1_300);
        times.span(0, Step.RESOLVE_ADDR, 1_000, 1_100);
        times.span(1, Step.RESOLVE_ADDR, 1_010, 1_290);
        times.total(Step.FULL_CONNECT, 500, 5_500);
        times.span(0, Step.FULL_CONNECT, 500, 4_500);
        times.span(1, Step.FULL_CONNECT, 510, 5_490);
        final StringWriter text = new StringWriter();
        times.print(new PrintWriter(text), true);
        final List<String> lines = text.toString().lines().toList();

        assertEquals("qp_conn                 2", lines.get(0));
        assertEquals("threads                 1", lines.get(1));
        assertEquals("step             avg/conn  total(us)    us/conn    sum(us)    max(us)    min(us)", lines.get(2));
        assertEquals(3 + Step.values().length, lines.size());
        assertEquals("full connect         2500       5000          0          0       4980       4000", lines.get(3));
        assertEquals("create id               0          0          0          0          0          0", lines.get(4));
        assertEquals("resolve addr          150        300        190        380        280        100", lines.get(6));
        assertEquals("destroy qp              0          0          0          0          0          0",
            lines.getLast());
    }
}
