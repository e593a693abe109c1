package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.mp.Lockstep;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A job whose ranks are threads of this JVM on a private in-JVM ({@code local}) fabric: what
 * {@code reproduce} runs its experiments on, so that modelled figures need no second process. With
 * {@code verbs.fabric.mode=deterministic} the ranks run in {@link Lockstep} (one at a time, the
 * fabric's events in modelled-time order between turns, no engine threads), so a run of the
 * message-passing layer repeats exactly.
 */
final class InProcessRanks {
  /** What one rank does. */
  @FunctionalInterface
  interface RankBody<T> {
    T run(Context ctx, VerbsConfig config) throws Exception;
  }

  /** How long a job may run. */
  static final Duration LIMIT = Duration.ofMinutes(10);
  /** How long the ranks of an ended job get to stop once interrupted. */
  private static final Duration STOP = Duration.ofSeconds(30);

  private InProcessRanks() {}

  /**
   * Runs {@code body} on {@code size} ranks and returns rank 0's result.
   *
   * @param provider {@code verbs.provider}
   * @param size ranks
   * @param settings more settings for every rank (such as {@code verbs.time=modelled})
   * @param body what each rank does
   * @param <T> the result type
   * @return rank 0's result
   * @throws Exception the failure of the rank that failed first; {@link TimeoutException} after {@link #LIMIT}
   */
  static <T> T run(String provider, int size, Map<String, String> settings, RankBody<T> body) throws Exception {
    String job = "reproduce-" + UUID.randomUUID();
    Lockstep lockstep = "deterministic".equals(settings.get("verbs.fabric.mode")) ? new Lockstep(job, size) : null;
    ExecutorService pool = Executors.newFixedThreadPool(size);
    List<Context> contexts = java.util.Collections.synchronizedList(new ArrayList<>());
    try {
      // results in the order ranks finish: a rank that fails while the others wait for it is
      // reported at once, not after rank 0's wait for it has timed out
      CompletionService<T> done = new ExecutorCompletionService<>(pool);
      Map<Future<T>, Integer> ranks = new HashMap<>();
      for (int r = 0; r < size; r++) {
        Map<String, String> m = new HashMap<>(settings);
        m.put("verbs.provider", provider);
        m.put("verbs.fabric", "local");
        m.put("verbs.fabric.name", job);
        m.put("verbs." + provider + ".job", job);
        m.put("verbs.rank", Integer.toString(r));
        m.put("verbs.size", Integer.toString(size));
        if (lockstep != null) {
          m.put("verbs.threading", "invoker");
        }
        VerbsConfig cfg = VerbsConfig.of(m);
        Callable<T> rank = () -> {
          Context ctx = Verbs.open(cfg);
          contexts.add(ctx);
          return body.run(ctx, cfg);
        };
        ranks.put(done.submit(lockstep == null ? rank : lockstep.rank(r, rank)), r);
      }
      if (lockstep != null) {
        lockstep.drive();
      }
      T first = null;
      long deadline = System.nanoTime() + LIMIT.toNanos();
      for (int finished = 0; finished < size; finished++) {
        Future<T> f = done.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (f == null) {
          throw new TimeoutException((size - finished) + " of " + size + " ranks did not finish within " + LIMIT);
        }
        try {
          T t = f.get();
          if (ranks.get(f) == 0) {
            first = t;
          }
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Exception ex) {
            throw ex;
          }
          throw e;
        }
      }
      return first;
    } finally {
      pool.shutdownNow();
      // a failed run leaves ranks that still open or use their contexts: let them stop first
      pool.awaitTermination(STOP.toNanos(), TimeUnit.NANOSECONDS);
      List<Context> opened;
      synchronized (contexts) {
        opened = new ArrayList<>(contexts);
      }
      for (Context c : opened) { // one after another: the local fabric's nodes close in turn
        c.close();
      }
    }
  }
}
