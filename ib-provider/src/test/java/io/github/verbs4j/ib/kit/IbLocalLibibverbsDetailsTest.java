package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LibibverbsDetailsConformance;

/** {@link LibibverbsDetailsConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalLibibverbsDetailsTest extends LibibverbsDetailsConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
