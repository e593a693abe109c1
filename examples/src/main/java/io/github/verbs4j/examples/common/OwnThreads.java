package io.github.verbs4j.examples.common;

import java.util.concurrent.Executor;

/**
 * Runs each task on a new daemon thread: for blocking work started with {@code CompletableFuture}
 * (ranks of one program opening and joining each other). Without an executor, JDK 25 runs such work
 * on the common pool, which has a single thread on a 2-processor host: the second rank never starts
 * while the first waits for it to join.
 */
public final class OwnThreads implements Executor {
  /** The executor. */
  public static final OwnThreads INSTANCE = new OwnThreads();

  private OwnThreads() {}

  @Override
  public void execute(Runnable task) {
    Thread t = new Thread(task, "verbs4j-rank-open");
    t.setDaemon(true);
    t.start();
  }
}
