package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.UdTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link UdTrafficConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalUdTrafficTest extends UdTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
