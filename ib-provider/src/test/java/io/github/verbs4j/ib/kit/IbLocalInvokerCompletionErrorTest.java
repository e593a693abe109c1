package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.CompletionErrorConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link CompletionErrorConformance} on the ib provider with {@code verbs.threading=invoker}, both ranks in this JVM. */
public class IbLocalInvokerCompletionErrorTest extends CompletionErrorConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_INVOKER;
  }
}
