package io.github.verbs4j.examples.testing;

import io.github.verbs4j.examples.mp.Lockstep;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A job whose ranks are threads of the test JVM, on the {@link Loopback} test double or on a real
 * provider over the in-JVM {@code local} fabric (one fabric name per job). With {@code
 * verbs.fabric.mode=deterministic} the ranks run in {@link Lockstep} (message-passing programs).
 */
public enum InJvmJob {
  /** The in-JVM test double. */
  LOOPBACK,
  /** The simulated InfiniBand HCA on the local fabric. */
  IB;

  private static final AtomicInteger JOBS = new AtomicInteger();

  /**
   * Runs {@code body} on {@code size} ranks and returns their results in rank order.
   *
   * @param size ranks
   * @param body what each rank does
   * @param <T> the result type
   * @return the results
   * @throws Exception the first rank's failure
   */
  public <T> List<T> run(int size, Loopback.RankBody<T> body) throws Exception {
    return run(size, Map.of(), body);
  }

  /**
   * Runs {@code body} on {@code size} ranks with extra settings for every rank (such as {@code
   * verbs.time=modelled}; ignored by the loopback double) and returns their results in rank order.
   *
   * @param size ranks
   * @param extra settings added to each rank's
   * @param body what each rank does
   * @param <T> the result type
   * @return the results
   * @throws Exception the first rank's failure
   */
  public <T> List<T> run(int size, Map<String, String> extra, Loopback.RankBody<T> body) throws Exception {
    if (this == LOOPBACK) {
      return Loopback.run(size, body);
    }
    return on("ib", size, extra, body);
  }

  /**
   * Runs {@code body} on {@code size} ranks of a provider over a private local fabric and returns
   * their results by job rank. A failed rank's exception is thrown; the contexts are closed one
   * after another (sim-fabric's local transport races when nodes close concurrently).
   *
   * @param provider {@code verbs.provider}
   * @param size ranks
   * @param extra settings added to each rank's
   * @param body what each rank does
   * @param <T> the result type
   * @return the results, index = rank
   * @throws Exception the first rank's failure
   */
  public static <T> List<T> on(String provider, int size, Map<String, String> extra, Loopback.RankBody<T> body)
      throws Exception {
    String fabric = "examples-test-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
    // the deterministic fabric: ranks in lockstep, driven from this thread (no engine threads)
    Lockstep lockstep = "deterministic".equals(extra.get("verbs.fabric.mode")) ? new Lockstep(fabric, size) : null;
    ExecutorService pool = Executors.newFixedThreadPool(size);
    List<Context> contexts = java.util.Collections.synchronizedList(new ArrayList<>());
    try {
      List<Future<Map.Entry<Integer, T>>> futures = new ArrayList<>();
      for (int r = 0; r < size; r++) {
        VerbsConfig cfg = config(fabric, r, size).with("verbs.provider", provider).with(extra);
        if (lockstep != null) {
          cfg = cfg.with("verbs.threading", "invoker");
        }
        VerbsConfig c = cfg;
        Callable<Map.Entry<Integer, T>> rank = () -> {
          Context ctx = Verbs.open(c);
          contexts.add(ctx);
          return new java.util.AbstractMap.SimpleEntry<>(ctx.job().rank(), body.run(ctx));
        };
        futures.add(pool.submit(lockstep == null ? rank : lockstep.rank(r, rank)));
      }
      if (lockstep != null) {
        lockstep.drive();
      }
      List<T> out = new ArrayList<>(java.util.Collections.nCopies(size, null));
      for (Future<Map.Entry<Integer, T>> f : futures) {
        try {
          Map.Entry<Integer, T> e = f.get(600, TimeUnit.SECONDS);
          out.set(e.getKey(), e.getValue());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Exception ex) {
            throw ex;
          }
          throw e;
        }
      }
      pool.shutdown();
      closeAll(contexts);
      return out;
    } catch (Exception e) {
      pool.shutdownNow();
      try {
        closeAll(contexts);
      } catch (RuntimeException closing) {
        e.addSuppressed(closing); // a failed rank leaves objects open: report the failure, not that
      }
      throw e;
    }
  }

  private static void closeAll(List<Context> contexts) {
    for (Context c : contexts) {
      c.close();
    }
  }

  /**
   * @param fabric the local fabric's name
   * @param rank the rank
   * @param size the job size
   * @return the settings of that rank
   */
  public static VerbsConfig config(String fabric, int rank, int size) {
    return VerbsConfig.of(Map.of("verbs.provider", "ib", "verbs.fabric", "local", "verbs.fabric.name", fabric,
        "verbs.rank", Integer.toString(rank), "verbs.size", Integer.toString(size)));
  }
}
