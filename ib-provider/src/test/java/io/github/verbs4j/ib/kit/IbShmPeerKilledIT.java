package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.FabricKit;
import io.github.verbs4j.verbs.conformance.PeerKilledScenario;
import java.util.Map;

/**
 * {@link PeerKilledScenario} on the ib provider with every data frame in shared-memory rings
 * ({@code verbs.fabric.shm=required}): three processes, rank 1 killed with SIGKILL.
 */
class IbShmPeerKilledIT extends PeerKilledScenario {
  @Override
  protected String provider() {
    return "ib";
  }

  @Override
  protected FabricKit.Started startCoordinator() {
    return IbKit.coordinator();
  }

  @Override
  protected Map<String, String> extraSettings() {
    return Map.of("verbs.fabric.shm", "required");
  }
}
