package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.Peer;
import io.github.verbs4j.verbs.conformance.SrqFlowControlConformance;
import java.util.Map;

/** {@link SrqFlowControlConformance} on the ib provider, ranks 1 and up each in a child JVM, over the netty fabric. */
public class IbNettySrqFlowControlIT extends SrqFlowControlConformance {
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
    IbSrqStopResend.assertCounters(p, receiver);
  }
}
