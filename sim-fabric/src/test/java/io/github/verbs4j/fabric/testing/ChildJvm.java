package io.github.verbs4j.fabric.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM on the current test classpath, for multi-process tests. It runs {@code mainClass}
 * with the running JVM's {@code java} binary, {@code --enable-native-access=ALL-UNNAMED}, {@code --add-exports
 * java.base/jdk.internal.misc=ALL-UNNAMED} (Agrona, for {@code verbs.fabric.shm}), the
 * given {@code -D} properties and arguments; stdout and stderr go to {@code
 * target/child-jvms/<name>.log}. {@link #close()} kills it and all its descendants (SIGKILL).
 *
 * <pre>{@code
 * try (ChildJvm c = ChildJvm.builder(MyMain.class).name("rank1")
 *     .property("verbs.fabric", "netty").property("verbs.rank", "1").start()) {
 *   assertEquals(0, c.waitFor(Duration.ofSeconds(60)));
 * }
 * }</pre>
 */
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final String name;

  private ChildJvm(Process process, Path log, String name) {
    this.process = process;
    this.log = log;
    this.name = name;
  }

  /**
   * @param mainClass the class whose {@code main} the child runs
   * @return a builder
   */
  public static Builder builder(Class<?> mainClass) {
    return new Builder(mainClass.getName());
  }

  /** Builds a {@link ChildJvm}. */
  public static final class Builder {
    private final String mainClass;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final List<String> jvmArgs = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private String name;
    private Path logDir = Path.of("target", "child-jvms");
    private boolean fastStartup = true;

    private Builder(String mainClass) {
      this.mainClass = mainClass;
      this.name = mainClass.substring(mainClass.lastIndexOf('.') + 1);
    }

    /**
     * @param n the name (log file name)
     * @return this
     */
    public Builder name(String n) {
      this.name = n;
      return this;
    }

    /**
     * @param key a system property
     * @param value its value
     * @return this
     */
    public Builder property(String key, String value) {
      properties.put(key, value);
      return this;
    }

    /**
     * @param props system properties
     * @return this
     */
    public Builder properties(Map<String, String> props) {
      properties.putAll(props);
      return this;
    }

    /**
     * @param key an environment variable of the child
     * @param value its value
     * @return this
     */
    public Builder env(String key, String value) {
      env.put(key, value);
      return this;
    }

    /**
     * @param arg an extra JVM flag (e.g. {@code -Xmx256m})
     * @return this
     */
    public Builder jvmArg(String arg) {
      jvmArgs.add(arg);
      return this;
    }

    /**
     * @param a program arguments
     * @return this
     */
    public Builder args(String... a) {
      args.addAll(List.of(a));
      return this;
    }

    /**
     * @param fast true (default) adds {@code -XX:+UseSerialGC -XX:TieredStopAtLevel=1} for quick
     *     start-up on small CI machines; false for benchmarks
     * @return this
     */
    public Builder fastStartup(boolean fast) {
      this.fastStartup = fast;
      return this;
    }

    /**
     * @param dir where logs go (default {@code target/child-jvms})
     * @return this
     */
    public Builder logDir(Path dir) {
      this.logDir = dir;
      return this;
    }

    /**
     * Starts the child.
     *
     * @return the running child
     * @throws UncheckedIOException if it cannot be started
     */
    public ChildJvm start() {
      String java = ProcessHandle.current().info().command().orElse(
          Path.of(System.getProperty("java.home"), "bin", "java").toString());
      List<String> cmd = new ArrayList<>();
      cmd.add(java);
      cmd.add("--enable-native-access=ALL-UNNAMED");
      cmd.add("--add-exports");
      cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED"); // Agrona's Unsafe: the shared-memory rings
      if (fastStartup) {
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
      }
      cmd.addAll(jvmArgs);
      properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
      cmd.add("-cp");
      cmd.add(System.getProperty("java.class.path"));
      cmd.add(mainClass);
      cmd.addAll(args);
      try {
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new ChildJvm(pb.start(), log, name);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start child JVM " + name + ": " + cmd, e);
      }
    }
  }

  /** @return the process */
  public Process process() {
    return process;
  }

  /** @return its pid */
  public long pid() {
    return process.pid();
  }

  /** @return the log file */
  public Path log() {
    return log;
  }

  /** @return the log's content so far (for assertion messages) */
  public String output() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "<cannot read " + log + ": " + e + ">";
    }
  }

  /** @return true while running */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for the child to exit.
   *
   * @param timeout how long
   * @return its exit code
   * @throws IllegalStateException with its output if it is still running after {@code timeout}
   */
  public int waitFor(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("child " + name + " still running after " + timeout + "; output:\n" + output());
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for child " + name, e);
    }
  }

  /** Kills the child with SIGKILL (as {@code kill -9}), without waiting. */
  public void kill9() {
    process.destroyForcibly();
    process.onExit().thenRun(() -> removeFiles(process.pid()));
  }

  /** A killed process cannot delete its socket and secret files: its parent does, as a launcher would. */
  private static void removeFiles(long pid) {
    io.github.verbs4j.fabric.auth.PrivateDir.removeFilesOf(io.github.verbs4j.fabric.auth.PrivateDir.of(""), pid);
  }

  /** Kills the child and its descendants (SIGKILL) and waits up to 10 s for them to go. Idempotent. */
  @Override
  public void close() {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (ProcessHandle h : all) {
      h.onExit().completeOnTimeout(h, 5, TimeUnit.SECONDS).join();
      removeFiles(h.pid());
    }
    removeFiles(process.pid());
  }

  @Override
  public String toString() {
    return "ChildJvm{" + name + ", pid=" + process.pid() + ", log=" + log + "}";
  }
}
