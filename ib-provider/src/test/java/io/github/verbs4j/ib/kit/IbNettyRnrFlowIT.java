package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.RnrFlowConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RnrFlowConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyRnrFlowIT extends RnrFlowConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
