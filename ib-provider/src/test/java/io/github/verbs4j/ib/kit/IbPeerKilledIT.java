package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.FabricKit;
import io.github.verbs4j.verbs.conformance.PeerKilledScenario;

/** {@link PeerKilledScenario} on the ib provider: three processes, rank 1 killed with SIGKILL. */
class IbPeerKilledIT extends PeerKilledScenario {
  @Override
  protected String provider() {
    return "ib";
  }

  @Override
  protected FabricKit.Started startCoordinator() {
    return IbKit.coordinator();
  }
}
