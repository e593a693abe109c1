package io.github.verbs4j.examples.testing;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A job whose ranks are threads of the test JVM, on the {@link Loopback} test double or on a real
 * provider over the in-JVM {@code local} fabric (one fabric name per job).
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
    String fabric = "examples-test-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
    ExecutorService pool = Executors.newFixedThreadPool(size);
    List<Context> contexts = java.util.Collections.synchronizedList(new ArrayList<>());
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int r = 0; r < size; r++) {
        VerbsConfig cfg = config(fabric, r, size).with(extra);
        futures.add(pool.submit(() -> {
          Context ctx = Verbs.open(cfg);
          contexts.add(ctx);
          return body.run(ctx);
        }));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        try {
          out.add(f.get(180, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Exception ex) {
            throw ex;
          }
          throw e;
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
      // closed one after another: sim-fabric's local transport races when nodes close concurrently
      for (Context c : contexts) {
        c.close();
      }
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
