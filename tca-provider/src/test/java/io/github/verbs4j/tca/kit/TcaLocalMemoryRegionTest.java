package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.MemoryRegionConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link MemoryRegionConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalMemoryRegionTest extends MemoryRegionConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
