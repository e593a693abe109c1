package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.LivePsnConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link LivePsnConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyLivePsnIT extends LivePsnConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
