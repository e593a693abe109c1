package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.SharedReceiveQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link SharedReceiveQueueConformance} on the ib provider with {@code verbs.ib.threading=caller}, both ranks in this JVM. */
public class IbLocalCallerSharedReceiveQueueTest extends SharedReceiveQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_CALLER;
  }
}
