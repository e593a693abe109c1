package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.SrqFlowControlConformance;

/** {@link SrqFlowControlConformance} on the tca provider, ranks 1 and up each in a child JVM, over the netty fabric. */
public class TcaNettySrqFlowControlIT extends SrqFlowControlConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
