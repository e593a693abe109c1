package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LibibverbsDetailsConformance;

/** {@link LibibverbsDetailsConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyLibibverbsDetailsIT extends LibibverbsDetailsConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
