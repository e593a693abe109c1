package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.RnrFlowConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link RnrFlowConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalRnrFlowTest extends RnrFlowConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
