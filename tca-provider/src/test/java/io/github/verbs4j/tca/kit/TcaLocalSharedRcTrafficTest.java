package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RcTrafficConformance} on the tca provider, both ranks in this JVM, one engine thread running both proxies ({@code verbs.threading=shared}). */
public class TcaLocalSharedRcTrafficTest extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL_SHARED;
  }
}
