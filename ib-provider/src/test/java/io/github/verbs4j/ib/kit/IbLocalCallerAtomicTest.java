package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.AtomicConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link AtomicConformance} on the ib provider with {@code verbs.ib.threading=caller}, both ranks in this JVM. */
public class IbLocalCallerAtomicTest extends AtomicConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_CALLER;
  }
}
