package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.DcConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DcConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalDcTest extends DcConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
