package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.LivePsnConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link LivePsnConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalLivePsnTest extends LivePsnConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
