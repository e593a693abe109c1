package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.DataIntegrityConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DataIntegrityConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalDataIntegrityTest extends DataIntegrityConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
