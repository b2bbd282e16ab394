package io.rdma4j.soft.verbs;

import io.rdma4j.soft.Fabric;
import io.rdma4j.soft.ScriptedRandom;
import io.rdma4j.soft.engine.QpTable;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The engine's QP table holding real QPs: a number already taken is drawn again, and lookups find every QP
 * that is left after removals (the random numbering itself is {@code KeysAndQpnsTest}'s).
 */
class QpTableTest
{
    @Test
    void shouldDrawAgainWhenTheNumberIsTakenAndFindEveryQpAfterRemovals()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open();
            final SoftEngine engine = SoftEngine.of(context);
            final SoftPd pd = (SoftPd)context.allocPd();
            final SoftCq cq = (SoftCq)context.createCq(16, null, 0);
            final IntFunction<SoftQp> maker = qpn -> new SoftQp(engine, pd, qpn, QpType.UD, cq, cq, null,
                QpCap.of(1, 1), false);

            final QpTable table = new QpTable(10_000, ScriptedRandom.of(5, 5, 7));
            assertEquals(5, table.add(maker).qpNum());
            assertEquals(7, table.add(maker).qpNum());

            final QpTable big = new QpTable(10_000);
            final List<SoftQp> all = new ArrayList<>();
            for (int i = 0; i < 1000; i++)
            {
                all.add(big.add(maker));
            }
            for (int i = 0; i < all.size(); i += 2)
            {
                big.remove(all.get(i));
            }
            for (int i = 0; i < all.size(); i++)
            {
                final SoftQp qp = all.get(i);
                if (i % 2 == 0)
                {
                    assertNull(big.get(qp.qpNum()));
                }
                else
                {
                    assertSame(qp, big.get(qp.qpNum()));
                }
            }
            assertEquals(500, big.count());
            assertNull(big.get(0));
            assertNull(big.get(1));
            assertNull(big.get(0xFFFFFF));
        }
    }
}
