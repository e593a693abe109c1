package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LibibverbsDetailsConformance;

/** {@link LibibverbsDetailsConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyLibibverbsDetailsIT extends LibibverbsDetailsConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
