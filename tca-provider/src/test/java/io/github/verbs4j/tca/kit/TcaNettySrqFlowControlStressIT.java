package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.SrqFlowControlStressConformance;

/** {@link SrqFlowControlStressConformance} on the tca provider, ranks 1 and up each in a child JVM, over the netty fabric. */
public class TcaNettySrqFlowControlStressIT extends SrqFlowControlStressConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
