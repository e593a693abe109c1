package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.RnrFlowConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RnrFlowConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyRnrFlowIT extends RnrFlowConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
