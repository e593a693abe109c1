package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.CompletionErrorConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link CompletionErrorConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric, with
 * the engines and the fabric's I/O on the callers' threads.
 */
public class IbNettyInvokerCompletionErrorIT extends CompletionErrorConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC_INVOKER;
  }
}
