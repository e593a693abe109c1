package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.ProtectionDomainConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link ProtectionDomainConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyProtectionDomainIT extends ProtectionDomainConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
