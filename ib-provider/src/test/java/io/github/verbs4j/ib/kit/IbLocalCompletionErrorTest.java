package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.CompletionErrorConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionErrorConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalCompletionErrorTest extends CompletionErrorConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
