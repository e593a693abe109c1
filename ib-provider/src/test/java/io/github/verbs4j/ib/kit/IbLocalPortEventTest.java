package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.PortEventConformance;

/** {@link PortEventConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalPortEventTest extends PortEventConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
