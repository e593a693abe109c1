package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.AsyncEventConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link AsyncEventConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyAsyncEventIT extends AsyncEventConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
