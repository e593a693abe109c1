package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.SharedReceiveQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link SharedReceiveQueueConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalSharedReceiveQueueTest extends SharedReceiveQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
