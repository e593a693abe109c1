package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.SharedReceiveQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link SharedReceiveQueueConformance} on the ib provider with {@code verbs.threading=invoker}, both ranks in this JVM. */
public class IbLocalInvokerSharedReceiveQueueTest extends SharedReceiveQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_INVOKER;
  }
}
