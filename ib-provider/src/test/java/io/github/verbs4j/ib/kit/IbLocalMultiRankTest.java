package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.MultiRankConformance;

/** {@link MultiRankConformance} on the ib provider, every rank in this JVM on the local fabric. */
public class IbLocalMultiRankTest extends MultiRankConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
