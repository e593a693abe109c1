package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.DeregDuringTransferConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DeregDuringTransferConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyDeregDuringTransferIT extends DeregDuringTransferConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
