package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.UdTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link UdTrafficConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric, with
 * the engines and the fabric's I/O on the callers' threads.
 */
public class IbNettyInvokerUdTrafficIT extends UdTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC_INVOKER;
  }
}
