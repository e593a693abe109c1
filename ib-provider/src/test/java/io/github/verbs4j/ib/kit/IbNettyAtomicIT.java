package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.AtomicConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link AtomicConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyAtomicIT extends AtomicConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
