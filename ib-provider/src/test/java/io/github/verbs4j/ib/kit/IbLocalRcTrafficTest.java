package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RcTrafficConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalRcTrafficTest extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
