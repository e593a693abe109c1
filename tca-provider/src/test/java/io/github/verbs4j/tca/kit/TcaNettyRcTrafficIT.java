package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RcTrafficConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyRcTrafficIT extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
