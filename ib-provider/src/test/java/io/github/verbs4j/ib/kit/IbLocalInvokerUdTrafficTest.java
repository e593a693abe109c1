package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.UdTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link UdTrafficConformance} on the ib provider with {@code verbs.threading=invoker}, both ranks in this JVM. */
public class IbLocalInvokerUdTrafficTest extends UdTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_INVOKER;
  }
}
