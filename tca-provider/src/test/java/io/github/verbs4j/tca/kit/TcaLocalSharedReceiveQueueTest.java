package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.SharedReceiveQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link SharedReceiveQueueConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalSharedReceiveQueueTest extends SharedReceiveQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
