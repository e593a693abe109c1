package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.testing.Loopback;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ranks as threads of the test JVM on a provider ({@code ib} or {@code tca}) over the local fabric:
 * ib in modelled time; tca on the wall clock, because tca in modelled time sometimes fails a
 * 4 MiB transfer with {@code transport retry counter exceeded} on the loaded machine (docs/gmpi.md,
 * Limitations). The timelines are pinned against whatever fabric times were measured.
 * The local fabric numbers ranks in the order the contexts join, so results are returned by the
 * job's rank, not by the order the threads were started.
 */
final class InJvmRanks {
  private static final AtomicInteger JOBS = new AtomicInteger();

  private InJvmRanks() {}

  static <T> List<T> run(String provider, int size, Loopback.RankBody<T> body) throws Exception {
    String fabric = "gmpi-test-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
    ExecutorService pool = Executors.newFixedThreadPool(size);
    List<Context> contexts = Collections.synchronizedList(new ArrayList<>());
    try {
      List<Future<Map.Entry<Integer, T>>> futures = new ArrayList<>();
      for (int r = 0; r < size; r++) {
        VerbsConfig cfg = VerbsConfig.of(Map.of("verbs.provider", provider, "verbs.fabric", "local",
            "verbs.fabric.name", fabric, "verbs.rank", Integer.toString(r), "verbs.size", Integer.toString(size),
            "verbs.time", "ib".equals(provider) ? "modelled" : "wall"));
        futures.add(pool.submit(() -> {
          Context ctx = Verbs.open(cfg);
          contexts.add(ctx);
          T result = body.run(ctx);
          return new java.util.AbstractMap.SimpleEntry<>(ctx.job().rank(), result);
        }));
      }
      List<T> out = new ArrayList<>(Collections.nCopies(size, null));
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
    for (Context c : contexts) { // one after another, as InJvmJob does
      c.close();
    }
  }
}
