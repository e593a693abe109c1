package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RcTrafficConformance} on the tca provider, both ranks in this JVM, with the proxies run by the callers, deliveries and timers ({@code verbs.threading=invoker}). */
public class TcaLocalInvokerRcTrafficTest extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL_INVOKER;
  }
}
