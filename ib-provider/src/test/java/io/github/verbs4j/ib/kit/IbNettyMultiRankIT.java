package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.MultiRankConformance;

/** {@link MultiRankConformance} on the ib provider, ranks 1 and up each in a child JVM, over the netty fabric. */
public class IbNettyMultiRankIT extends MultiRankConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
