package io.github.verbs4j.ib;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A JMH executor whose worker threads are Netty {@link FastThreadLocalThread}s, for measuring the
 * netty fabric's path as an application thread that Netty recycles objects on: Netty 4.2 reuses its
 * buffer and write objects only on such threads. Select it with {@code
 * -jvmArgsAppend "-Djmh.executor=CUSTOM -Djmh.executor.class=io.github.verbs4j.ib.FastThreadLocalExecutor"}
 * (docs/benchmarks.md).
 */
public final class FastThreadLocalExecutor extends ThreadPoolExecutor {
  /**
   * The constructor JMH calls.
   *
   * @param maxThreads worker threads
   * @param prefix thread name prefix
   */
  public FastThreadLocalExecutor(int maxThreads, String prefix) {
    super(maxThreads, maxThreads, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(), new Factory(prefix));
  }

  private static final class Factory implements java.util.concurrent.ThreadFactory {
    private final String prefix;
    private final AtomicInteger n = new AtomicInteger();

    Factory(String prefix) {
      this.prefix = prefix;
    }

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new FastThreadLocalThread(r, prefix + "-ftl-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  }
}
