package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.MultiRankConformance;

/** {@link MultiRankConformance} on the tca provider, every rank in this JVM on the local fabric. */
public class TcaLocalMultiRankTest extends MultiRankConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
