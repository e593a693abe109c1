package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DataIntegrityConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DataIntegrityConformance} on the ib provider with {@code verbs.threading=invoker}, both ranks in this JVM. */
public class IbLocalInvokerDataIntegrityTest extends DataIntegrityConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL_INVOKER;
  }
}
