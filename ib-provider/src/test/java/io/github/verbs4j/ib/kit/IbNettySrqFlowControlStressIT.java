package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.Peer;
import io.github.verbs4j.verbs.conformance.SrqFlowControlStressConformance;
import java.util.Map;

/** {@link SrqFlowControlStressConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettySrqFlowControlStressIT extends SrqFlowControlStressConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
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
