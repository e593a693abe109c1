package io.github.verbs4j.examples.gmpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.launcher.Launcher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code verbs4j run -n 2 gmpi-pingpong} and {@code run -n 4 gmpi-himeno}: GMPI between JVM
 * processes on the netty fabric, on both providers; every byte is checked by the program, the
 * modelled figures are those of the in-JVM tests.
 */
@Tag("multiprocess")
class GmpiNettyIT {
  @TempDir
  Path dir;

  private record Result(int exit, String out) {}

  private Result verbs4j(String... args) throws IOException, InterruptedException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Djava.awt.headless=true",
        "-cp", System.getProperty("java.class.path"), Launcher.MAIN_CLASS));
    cmd.addAll(List.of(args));
    Path log = Files.createTempFile(dir, "verbs4j", ".log");
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
        .start();
    try {
      assertTrue(p.waitFor(300, TimeUnit.SECONDS), "verbs4j " + String.join(" ", args) + " did not finish");
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @ValueSource(strings = {"ib", "tca"})
  void pingPongUpToFourMebibytesBetweenTwoProcesses(String provider) throws Exception {
    Result r = verbs4j("run", "-n", "2", "--timeout", "240s", "--provider", provider, "gmpi-pingpong", "--sizes",
        "4,4194304", "--iters", "3", "--profile", "paper");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("[0] GMPI ping-pong vs host-driven, profile paper, " + provider + ", fabric netty"),
        r.out());
    assertTrue(r.out().contains("[0]         4        17.44        19.71     0.885    0.70   +18 pt"), r.out());
    assertTrue(r.out().contains("[0]   4194304      4783.69      4785.96     1.000       -        -"), r.out());
  }

  @ParameterizedTest
  @ValueSource(strings = {"ib", "tca"})
  void himenoOnFourProcessesGivesTheSerialResidualInBothVariants(String provider) throws Exception {
    Result r = verbs4j("run", "-n", "4", "--timeout", "240s", "--provider", provider, "gmpi-himeno", "--size", "tiny",
        "-n", "3", "--profile", "h200", "--check");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("identical in both"), r.out());
    assertTrue(r.out().contains("[0]  Serial reference          : ") && r.out().contains("(identical)"), r.out());
  }
}
