package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.CompletionErrorConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionErrorConformance} on the tca provider, both ranks in this JVM, with the proxies run by the callers, deliveries and timers ({@code verbs.threading=invoker}). */
public class TcaLocalInvokerCompletionErrorTest extends CompletionErrorConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL_INVOKER;
  }
}
