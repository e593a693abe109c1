package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.MemoryAccountingConformance;

/** {@link MemoryAccountingConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyMemoryAccountingIT extends MemoryAccountingConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
