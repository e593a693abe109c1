package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.MemoryRegionConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link MemoryRegionConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalMemoryRegionTest extends MemoryRegionConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
