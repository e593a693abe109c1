package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.examples.testing.Loopback;
import java.util.List;
import java.util.Map;

/**
 * Ranks as threads of the test JVM on a provider ({@code ib} or {@code tca}) over the local fabric,
 * in modelled time, so that the fabric's message times the timelines are built on are the
 * provider's model and repeat from run to run.
 * The local fabric numbers ranks in the order the contexts join, so results are returned by the
 * job's rank, not by the order the threads were started.
 */
final class InJvmRanks {

  private InJvmRanks() {}

  static <T> List<T> run(String provider, int size, Loopback.RankBody<T> body) throws Exception {
    return InJvmJob.on(provider, size, Map.of("verbs.time", "modelled"), body);
  }
}
