package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link RcTrafficConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric's TCP
 * connections with mutual TLS ({@code verbs.fabric.tls=on}) on the data and coordinator
 * connections.
 */
public class IbNettyTlsRcTrafficIT extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC_TLS;
  }
}
