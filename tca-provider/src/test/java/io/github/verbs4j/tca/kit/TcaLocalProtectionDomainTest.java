package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.ProtectionDomainConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link ProtectionDomainConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalProtectionDomainTest extends ProtectionDomainConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
