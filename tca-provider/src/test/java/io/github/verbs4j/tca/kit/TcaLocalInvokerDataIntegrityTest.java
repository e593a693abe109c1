package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.DataIntegrityConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DataIntegrityConformance} on the tca provider, both ranks in this JVM, with the proxies run by the callers, deliveries and timers ({@code verbs.threading=invoker}). */
public class TcaLocalInvokerDataIntegrityTest extends DataIntegrityConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL_INVOKER;
  }
}
