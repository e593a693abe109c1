package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.CompletionChannelConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionChannelConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalCompletionChannelTest extends CompletionChannelConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
