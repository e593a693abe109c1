package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.MemoryAccountingConformance;

/** {@link MemoryAccountingConformance} on the ib provider, in this JVM on the local fabric. */
public class IbLocalMemoryAccountingTest extends MemoryAccountingConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
