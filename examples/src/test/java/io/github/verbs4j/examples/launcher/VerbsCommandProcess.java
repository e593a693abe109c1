package io.github.verbs4j.examples.launcher;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the {@code verbs4j} command as its own JVM, as the script does, for the launcher's ITs. */
public final class VerbsCommandProcess {
  /** What a run left: its exit code and everything it printed. */
  public record Result(int exit, String out) {}

  private VerbsCommandProcess() {}

  /**
   * @param dir the working directory (its log goes there too)
   * @param limit how long the run may take before the test fails (its processes are killed)
   * @param args the command's arguments
   * @return the result
   */
  public static Result run(Path dir, Duration limit, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Launcher.javaExecutable(), "--enable-native-access=ALL-UNNAMED",
        "-Djava.awt.headless=true", "-cp", System.getProperty("java.class.path"), Launcher.MAIN_CLASS));
    cmd.addAll(List.of(args));
    Path log = Files.createTempFile(dir, "verbs4j", ".log");
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
        .start();
    try {
      assertTrue(p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS), "verbs4j " + String.join(" ", args)
          + " did not finish");
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }
}
