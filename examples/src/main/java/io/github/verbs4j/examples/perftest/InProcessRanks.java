package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.mp.Lockstep;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

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
   * @throws Exception the first rank's failure
   */
  static <T> T run(String provider, int size, Map<String, String> settings, RankBody<T> body) throws Exception {
    String job = "reproduce-" + UUID.randomUUID();
    Lockstep lockstep = "deterministic".equals(settings.get("verbs.fabric.mode")) ? new Lockstep(job, size) : null;
    ExecutorService pool = Executors.newFixedThreadPool(size);
    List<Context> contexts = java.util.Collections.synchronizedList(new ArrayList<>());
    try {
      List<Future<T>> futures = new ArrayList<>();
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
        futures.add(pool.submit(lockstep == null ? rank : lockstep.rank(r, rank)));
      }
      if (lockstep != null) {
        lockstep.drive();
      }
      T first = null;
      for (int r = 0; r < size; r++) {
        try {
          T t = futures.get(r).get(10, TimeUnit.MINUTES);
          if (r == 0) {
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
      for (Context c : contexts) { // one after another: the local fabric's nodes close in turn
        c.close();
      }
    }
  }
}
