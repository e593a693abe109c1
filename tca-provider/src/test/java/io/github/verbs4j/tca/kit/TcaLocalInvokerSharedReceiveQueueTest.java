package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.SharedReceiveQueueConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link SharedReceiveQueueConformance} on the tca provider, both ranks in this JVM, with the proxies run by the callers, deliveries and timers ({@code verbs.threading=invoker}). */
public class TcaLocalInvokerSharedReceiveQueueTest extends SharedReceiveQueueConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL_INVOKER;
  }
}
