package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.DeregDuringTransferConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DeregDuringTransferConformance} on the tca provider, both ranks in this JVM. */
public class TcaLocalDeregDuringTransferTest extends DeregDuringTransferConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
