package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.MemoryRegionConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link MemoryRegionConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyMemoryRegionIT extends MemoryRegionConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
