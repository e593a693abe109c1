package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.InlineConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link InlineConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyInlineIT extends InlineConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
