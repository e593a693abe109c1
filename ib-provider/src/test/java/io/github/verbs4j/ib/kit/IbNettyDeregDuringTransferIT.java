package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DeregDuringTransferConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DeregDuringTransferConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyDeregDuringTransferIT extends DeregDuringTransferConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
