package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.AtomicConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link AtomicConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric, with
 * the engines and the fabric's I/O on the callers' threads.
 */
public class IbNettyInvokerAtomicIT extends AtomicConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC_INVOKER;
  }
}
