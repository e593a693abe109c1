package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.CompletionChannelConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionChannelConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalCompletionChannelTest extends CompletionChannelConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
