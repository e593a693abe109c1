package io.github.verbs4j.examples.mp;

import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.examples.testing.Loopback;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.Context;
import java.util.List;
import java.util.Map;
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
  TCA_DC("tca", MpConfig.Strategy.DC, 64),
  /**
   * Hybrid with {@link #TEST_HYBRID}: a peer moves from DC to RC after two messages, at most one RC
   * link per rank, so the switch happens inside every test and further peers are refused.
   */
  IB_HYBRID("ib", MpConfig.Strategy.HYBRID, 64),
  /** Skipped by capability: tca has no DC. */
  TCA_HYBRID("tca", MpConfig.Strategy.HYBRID, 64),
  /**
   * Seed 003's reduced design with {@link #TEST_NODE}: nodes of 2 ranks that share 2 RC links and a
   * file of rings, a peer moves from DC after two messages.
   */
  IB_NODE_SHARED("ib", MpConfig.Strategy.SHARED, 64),
  /** Skipped by capability: tca has no DC. */
  TCA_NODE_SHARED("tca", MpConfig.Strategy.SHARED, 64);

  /** The hybrid's settings in these tests: RC after 2 messages, 1 RC link per rank. */
  static final MpConfig.Hybrid TEST_HYBRID = new MpConfig.Hybrid(2, java.time.Duration.ofSeconds(10), 1);
  /** The shared strategy's settings in these tests: RC after 2 messages, 2 RC links per node of 2 ranks. */
  static final MpConfig.Hybrid TEST_NODE = new MpConfig.Hybrid(2, java.time.Duration.ofSeconds(10), 2, 2);

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
   * @return them with this job's strategy (on demand: γ = 1, so every change of peer closes a link;
   *     hybrid: {@link #TEST_HYBRID} unless {@code base} has its own)
   */
  MpConfig config(MpConfig base) {
    MpConfig c = base.withStrategy(strategy).withSharedReceive(sharedReceive);
    return strategy == MpConfig.Strategy.ON_DEMAND ? c.withGamma(1)
        : strategy.switches() && base.hybrid().equals(MpConfig.Hybrid.defaults())
            ? c.withHybrid(strategy == MpConfig.Strategy.SHARED ? TEST_NODE : TEST_HYBRID)
            : c; // a test that sets its own hybrid settings keeps them
  }

  /**
   * Opens a communicator with this job's strategy.
   *
   * @param ctx the rank's context
   * @param base the settings
   * @return the communicator
   */
  VerbsCommunicator open(Context ctx, MpConfig base) {
    if (strategy == MpConfig.Strategy.DC || strategy.switches()) {
      Assumptions.assumeTrue(ctx.queryDevice().has(Capability.DC),
          () -> ctx.device().name() + " has no DC capability: the " + strategy + " strategy is skipped");
    }
    return VerbsCommunicator.open(ctx, config(base));
  }

  <T> List<T> run(int size, Loopback.RankBody<T> body) throws Exception {
    return provider == null ? InJvmJob.LOOPBACK.run(size, body) : InJvmJob.on(provider, size, Map.of(), body);
  }
}
