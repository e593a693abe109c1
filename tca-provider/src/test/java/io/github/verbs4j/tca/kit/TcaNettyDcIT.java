package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.DcConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DcConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyDcIT extends DcConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
