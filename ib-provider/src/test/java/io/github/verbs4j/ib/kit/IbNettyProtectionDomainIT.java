package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.ProtectionDomainConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link ProtectionDomainConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyProtectionDomainIT extends ProtectionDomainConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
