package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.CompletionQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionQueueConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyCompletionQueueIT extends CompletionQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
