package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.AsyncEventConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link AsyncEventConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyAsyncEventIT extends AsyncEventConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
