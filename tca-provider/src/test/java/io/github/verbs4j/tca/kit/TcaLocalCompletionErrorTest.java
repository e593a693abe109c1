package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.CompletionErrorConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionErrorConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalCompletionErrorTest extends CompletionErrorConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
