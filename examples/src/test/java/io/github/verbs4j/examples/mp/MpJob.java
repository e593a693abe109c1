package io.github.verbs4j.examples.mp;

import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.examples.testing.Loopback;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.AbstractMap;
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
import org.junit.jupiter.api.Assumptions;

/**
 * A job of in-JVM ranks for the message-passing tests: a provider (the loopback double, ib or tca
 * on the local fabric), a connection strategy and whether receive buffers are shared. Results come
 * back by job rank.
 */
enum MpJob {
  LOOPBACK_BASELINE(null, MpConfig.Strategy.BASELINE),
  IB_BASELINE("ib", MpConfig.Strategy.BASELINE),
  IB_ON_DEMAND("ib", MpConfig.Strategy.ON_DEMAND),
  TCA_BASELINE("tca", MpConfig.Strategy.BASELINE),
  TCA_ON_DEMAND("tca", MpConfig.Strategy.ON_DEMAND),
  /** On demand (γ = 1) with one shared pool of 64 receive buffers instead of receive slots per link. */
  IB_SHARED("ib", MpConfig.Strategy.ON_DEMAND, 64),
  TCA_SHARED("tca", MpConfig.Strategy.ON_DEMAND, 64),
  /** DC with a pool of 64 shared receive buffers (ib only: tca has no DC capability). */
  IB_DC("ib", MpConfig.Strategy.DC, 64),
  /** Skipped by capability: tca has no DC. */
  TCA_DC("tca", MpConfig.Strategy.DC, 64);

  private static final AtomicInteger JOBS = new AtomicInteger();
  private final String provider;
  private final MpConfig.Strategy strategy;
  private final int sharedReceive;

  MpJob(String provider, MpConfig.Strategy strategy) {
    this(provider, strategy, 0);
  }

  MpJob(String provider, MpConfig.Strategy strategy, int sharedReceive) {
    this.provider = provider;
    this.strategy = strategy;
    this.sharedReceive = sharedReceive;
  }

  /** @return the provider, or null for the loopback double */
  String provider() {
    return provider;
  }

  /**
   * @param base the settings
   * @return them with this job's strategy (on demand: γ = 1, so every change of peer closes a link)
   */
  MpConfig config(MpConfig base) {
    MpConfig c = base.withStrategy(strategy).withSharedReceive(sharedReceive);
    return strategy == MpConfig.Strategy.ON_DEMAND ? c.withGamma(1) : c;
  }

  /**
   * Opens a communicator with this job's strategy.
   *
   * @param ctx the rank's context
   * @param base the settings
   * @return the communicator
   */
  VerbsCommunicator open(Context ctx, MpConfig base) {
    if (strategy == MpConfig.Strategy.DC) {
      Assumptions.assumeTrue(ctx.queryDevice().has(Capability.DC),
          () -> ctx.device().name() + " has no DC capability: the DC strategy is skipped");
    }
    return VerbsCommunicator.open(ctx, config(base));
  }

  <T> List<T> run(int size, Loopback.RankBody<T> body) throws Exception {
    if (provider == null) {
      return InJvmJob.LOOPBACK.run(size, body);
    }
    String fabric = "mp-test-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
    ExecutorService pool = Executors.newFixedThreadPool(size);
    List<Context> contexts = Collections.synchronizedList(new ArrayList<>());
    try {
      List<Future<Map.Entry<Integer, T>>> futures = new ArrayList<>();
      for (int r = 0; r < size; r++) {
        VerbsConfig cfg = VerbsConfig.of(Map.of("verbs.provider", provider, "verbs.fabric", "local",
            "verbs.fabric.name", fabric, "verbs.rank", Integer.toString(r), "verbs.size", Integer.toString(size)));
        futures.add(pool.submit(() -> {
          Context ctx = Verbs.open(cfg);
          contexts.add(ctx);
          return new AbstractMap.SimpleEntry<>(ctx.job().rank(), body.run(ctx));
        }));
      }
      List<T> out = new ArrayList<>(Collections.nCopies(size, null));
      for (Future<Map.Entry<Integer, T>> f : futures) {
        try {
          Map.Entry<Integer, T> e = f.get(300, TimeUnit.SECONDS);
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
    for (Context c : contexts) { // one after another: the local transport races when nodes close at once
      c.close();
    }
  }
}
