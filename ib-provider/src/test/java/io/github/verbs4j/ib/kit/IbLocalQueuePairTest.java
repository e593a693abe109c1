package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.QueuePairConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link QueuePairConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalQueuePairTest extends QueuePairConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
