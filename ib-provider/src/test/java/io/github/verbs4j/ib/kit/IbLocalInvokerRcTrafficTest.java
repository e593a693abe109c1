package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RcTrafficConformance} on the ib provider with {@code verbs.threading=invoker}, both ranks in this JVM. */
public class IbLocalInvokerRcTrafficTest extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_INVOKER;
  }
}
