package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DcConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DcConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyDcIT extends DcConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
