package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.InlineConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link InlineConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyInlineIT extends InlineConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.NETTY_2PROC;
  }
}
