package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LossyLinkConformance;

/** {@link LossyLinkConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric: RC recovers by retransmission. */
public class IbNettyLossyLinkIT extends LossyLinkConformance {
  @Override
  protected KitEnvironment environment() {
    return guarded(IbKit.NETTY_2PROC);
  }
}
