package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.CompletionQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionQueueConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalCompletionQueueTest extends CompletionQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
