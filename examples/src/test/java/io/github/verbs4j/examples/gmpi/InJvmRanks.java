package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.examples.testing.Loopback;
import java.util.List;
import java.util.Map;

/**
 * Ranks as threads of the test JVM on a provider ({@code ib} or {@code tca}) over the local fabric:
 * ib in modelled time; tca on the wall clock, because tca in modelled time sometimes fails a
 * 4 MiB transfer with {@code transport retry counter exceeded} on the loaded machine (docs/gmpi.md,
 * Limitations). The timelines are pinned against whatever fabric times were measured.
 * The local fabric numbers ranks in the order the contexts join, so results are returned by the
 * job's rank, not by the order the threads were started.
 */
final class InJvmRanks {

  private InJvmRanks() {}

  static <T> List<T> run(String provider, int size, Loopback.RankBody<T> body) throws Exception {
    return InJvmJob.on(provider, size, Map.of("verbs.time", "ib".equals(provider) ? "modelled" : "wall"), body);
  }
}
