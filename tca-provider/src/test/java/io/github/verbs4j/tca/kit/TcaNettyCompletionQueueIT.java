package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.CompletionQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionQueueConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyCompletionQueueIT extends CompletionQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
