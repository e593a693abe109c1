package io.github.verbs4j.verbs.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The parent's handle on one {@link KitPeerMain} child JVM, and the pool that keeps children
 * between scenarios: a child that passed or skipped its last scenario serves the next one with the
 * same command line; one that failed, hung or was cut short is killed. Output of a child outside
 * any scenario goes to {@code kit-peer-<pid>.log} beside the scenario logs.
 */
final class KitPeerServer {
  private static final Map<List<String>, Deque<KitPeerServer>> IDLE = new HashMap<>();

  private final List<String> command;
  private final Process process;
  private final Writer requests;
  private volatile Integer result;
  private final Object resultLock = new Object();

  private KitPeerServer(List<String> command, Path dir) {
    this.command = command;
    try {
      this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a kit child JVM: " + command, e);
    }
    this.requests = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Path stray = dir.resolve("kit-peer-" + process.pid() + ".log");
    Thread reader = new Thread(() -> read(stray), "kit-peer-reader-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * @param command the child's command line (JVM, options, class path, {@link KitPeerMain})
   * @param dir where its stray output goes
   * @return an idle child started with that command line, or a new one
   */
  static KitPeerServer take(List<String> command, Path dir) {
    synchronized (IDLE) {
      Deque<KitPeerServer> idle = IDLE.get(command);
      while (idle != null && !idle.isEmpty()) {
        KitPeerServer s = idle.poll();
        if (s.process.isAlive()) {
          return s;
        }
      }
    }
    return new KitPeerServer(command, dir);
  }

  /** Sends one scenario request. */
  void start(String requestLine) {
    result = null;
    try {
      requests.write(requestLine);
      requests.write('\n');
      requests.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot send a scenario to kit child " + process.pid(), e);
    }
  }

  /**
   * @return the scenario's code: {@link KitPeerMain}'s answer, or the exit code if the process
   *     ended first; null while it runs
   */
  Integer code() {
    Integer r = result;
    if (r != null) {
      return r;
    }
    return process.isAlive() ? null : process.exitValue();
  }

  /** Waits up to {@code millis} for an answer or an exit. */
  void await(long millis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    synchronized (resultLock) {
      while (code() == null) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          return;
        }
        try {
          resultLock.wait(Math.min(left, 10));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted while waiting for a kit child", e);
        }
      }
    }
  }

  /** @return the child's process id */
  long pid() {
    return process.pid();
  }

  /** Back to the pool if it answered passed or skipped, else killed. */
  void release() {
    Integer r = result;
    if (process.isAlive() && r != null && (r == KitRunner.EXIT_OK || r == KitRunner.EXIT_SKIPPED)) {
      synchronized (IDLE) {
        IDLE.computeIfAbsent(command, k -> new ArrayDeque<>()).push(this);
      }
    } else {
      kill();
    }
  }

  /** Kills the child and everything it started. */
  void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeQuietly(process.getOutputStream());
  }

  private void read(Path stray) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith(KitPeerMain.RESULT)) {
          synchronized (resultLock) {
            result = Integer.parseInt(line.substring(KitPeerMain.RESULT.length()).trim());
            resultLock.notifyAll();
          }
        } else {
          Files.writeString(stray, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the child is gone; its exit code tells the rest
    }
    synchronized (resultLock) {
      resultLock.notifyAll();
    }
  }

  private static void closeQuietly(OutputStream out) {
    try {
      out.close();
    } catch (IOException ignored) {
      // the child is gone; nothing to tell it
    }
  }
}
