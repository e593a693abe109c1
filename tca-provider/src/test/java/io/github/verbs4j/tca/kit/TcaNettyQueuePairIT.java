package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.QueuePairConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link QueuePairConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyQueuePairIT extends QueuePairConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
