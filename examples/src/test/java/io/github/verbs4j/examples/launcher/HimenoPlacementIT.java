package io.github.verbs4j.examples.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verbs4j run -n 4 himeno --placement ... --memory device}: four JVMs on the netty fabric
 * agree on the placement's topology (each rank sets it from the same command line), compute the
 * grid positions the node list gives them, and keep the halos in tca's device memory.
 */
@Tag("multiprocess")
class HimenoPlacementIT {
  @TempDir
  Path dir;

  private VerbsCommandProcess.Result verbs4j(String... args) throws IOException, InterruptedException {
    return VerbsCommandProcess.run(dir, Duration.ofSeconds(150), args);
  }

  @Test
  void fourProcessesRunThePlacementWithDeviceHalosAndMatchTheSerialResidual() throws Exception {
    VerbsCommandProcess.Result r = verbs4j("run", "-n", "4", "--timeout", "140s", "--provider", "tca", "-Dverbs.time=modelled", "himeno",
        "--size", "small", "--iterations", "3", "--placement", "peach2:rings=1,nodesPerRing=4/1,2,4,3",
        "--memory", "device", "--check");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("topology peach2:rings=1,nodesPerRing=4, halos in device memory, grid position -> "
        + "rank 0,1,3,2"), r.out());
    assertTrue(r.out().contains("(identical)"), r.out());
    assertTrue(r.out().contains("  modelled           :"), r.out());
  }

  @Test
  void deviceHalosOnIbAreRefusedNamingTheOptionAndTheProvider() throws Exception {
    VerbsCommandProcess.Result r = verbs4j("run", "-n", "2", "--timeout", "140s", "--provider", "ib", "himeno", "--size", "tiny",
        "--iterations", "2", "--memory", "device");
    assertNotEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("--memory=device: provider ib has no device memory"), r.out());
  }
}
