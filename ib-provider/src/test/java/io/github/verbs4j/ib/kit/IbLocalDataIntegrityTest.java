package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DataIntegrityConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DataIntegrityConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalDataIntegrityTest extends DataIntegrityConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
