package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.QueuePairConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link QueuePairConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyQueuePairIT extends QueuePairConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
