package io.github.verbs4j.fabric.testing;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Blocking work of a test (opening ranks that wait for each other, a peer's loop), each on a
 * thread of its own. {@code CompletableFuture.supplyAsync} without an executor did that on hosts
 * with fewer than three processors up to JDK 24; JDK 25 runs it on the common pool there, one
 * thread, so three ranks that wait for each other to join never finish.
 */
public final class Async {
  /** A new daemon thread per task. */
  public static final Executor THREADS = r -> {
    Thread t = new Thread(r, "verbs4j-test-async");
    t.setDaemon(true);
    t.start();
  };

  private Async() {}

  /**
   * @param s the work
   * @param <T> its result
   * @return its future, the work started on a thread of its own
   */
  public static <T> CompletableFuture<T> supply(Supplier<T> s) {
    return CompletableFuture.supplyAsync(s, THREADS);
  }

  /**
   * @param r the work
   * @return its future, the work started on a thread of its own
   */
  public static CompletableFuture<Void> run(Runnable r) {
    return CompletableFuture.runAsync(r, THREADS);
  }
}
