package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.LivePsnConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link LivePsnConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyLivePsnIT extends LivePsnConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
