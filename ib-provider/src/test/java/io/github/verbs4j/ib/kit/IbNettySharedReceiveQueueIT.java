package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.SharedReceiveQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link SharedReceiveQueueConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettySharedReceiveQueueIT extends SharedReceiveQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
