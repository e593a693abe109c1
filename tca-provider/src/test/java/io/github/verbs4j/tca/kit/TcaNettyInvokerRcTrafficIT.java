package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RcTrafficConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric, with the proxies and the fabric's I/O on the
 * callers' threads ({@code verbs.threading=invoker}). */
public class TcaNettyInvokerRcTrafficIT extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC_INVOKER;
  }
}
