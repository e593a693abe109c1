package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.InlineConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link InlineConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalInlineTest extends InlineConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
