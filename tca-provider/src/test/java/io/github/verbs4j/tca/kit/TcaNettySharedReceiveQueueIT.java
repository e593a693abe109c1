package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.SharedReceiveQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link SharedReceiveQueueConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettySharedReceiveQueueIT extends SharedReceiveQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
