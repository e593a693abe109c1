package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.UdTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link UdTrafficConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyUdTrafficIT extends UdTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
