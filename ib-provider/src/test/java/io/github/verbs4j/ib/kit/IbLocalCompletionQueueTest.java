package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.CompletionQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionQueueConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalCompletionQueueTest extends CompletionQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
