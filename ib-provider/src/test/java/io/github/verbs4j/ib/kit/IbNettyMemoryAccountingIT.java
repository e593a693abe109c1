package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.MemoryAccountingConformance;

/** {@link MemoryAccountingConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyMemoryAccountingIT extends MemoryAccountingConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
