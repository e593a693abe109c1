package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.coord.KvsPlacement;
import io.github.verbs4j.fabric.testing.ChildJvm;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code verbs.fabric.kvs=hashed} across JVM processes: four ranks ({@link KvsChildMain}) put and
 * get through a coordinator in this JVM, which ends up holding no pair while each rank holds exactly
 * the keys that hash to it (theirs and the fabric's own, one per node from {@code NodeShm}).
 */
class HashedKvsIT {
  private static final int SIZE = 4;
  private final List<ChildJvm> children = new ArrayList<>();

  @AfterEach
  void cleanup() {
    children.forEach(ChildJvm::close);
  }

  @Test
  void eachProcessHoldsExactlyTheKeysThatHashToItAndTheCoordinatorNone() throws Exception {
    try (EmbeddedCoordinator c = EmbeddedCoordinator.start(Duration.ofSeconds(10))) {
      for (int r = 0; r < SIZE; r++) {
        children.add(ChildJvm.builder(KvsChildMain.class).name("kvs-hashed-rank" + r).properties(c.settings(r, SIZE))
            .property("verbs.fabric.kvs", "hashed").property("verbs.fabric.join-timeout-ms", "60000").start());
      }
      for (int r = 0; r < SIZE; r++) {
        ChildJvm child = children.get(r);
        assertEquals(0, child.waitFor(Duration.ofSeconds(180)), child.output());
        long pairs = 0;
        long bytes = 0;
        for (int p = 0; p < SIZE; p++) {
          for (int i = 0; i < KvsChildMain.PER_RANK; i++) {
            String k = KvsChildMain.key(p, i);
            if (KvsPlacement.holder(k, SIZE) == r) {
              pairs++;
              bytes += KvsPlacement.entryBytes(k, KvsChildMain.value(p, i).length);
            }
          }
        }
        if (KvsPlacement.holder("late", SIZE) == r) {
          pairs++;
          bytes += KvsPlacement.entryBytes("late", "after the get".length());
        }
        for (int id = 1; id <= SIZE; id++) { // each node publishes its shared-memory ring, "off" here (NodeShm)
          String k = "verbs4j.fabric.shm/" + id;
          if (KvsPlacement.holder(k, SIZE) == r) {
            pairs++;
            bytes += KvsPlacement.entryBytes(k, "off".length());
          }
        }
        String out = child.output();
        assertTrue(out.contains("HELD " + pairs + " " + bytes + "\n"), "rank " + r + " should hold " + pairs + " pairs, "
            + bytes + " bytes:\n" + out);
        assertTrue(out.contains("COORDINATOR 0 0\n"), "asked over the wire, the coordinator holds nothing:\n" + out);
        String k = KvsChildMain.key(r, 0);
        assertTrue(out.contains("WRITE-ONCE kvPut key='" + k + "': key '" + k + "' already holds another value ("
            + KvsChildMain.value(r, 0).length + " bytes); keys are write-once"), out);
      }
      assertEquals(KvsPlacement.HASHED, c.coordinator().kvsPlacement());
      assertEquals(new JobChannel.CoordinatorKvs(0, 0, 0), c.coordinator().kvs());
    }
  }
}
