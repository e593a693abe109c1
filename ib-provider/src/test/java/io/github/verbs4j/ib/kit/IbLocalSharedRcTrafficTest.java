package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.RcTrafficConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RcTrafficConformance} on the ib provider with {@code verbs.threading=shared}, both ranks in this JVM (one engine thread runs both devices). */
public class IbLocalSharedRcTrafficTest extends RcTrafficConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_SHARED;
  }
}
