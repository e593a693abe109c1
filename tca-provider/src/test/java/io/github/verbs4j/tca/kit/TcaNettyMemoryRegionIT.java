package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.MemoryRegionConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link MemoryRegionConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyMemoryRegionIT extends MemoryRegionConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
