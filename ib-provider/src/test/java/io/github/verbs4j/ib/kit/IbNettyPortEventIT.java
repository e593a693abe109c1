package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.PortEventConformance;

/** {@link PortEventConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyPortEventIT extends PortEventConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
