package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.PortEventConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link PortEventConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyPortEventIT extends PortEventConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
