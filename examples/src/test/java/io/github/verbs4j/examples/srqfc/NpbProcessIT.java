package io.github.verbs4j.examples.srqfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.launcher.Launcher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code verbs4j run -n 4 srq-fc npb}: four JVMs on the netty fabric, each replaying its rank's SP
 * trace with its own context, rank 0 printing the table (~7 s of wall time alone).
 */
@Tag("multiprocess")
class NpbProcessIT {
  @Test
  void fourProcessesReplaySpWithRnrAndRankZeroPrintsTheTable() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p = new ProcessBuilder(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED",
        "-Djava.awt.headless=true", "-cp", System.getProperty("java.class.path"), Launcher.MAIN_CLASS, "run", "-n", "4",
        "--timeout", "240s", "srq-fc", "npb", "--bench", "sp", "--procs", "4", "--steps", "1", "--sizes", "1",
        "--unlimited", "64", "--flow", "rnr")).redirectErrorStream(true).start();
    String out;
    try {
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(300, TimeUnit.SECONDS), out);
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("[0] # NPB sp class A, 4 processes, 1 of 400 time steps replayed"), out);
    assertTrue(out.contains("one process a rank, fabric netty, modelled time"), out);
    assertTrue(out.contains(", 180 SENDs; events: 0 stops, 0 RNR NAKs, 0 limit events;"), out);
    // S = 1 with rnr: the SRQ runs dry, senders are NAKed and the refill thread takes limit events
    assertTrue(out.matches("(?s).*\\[0]      1       32 +-?\\d+\\.\\d{4} +[1-9]\\d* +[1-9]\\d* +NaN +0 .*"), out);
    assertTrue(out.lines().noneMatch(l -> l.startsWith("[1] ") || l.startsWith("[2] ") || l.startsWith("[3] ")), out);
  }
}
