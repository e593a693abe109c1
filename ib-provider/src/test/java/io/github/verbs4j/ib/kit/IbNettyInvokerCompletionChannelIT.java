package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.CompletionChannelConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link CompletionChannelConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric, with
 * the engines and the fabric's I/O on the callers' threads.
 */
public class IbNettyInvokerCompletionChannelIT extends CompletionChannelConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC_INVOKER;
  }
}
