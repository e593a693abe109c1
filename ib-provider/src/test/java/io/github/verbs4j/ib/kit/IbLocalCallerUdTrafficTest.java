package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.UdTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link UdTrafficConformance} on the ib provider with {@code verbs.ib.threading=caller}, both ranks in this JVM. */
public class IbLocalCallerUdTrafficTest extends UdTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_CALLER;
  }
}
