package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import java.io.IOException;
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
import java.util.stream.Collectors;
import org.opentest4j.TestAbortedException;

/**
 * Runs the ranks of a scenario: as threads of this JVM, or rank 0 here and every other rank in a
 * child JVM of its own.
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
  static final int EXIT_WATCHDOG = 3;
  static final int EXIT_PARENT_GONE = 4;
  static final int EXIT_SKIPPED = 5;

  private static final Duration GRACE = Duration.ofSeconds(10);
  /** How long the children of a rank 0 whose open failed have to report a skip. */
  private static final Duration OPEN_FAILURE_WAIT = Duration.ofSeconds(2);

  /** A scenario body for one rank. */
  @FunctionalInterface
  interface Body {
    void run(Peer p) throws Throwable;
  }

  /** Process ids of the child JVMs of the last scenario run with children. */
  static final List<Long> lastChildren = new java.util.concurrent.CopyOnWriteArrayList<>();

  private KitRunner() {}

  /**
   * Opens this rank's context, runs the body, passes the end-of-job barrier, closes the context.
   * Failures of close are suppressed into the body's failure, or thrown if the body passed.
   */
  static void runRank(KitEnvironment env, String jobId, int rank, int size, Map<String, String> settings, Body body,
      AbortSignal abort) throws Throwable {
    runRank(env, jobId, rank, size, settings, body, abort, () -> {});
  }

  /** {@link #runRank}, telling {@code opened} once the context is open. */
  private static void runRank(KitEnvironment env, String jobId, int rank, int size, Map<String, String> settings,
      Body body, AbortSignal abort, Runnable opened) throws Throwable {
    Throwable failure = null;
    Context ctx = Verbs.open(env.config(rank, size, jobId).with(settings));
    opened.run();
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
    private volatile boolean opened;

    RankThread(String label, int rank, Runnable r) {
      super(r, "kit-" + label + "-rank" + rank);
      this.rank = rank;
      setDaemon(true);
    }
  }

  private static RankThread start(KitEnvironment env, String jobId, int rank, int size, Map<String, String> settings,
      Body body, AbortSignal abort, String label) {
    RankThread[] self = new RankThread[1];
    self[0] = new RankThread(label, rank, () -> {
      try {
        runRank(env, jobId, rank, size, settings, body, abort, () -> self[0].opened = true);
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
  static void runThreads(KitEnvironment env, String jobId, int size, Map<String, String> settings, Body body,
      String label) {
    AbortSignal abort = new AbortSignal();
    List<RankThread> threads = new ArrayList<>();
    for (int r = 0; r < size; r++) {
      threads.add(start(env, jobId, r, size, settings, body, abort, label));
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

  /** A rank in a child JVM, and what the parent has seen of it. */
  private static final class Child {
    final int rank;
    final KitPeerServer server;
    final Path log;
    Integer exit;
    long observedAt = Long.MAX_VALUE;

    Child(int rank, KitPeerServer server, Path log) {
      this.rank = rank;
      this.server = server;
      this.log = log;
    }

    /** Records the result once; tells the other ranks when this one failed or skipped. */
    void observe(AbortSignal abort) {
      if (exit != null || server.code() == null) {
        return;
      }
      exit = server.code();
      observedAt = System.nanoTime();
      if (exit == EXIT_SKIPPED) {
        abort.abort("rank " + rank + " skipped the scenario");
      } else if (exit != EXIT_OK) {
        abort.abort("rank " + rank + " (child JVM) exited with code " + exit);
      }
    }

    /** @return the failure this child stands for, or null when it passed */
    Throwable failure() {
      if (exit == null) {
        return new AssertionError("rank " + rank + " (child JVM) did not finish and was killed; log " + log + ":\n"
            + tail(log));
      } else if (exit == EXIT_SKIPPED) {
        return new TestAbortedException("rank " + rank + " skipped the scenario (see " + log + ")");
      } else if (exit != EXIT_OK) {
        return new AssertionError("rank " + rank + " (child JVM) failed with exit code " + exit + "; log " + log
            + ":\n" + tail(log));
      }
      return null;
    }
  }

  /**
   * Rank 0 in a thread of this JVM, ranks 1 to {@code size - 1} each in a child JVM running {@link
   * KitPeerMain}.
   */
  static void runWithChildren(AbstractConformance test, KitEnvironment env, String jobId, String bodyName, int size,
      Map<String, String> settings, String label) {
    Body body = method(test, bodyName);
    AbortSignal abort = new AbortSignal();
    List<Child> children = new ArrayList<>();
    lastChildren.clear();
    RankThread rank0 = null;
    long deadline = System.nanoTime() + env.timeout().toNanos();
    long graceDeadline = Long.MAX_VALUE;
    try {
      for (int r = 1; r < size; r++) {
        Path log = logFile(test.getClass(), bodyName, jobId, r, size);
        children.add(new Child(r, launch(test.getClass(), env, jobId, bodyName, r, size, settings, log), log));
        lastChildren.add(children.get(children.size() - 1).server.pid());
      }
      rank0 = start(env, jobId, 0, size, settings, body, abort, label);
      while (true) {
        boolean childrenDone = true;
        for (Child c : children) {
          c.observe(abort);
          childrenDone &= c.exit != null;
        }
        long now = System.nanoTime();
        // a rank 0 whose open failed waits a little for the children's results: a child's skip
        // explains it
        boolean rank0Failed = rank0.failure != null
            && (rank0.opened || now - rank0.failedAt - OPEN_FAILURE_WAIT.toNanos() > 0);
        if (!rank0.isAlive() && (childrenDone || rank0Failed)) {
          break; // all done, or rank 0 failed and the children cannot finish meaningfully
        }
        if (abort.isAborted() && graceDeadline == Long.MAX_VALUE) {
          graceDeadline = now + GRACE.toNanos();
        }
        if (now - deadline > 0 || now - graceDeadline > 0) {
          break;
        }
        if (rank0.isAlive()) {
          join(rank0, 50);
        } else {
          children.stream().filter(c -> c.exit == null).findFirst().ifPresent(c -> c.server.await(50));
        }
      }
    } finally {
      for (Child c : children) {
        c.observe(abort);
        if (c.exit == null) {
          c.server.kill();
        } else {
          c.server.release();
        }
      }
    }
    List<String> stuck = new ArrayList<>();
    if (rank0.isAlive()) {
      stuck.add("rank 0 still running after " + env.timeout() + " at:\n" + stack(rank0));
      rank0.interrupt();
      join(rank0, 2000);
    }
    // failures in the order they were seen
    record Seen(long at, Throwable failure) {}
    List<Seen> seen = new ArrayList<>();
    boolean rank0Skipped = rank0.failure instanceof TestAbortedException;
    for (Child c : children) {
      // a rank 0 that skipped closed its context: a child cut short then, or failing after it
      // (a warm child may already be joining), only saw the skip
      boolean consequence = rank0Skipped && (c.exit == null || c.observedAt - rank0.failedAt >= 0);
      Throwable f = consequence ? null : c.failure();
      if (f != null) {
        seen.add(new Seen(c.exit == null ? System.nanoTime() : c.observedAt, f));
      }
    }
    // a child that skipped closed its context: a rank 0 whose open failed (a fabric join needs
    // every rank, and a child that skips at once may leave during it) only saw the skip
    boolean childSkipped = children.stream().anyMatch(c -> c.exit != null && c.exit == EXIT_SKIPPED);
    if (rank0.failure != null && !(childSkipped && !rank0.opened)) {
      seen.add(new Seen(rank0.failedAt, rank0.failure));
    }
    seen.sort((x, y) -> Long.compare(x.at(), y.at()));
    List<Throwable> failures = new ArrayList<>();
    seen.forEach(x -> failures.add(x.failure()));
    report(failures, stuck, label, env);
  }

  private static Path logFile(Class<?> testClass, String bodyName, String jobId, int rank, int size) {
    Path dir = Path.of(System.getProperty("verbs4j.kit.peerLogDir", "target/kit-peers"));
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir.toAbsolutePath(), e);
    }
    String rankPart = size == 2 ? "" : ".rank" + rank;
    return dir.resolve(testClass.getSimpleName() + "." + bodyName + "." + jobId.substring(0, 8) + rankPart + ".log")
        .toAbsolutePath();
  }

  private static KitPeerServer launch(Class<?> testClass, KitEnvironment env, String jobId, String bodyName,
      int rank, int size, Map<String, String> settings, Path log) {
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
    cmd.add("-Dverbs4j.kit.peer=true");
    cmd.add("-cp");
    String extra = System.getProperty("verbs4j.kit.childExtraClassPath", "");
    cmd.add(extra.isEmpty() ? System.getProperty("java.class.path")
        : extra + java.io.File.pathSeparator + System.getProperty("java.class.path"));
    cmd.add(KitPeerMain.class.getName());
    KitPeerServer server = KitPeerServer.take(cmd, log.getParent());
    server.start(KitPeerMain.request(log.toString(), testClass.getName(), bodyName, rank, size, jobId,
        env.childSystemProperties(jobId), settings));
    return server;
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
