package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DataIntegrityConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link DataIntegrityConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric's
 * TCP connections with mutual TLS ({@code verbs.fabric.tls=on}) on the data and coordinator
 * connections.
 */
public class IbNettyTlsDataIntegrityIT extends DataIntegrityConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC_TLS;
  }
}
