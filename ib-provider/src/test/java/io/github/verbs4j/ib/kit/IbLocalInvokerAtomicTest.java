package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.AtomicConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link AtomicConformance} on the ib provider with {@code verbs.threading=invoker}, both ranks in this JVM. */
public class IbLocalInvokerAtomicTest extends AtomicConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_INVOKER;
  }
}
