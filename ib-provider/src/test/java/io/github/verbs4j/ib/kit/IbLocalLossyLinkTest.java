package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LossyLinkConformance;

/** {@link LossyLinkConformance} on the ib provider, both ranks in this JVM on the local fabric: RC recovers by retransmission. */
public class IbLocalLossyLinkTest extends LossyLinkConformance {
  @Override
  protected KitEnvironment environment() {
    return guarded(IbKit.LOCAL);
  }
}
