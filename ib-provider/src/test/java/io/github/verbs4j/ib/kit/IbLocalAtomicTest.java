package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.AtomicConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link AtomicConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalAtomicTest extends AtomicConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
