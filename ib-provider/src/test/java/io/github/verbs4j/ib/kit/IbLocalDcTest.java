package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DcConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DcConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalDcTest extends DcConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
