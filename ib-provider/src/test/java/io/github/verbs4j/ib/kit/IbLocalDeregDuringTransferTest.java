package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DeregDuringTransferConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DeregDuringTransferConformance} on the ib provider, both ranks in this JVM. */
public class IbLocalDeregDuringTransferTest extends DeregDuringTransferConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
