package io.github.verbs4j.examples.launcher;

import io.github.verbs4j.fabric.auth.PrivateDir;
import io.github.verbs4j.verbs.spi.runtime.HostShare;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts N child JVMs of one job and supervises them: every line a child prints is copied to this
 * process's stdout or stderr prefixed by {@code [rank]}; the first rank to exit with a non-zero
 * code, the timeout, or {@link #stop(String)} (Ctrl-C) stops every other child and its
 * descendants — SIGTERM, then SIGKILL after a grace period — so no child outlives the run. Each
 * child also watches the launcher's pid ({@link ParentWatch}) and exits if the launcher is killed
 * outright.
 *
 * <p>Exit code of {@link #run()}: 0 when every rank exits 0; the first failing rank's code; {@value
 * #TIMEOUT_EXIT} on timeout; {@value #INTERRUPTED_EXIT} when stopped from outside.
 */
public final class Launcher {
  /** Exit code when the timeout expired (as {@code timeout(1)}). */
  public static final int TIMEOUT_EXIT = 124;
  /** Exit code when stopped by Ctrl-C (128 + SIGINT). */
  public static final int INTERRUPTED_EXIT = 130;
  /** How long a child may take to exit after SIGTERM before it is killed. */
  public static final Duration GRACE = Duration.ofSeconds(3);
  /** The class children run. */
  public static final String MAIN_CLASS = "io.github.verbs4j.examples.Main";

  private static final Logger LOG = LoggerFactory.getLogger(Launcher.class);

  /**
   * What to start.
   *
   * @param ranks the number of processes
   * @param program the program and its arguments, e.g. {@code [send_lat, -a]}
   * @param properties system properties for every child ({@code verbs.rank} and {@code verbs.size}
   *     are added per child)
   * @param jvmOptions extra JVM options for every child
   * @param timeout how long the job may run
   * @param classPath the children's class path
   * @param workDir the children's working directory
   */
  public record Job(int ranks, List<String> program, Map<String, String> properties, List<String> jvmOptions,
      Duration timeout, String classPath, Path workDir) {
    /** Copies the collections. */
    public Job {
      program = List.copyOf(program);
      properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
      jvmOptions = List.copyOf(jvmOptions);
    }
  }

  private record Exit(int rank, int code) {}

  private final Job job;
  private final PrintStream out;
  private final PrintStream err;
  private final List<Process> children = new ArrayList<>();
  private final List<Thread> pumps = new ArrayList<>();
  private final BlockingQueue<Exit> exits = new LinkedBlockingQueue<>();
  private final Object printLock = new Object();
  private final Map<String, String> environment = new LinkedHashMap<>();
  private volatile String stopReason;

  /**
   * @param job what to start
   * @param out where children's stdout goes
   * @param err where children's stderr and the launcher's messages go
   */
  public Launcher(Job job, PrintStream out, PrintStream err) {
    if (job.ranks() < 1) {
      throw new IllegalArgumentException("ranks=" + job.ranks() + " must be at least 1");
    }
    this.job = job;
    this.out = out;
    this.err = err;
  }

  /**
   * Adds an environment variable of every child, for what must not appear on a command line (the
   * job secret, {@code VERBS4J_JOB_SECRET}: a command line is visible to every user of the host,
   * a process's environment only to its owner). Call before {@link #run()}.
   *
   * @param key the variable
   * @param value its value
   */
  public synchronized void environment(String key, String value) {
    environment.put(key, value);
  }

  /** @return the command line of {@code rank}'s JVM */
  List<String> command(int rank) {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaExecutable());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("--add-exports");
    cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED"); // Agrona's Unsafe: the fabric's shared-memory rings
    cmd.add("-Djava.awt.headless=true");
    cmd.addAll(job.jvmOptions());
    for (Map.Entry<String, String> e : job.properties().entrySet()) {
      cmd.add("-D" + e.getKey() + "=" + e.getValue());
    }
    cmd.add("-Dverbs.rank=" + rank);
    cmd.add("-Dverbs.size=" + job.ranks());
    cmd.add("-D" + ParentWatch.PROPERTY + "=" + ProcessHandle.current().pid());
    cmd.add("-cp");
    cmd.add(job.classPath());
    cmd.add(MAIN_CLASS);
    cmd.addAll(job.program());
    return cmd;
  }

  /** @return the java executable running this JVM */
  static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * Starts the children and waits until all have exited.
   *
   * @return the job's exit code
   */
  public int run() {
    long deadline = System.nanoTime() + job.timeout().toNanos();
    try {
      for (int rank = 0; rank < job.ranks(); rank++) {
        start(rank);
      }
    } catch (RuntimeException e) {
      stopAll();
      throw e;
    }
    int result = 0;
    int running = job.ranks();
    boolean failed = false;
    try {
      while (running > 0) {
        if (stopReason != null && !failed) {
          failed = true;
          result = INTERRUPTED_EXIT;
          stopAll();
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 && !failed) {
          failed = true;
          result = TIMEOUT_EXIT;
          notice("timeout of " + describe(job.timeout()) + " reached with ranks " + runningRanks()
              + " still running; stopping them");
          stopAll();
        }
        Exit exit = exits.poll(failed ? 100 : Math.min(Math.max(left, 1), TimeUnit.MILLISECONDS.toNanos(100)),
            TimeUnit.NANOSECONDS);
        if (exit == null) {
          continue;
        }
        running--;
        if (exit.code() != 0 && !failed && stopReason != null) {
          failed = true; // killed by stop(): the run was interrupted, whatever the rank's code
          result = INTERRUPTED_EXIT;
        } else if (exit.code() != 0 && !failed) {
          failed = true;
          result = exit.code();
          notice("rank " + exit.rank() + " exited with code " + exit.code()
              + (running > 0 ? "; stopping ranks " + runningRanks() : ""));
          stopAll();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopAll();
      result = INTERRUPTED_EXIT;
    }
    joinPumps();
    return result;
  }

  /**
   * Stops the job from outside (the Ctrl-C hook): kills every child and returns once they are gone
   * or the grace period has passed twice.
   *
   * @param reason what to print
   */
  public void stop(String reason) {
    if (stopReason == null) {
      stopReason = reason;
      notice(reason + "; stopping ranks " + runningRanks());
    }
    stopAll();
  }

  /** @return the pids of the children started so far */
  public synchronized List<Long> childPids() {
    List<Long> pids = new ArrayList<>();
    for (Process p : children) {
      pids.add(p.pid());
    }
    return pids;
  }

  private synchronized void start(int rank) {
    if (stopReason != null) {
      throw new IllegalStateException("the job was stopped while starting: " + stopReason);
    }
    ProcessBuilder pb = new ProcessBuilder(command(rank)).directory(job.workDir().toFile());
    pb.redirectInput(ProcessBuilder.Redirect.PIPE);
    pb.environment().putAll(environment);
    // Every rank runs on this host: the runtime stops spinning when they outnumber the processors
    // (a value the user set in the launcher's environment wins).
    pb.environment().putIfAbsent(HostShare.LOCAL_RANKS_ENV, Integer.toString(job.ranks()));
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start rank " + rank + ": " + e.getMessage(), e);
    }
    LOG.debug("rank {} started as pid {}: {}", rank, p.pid(), pb.command());
    children.add(p);
    pumps.add(pump(rank, p.getInputStream(), out, "stdout"));
    pumps.add(pump(rank, p.getErrorStream(), err, "stderr"));
    p.onExit().thenAccept(done -> {
      removeFilesOf(done.pid());
      exits.add(new Exit(rank, done.exitValue()));
    });
  }

  /**
   * A rank that was killed cannot delete its socket and ring files; the launcher does, as a Slurm
   * epilog would: in the private directory of the sockets and in the one of the shared-memory rings
   * ({@code /dev/shm/verbs4j-<user>}, where {@code /dev/shm} exists).
   */
  private static void removeFilesOf(long pid) {
    try {
      PrivateDir.removeFilesOf(PrivateDir.of(""), pid);
      if (Files.isDirectory(Path.of("/dev/shm"))) {
        PrivateDir.removeFilesOf(PrivateDir.of("/dev/shm"), pid);
      }
    } catch (RuntimeException e) {
      LOG.debug("cannot clean the files of pid {}: {}", pid, e.toString());
    }
  }

  private Thread pump(int rank, InputStream in, PrintStream to, String name) {
    String prefix = "[" + rank + "] ";
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          synchronized (printLock) {
            to.println(prefix + line);
            to.flush();
          }
        }
      } catch (IOException e) {
        LOG.debug("rank {} {} closed: {}", rank, name, e.toString());
      }
    }, "verbs4j-rank" + rank + "-" + name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private void joinPumps() {
    long deadline = System.nanoTime() + GRACE.toNanos();
    for (Thread t : pumps) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Kills every child still running and its descendants; returns when all are gone. */
  private void stopAll() {
    List<Process> ps;
    synchronized (this) {
      ps = new ArrayList<>(children);
    }
    List<ProcessHandle> all = new ArrayList<>();
    for (Process p : ps) {
      List<ProcessHandle> desc = p.descendants().toList();
      if (p.isAlive()) {
        p.destroy();
      }
      for (ProcessHandle d : desc) {
        d.destroy();
      }
      all.add(p.toHandle());
      all.addAll(desc);
    }
    long deadline = System.nanoTime() + GRACE.toNanos();
    for (ProcessHandle h : all) {
      long left = deadline - System.nanoTime();
      try {
        if (left > 0) {
          h.onExit().get(left, TimeUnit.NANOSECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (Exception e) {
        LOG.debug("pid {} did not exit after SIGTERM: {}", h.pid(), e.toString());
      }
    }
    for (ProcessHandle h : all) {
      if (h.isAlive()) {
        notice("pid " + h.pid() + " ignored SIGTERM; killing it");
        h.destroyForcibly();
      }
    }
    for (ProcessHandle h : all) {
      try {
        h.onExit().get(GRACE.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        notice("pid " + h.pid() + " is still alive after SIGKILL");
      }
    }
  }

  private String runningRanks() {
    List<Integer> r = new ArrayList<>();
    List<Process> ps;
    synchronized (this) {
      ps = new ArrayList<>(children);
    }
    for (int i = 0; i < ps.size(); i++) {
      if (ps.get(i).isAlive()) {
        r.add(i);
      }
    }
    return r.toString();
  }

  private void notice(String message) {
    synchronized (printLock) {
      err.println("verbs4j run: " + message);
      err.flush();
    }
  }

  private static String describe(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
