package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.Peer;
import io.github.verbs4j.verbs.conformance.SrqFlowControlStressConformance;
import java.util.Map;

/** {@link SrqFlowControlStressConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalSrqFlowControlStressTest extends SrqFlowControlStressConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }

  @Override
  protected Map<String, String> stopResendSettings() {
    return IbSrqStopResend.SETTINGS;
  }

  @Override
  protected void assertStopsAndResends(Peer p, boolean receiver) {
    IbSrqStopResend.assertStoppedAndResumed(p, receiver);
  }
}
