package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.FabricKit;
import io.github.verbs4j.verbs.conformance.PeerKilledScenario;

/** {@link PeerKilledScenario} on the tca provider: three processes, rank 1 killed with SIGKILL. */
class TcaPeerKilledIT extends PeerKilledScenario {
  @Override
  protected String provider() {
    return "tca";
  }

  @Override
  protected FabricKit.Started startCoordinator() {
    return TcaKit.coordinator();
  }
}
