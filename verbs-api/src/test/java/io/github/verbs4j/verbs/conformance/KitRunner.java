package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.opentest4j.TestAbortedException;

/**
 * Runs the ranks of a scenario: as threads of this JVM, or rank 0 here and rank 1 in a child JVM.
 * The child's class path is this JVM's {@code java.class.path}, preceded by the system property
 * {@code verbs4j.kit.childExtraClassPath} if set; its output goes to {@code target/kit-peers/} (or
 * the directory in {@code verbs4j.kit.peerLogDir}).
 * Collects the first real failure (a {@link KitAbortedException} of the surviving rank is only a
 * consequence), bounds everything by the environment's timeout, and always closes the contexts it
 * opened.
 */
final class KitRunner {
  /** Child exit codes, also used by {@link KitPeerMain}. */
  static final int EXIT_OK = 0;
  static final int EXIT_FAILED = 1;
  static final int EXIT_USAGE = 2;
  static final int EXIT_WATCHDOG = 3;
  static final int EXIT_PARENT_GONE = 4;
  static final int EXIT_SKIPPED = 5;

  private static final Duration GRACE = Duration.ofSeconds(10);

  /** A scenario body for one rank. */
  @FunctionalInterface
  interface Body {
    void run(Peer p) throws Throwable;
  }

  private KitRunner() {}

  /**
   * Opens this rank's context, runs the body, passes the end-of-job barrier, closes the context.
   * Failures of close are suppressed into the body's failure, or thrown if the body passed.
   */
  static void runRank(KitEnvironment env, String jobId, int rank, int size, Body body, AbortSignal abort)
      throws Throwable {
    Throwable failure = null;
    Context ctx = Verbs.open(env.config(rank, size, jobId));
    try {
      Peer p = new Peer(env, jobId, rank, size, ctx, abort);
      body.run(p);
      p.endOfJob();
    } catch (Throwable t) {
      failure = t;
    }
    try {
      ctx.close();
    } catch (Throwable t) {
      if (failure != null) {
        failure.addSuppressed(t);
      } else {
        failure = new AssertionError("rank " + rank + ": closing the context failed (the scenario left objects"
            + " open?): " + t.getMessage(), t);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Invokes {@code public void name(Peer)} of {@code test}, unwrapping reflection. */
  static Body method(Object test, String name) {
    Method m;
    try {
      m = test.getClass().getMethod(name, Peer.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(test.getClass().getName() + " has no public method " + name + "(Peer)", e);
    }
    m.setAccessible(true); // the concrete test class is often package-private
    return p -> {
      try {
        m.invoke(test, p);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    };
  }

  private static final class RankThread extends Thread {
    private final int rank;
    private volatile Throwable failure;
    private volatile long failedAt;

    RankThread(String label, int rank, Runnable r) {
      super(r, "kit-" + label + "-rank" + rank);
      this.rank = rank;
      setDaemon(true);
    }
  }

  private static RankThread start(KitEnvironment env, String jobId, int rank, int size, Body body,
      AbortSignal abort, String label) {
    RankThread[] self = new RankThread[1];
    self[0] = new RankThread(label, rank, () -> {
      try {
        runRank(env, jobId, rank, size, body, abort);
      } catch (Throwable t) {
        self[0].failedAt = System.nanoTime();
        self[0].failure = t;
        abort.abort(t instanceof TestAbortedException ? "rank " + rank + " skipped the scenario"
            : "rank " + rank + " failed: " + t);
      }
    });
    self[0].start();
    return self[0];
  }

  /** All ranks as threads of this JVM. */
  static void runThreads(KitEnvironment env, String jobId, int size, Body body, String label) {
    AbortSignal abort = new AbortSignal();
    List<RankThread> threads = new ArrayList<>();
    for (int r = 0; r < size; r++) {
      threads.add(start(env, jobId, r, size, body, abort, label));
    }
    long deadline = System.nanoTime() + env.timeout().toNanos();
    long graceDeadline = Long.MAX_VALUE;
    List<String> stuck = new ArrayList<>();
    for (RankThread t : threads) {
      while (t.isAlive()) {
        long now = System.nanoTime();
        if (abort.isAborted() && graceDeadline == Long.MAX_VALUE) {
          graceDeadline = now + GRACE.toNanos();
        }
        if (now - deadline > 0 || now - graceDeadline > 0) {
          break;
        }
        join(t, 50);
      }
    }
    for (RankThread t : threads) {
      if (t.isAlive()) {
        stuck.add("rank " + t.rank + " still running after " + env.timeout() + " at:\n" + stack(t));
        t.interrupt();
      }
    }
    for (RankThread t : threads) {
      join(t, 2000);
    }
    List<Throwable> failures = new ArrayList<>();
    threads.stream().filter(t -> t.failure != null).sorted((a, b) -> Long.compare(a.failedAt, b.failedAt))
        .forEach(t -> failures.add(t.failure));
    report(failures, stuck, label, env);
  }

  private static void join(Thread t, long millis) {
    try {
      t.join(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for " + t.getName(), e);
    }
  }

  private static String stack(Thread t) {
    return Arrays.stream(t.getStackTrace()).limit(40).map(e -> "    at " + e).collect(Collectors.joining("\n"));
  }

  /** Throws the first real failure (others suppressed), or the skip, or a timeout. */
  private static void report(List<Throwable> failures, List<String> stuck, String label, KitEnvironment env) {
    Throwable primary = null;
    for (Throwable f : failures) {
      if (!(f instanceof KitAbortedException) && !(f instanceof TestAbortedException)) {
        primary = f;
        break;
      }
    }
    if (primary == null && !stuck.isEmpty()) {
      primary = new AssertionError(label + " on " + env.name() + " timed out:\n" + String.join("\n", stuck));
    }
    if (primary == null) {
      for (Throwable f : failures) {
        if (f instanceof TestAbortedException) {
          throw (TestAbortedException) f;
        }
      }
      if (!failures.isEmpty()) {
        primary = failures.get(0);
      }
    }
    if (primary == null) {
      return;
    }
    for (Throwable f : failures) {
      if (f != primary) {
        primary.addSuppressed(f);
      }
    }
    if (primary instanceof Error) {
      throw (Error) primary;
    }
    if (primary instanceof RuntimeException) {
      throw (RuntimeException) primary;
    }
    throw new AssertionError(label + " failed", primary);
  }

  /** Rank 0 in a thread of this JVM, rank 1 in a child JVM running {@link KitPeerMain}. */
  static void runWithChild(AbstractConformance test, KitEnvironment env, String jobId, String bodyName, String label) {
    Body body = method(test, bodyName);
    AbortSignal abort = new AbortSignal();
    Path log = logFile(test.getClass(), bodyName, jobId);
    Process child = launch(test.getClass(), env, jobId, bodyName, log);
    RankThread rank0 = start(env, jobId, 0, 2, body, abort, label);
    long deadline = System.nanoTime() + env.timeout().toNanos();
    long graceDeadline = Long.MAX_VALUE;
    Integer exit = null;
    long childObservedAt = Long.MAX_VALUE;
    try {
      while (true) {
        if (exit == null && !child.isAlive()) {
          exit = child.exitValue();
          childObservedAt = System.nanoTime();
          if (exit == EXIT_SKIPPED) {
            abort.abort("rank 1 skipped the scenario");
          } else if (exit != EXIT_OK) {
            abort.abort("rank 1 (child JVM) exited with code " + exit);
          }
        }
        if (!rank0.isAlive() && rank0.failure != null && exit == null) {
          break; // rank 0 failed: the child cannot finish meaningfully
        }
        if (!rank0.isAlive() && exit != null) {
          break;
        }
        long now = System.nanoTime();
        if (abort.isAborted() && graceDeadline == Long.MAX_VALUE) {
          graceDeadline = now + GRACE.toNanos();
        }
        if (now - deadline > 0 || now - graceDeadline > 0) {
          break;
        }
        if (rank0.isAlive()) {
          join(rank0, 50);
        } else {
          child.waitFor(50, TimeUnit.MILLISECONDS);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (child.isAlive()) {
        kill(child);
      }
      closeQuietly(child.getOutputStream());
    }
    List<String> stuck = new ArrayList<>();
    if (rank0.isAlive()) {
      stuck.add("rank 0 still running after " + env.timeout() + " at:\n" + stack(rank0));
      rank0.interrupt();
      join(rank0, 2000);
    }
    Throwable childFailure = null;
    if (exit == null && rank0.failure instanceof TestAbortedException) {
      // rank 0 skipped the scenario (an unmet capability): the child, killed meanwhile, skipped or would have
      childFailure = null;
    } else if (exit == null) {
      childFailure = new AssertionError("rank 1 (child JVM) did not finish and was killed; log " + log + ":\n"
          + tail(log));
      childObservedAt = System.nanoTime();
    } else if (exit == EXIT_SKIPPED) {
      childFailure = new TestAbortedException("rank 1 skipped the scenario (see " + log + ")");
    } else if (exit != EXIT_OK) {
      childFailure = new AssertionError("rank 1 (child JVM) failed with exit code " + exit + "; log " + log + ":\n"
          + tail(log));
    }
    List<Throwable> failures = new ArrayList<>();
    boolean childFirst = childFailure != null && (rank0.failure == null || childObservedAt < rank0.failedAt);
    if (childFirst) {
      failures.add(childFailure);
    }
    if (rank0.failure != null) {
      failures.add(rank0.failure);
    }
    if (childFailure != null && !childFirst) {
      failures.add(childFailure);
    }
    report(failures, stuck, label, env);
  }

  private static Path logFile(Class<?> testClass, String bodyName, String jobId) {
    Path dir = Path.of(System.getProperty("verbs4j.kit.peerLogDir", "target/kit-peers"));
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir.toAbsolutePath(), e);
    }
    return dir.resolve(testClass.getSimpleName() + "." + bodyName + "." + jobId.substring(0, 8) + ".log")
        .toAbsolutePath();
  }

  private static Process launch(Class<?> testClass, KitEnvironment env, String jobId, String bodyName, Path log) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-XX:+UseSerialGC");
    cmd.addAll(env.childJvmOptions());
    Properties sys = System.getProperties();
    for (String name : sys.stringPropertyNames()) {
      if (name.startsWith("verbs.")) {
        cmd.add("-D" + name + "=" + sys.getProperty(name));
      }
    }
    for (Map.Entry<String, String> e : env.childSystemProperties(jobId).entrySet()) {
      cmd.add("-D" + e.getKey() + "=" + e.getValue());
    }
    cmd.add("-Dverbs4j.kit.peer=true");
    cmd.add("-cp");
    String extra = System.getProperty("verbs4j.kit.childExtraClassPath", "");
    cmd.add(extra.isEmpty() ? System.getProperty("java.class.path")
        : extra + java.io.File.pathSeparator + System.getProperty("java.class.path"));
    cmd.add(KitPeerMain.class.getName());
    cmd.add(testClass.getName());
    cmd.add(bodyName);
    cmd.add("1");
    cmd.add("2");
    cmd.add(jobId);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    try {
      return pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the rank-1 JVM: " + cmd, e);
    }
  }

  /** Kills the child and everything it started. */
  static void kill(Process p) {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    try {
      p.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(OutputStream out) {
    try {
      out.close();
    } catch (IOException ignored) {
      // the child is gone; nothing to tell it
    }
  }

  private static String tail(Path log) {
    try {
      String s = Files.readString(log, StandardCharsets.UTF_8);
      return s.length() > 6000 ? "...\n" + s.substring(s.length() - 6000) : s;
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }
}
