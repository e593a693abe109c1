package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.CompletionChannelConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionChannelConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyCompletionChannelIT extends CompletionChannelConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
