package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.ProtectionDomainConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link ProtectionDomainConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalProtectionDomainTest extends ProtectionDomainConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
