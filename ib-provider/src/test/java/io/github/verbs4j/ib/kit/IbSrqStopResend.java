package io.github.verbs4j.ib.kit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.ib.IbContext;
import io.github.verbs4j.ib.engine.IbCounters;
import io.github.verbs4j.ib.engine.IbCounters.Counter;
import io.github.verbs4j.verbs.conformance.Peer;
import java.util.Map;

/** What the ib subclasses of {@code SrqFlowControlConformance} share: the setting and the counters. */
final class IbSrqStopResend {
  /** Switches the device's SRQ flow control to seed-002 stop-resend. */
  static final Map<String, String> SETTINGS = Map.of("verbs.ib.srq-flow-control", "stop-resend");

  private IbSrqStopResend() {}

  /**
   * The receiver sent stop and resend requests; each sender received stops and resumed (by a
   * resend request, or by its stop timer's probe).
   */
  static void assertCounters(Peer p, boolean receiver) {
    IbCounters c = ((IbContext) p.ctx()).counters();
    String all = "rank " + p.rank() + ": stops sent " + c.get(Counter.SRQ_STOPS_SENT) + ", received "
        + c.get(Counter.SRQ_STOPS_RECEIVED) + "; resends sent " + c.get(Counter.SRQ_RESENDS_SENT) + ", received "
        + c.get(Counter.SRQ_RESENDS_RECEIVED) + "; probes " + c.get(Counter.SRQ_STOP_PROBES) + "; RNR NAKs "
        + c.get(Counter.RNR_NAKS_SENT) + "/" + c.get(Counter.RNR_NAKS_RECEIVED) + "; retries "
        + c.get(Counter.TRANSPORT_RETRIES) + "/" + c.get(Counter.RNR_RETRIES);
    if (receiver) {
      assertTrue(c.get(Counter.SRQ_STOPS_SENT) >= 1, all);
      assertTrue(c.get(Counter.SRQ_RESENDS_SENT) >= 1, all);
      assertTrue(c.get(Counter.RNR_NAKS_SENT) == 0, all);
    } else {
      assertTrue(c.get(Counter.SRQ_STOPS_RECEIVED) >= 1, all);
      assertTrue(c.get(Counter.SRQ_RESENDS_RECEIVED) + c.get(Counter.SRQ_STOP_PROBES) >= 1, all);
      assertTrue(c.get(Counter.TRANSPORT_RETRIES) == 0 && c.get(Counter.RNR_RETRIES) == 0, all);
    }
  }

  /**
   * Over a lossy fabric: the receiver sent stop and resend requests and no RNR NAK; the senders
   * were stopped and resumed (losses may spend retries there).
   */
  static void assertStoppedAndResumed(Peer p, boolean receiver) {
    IbCounters c = ((IbContext) p.ctx()).counters();
    String all = "rank " + p.rank() + ": stops sent " + c.get(Counter.SRQ_STOPS_SENT) + ", received "
        + c.get(Counter.SRQ_STOPS_RECEIVED) + "; resends sent " + c.get(Counter.SRQ_RESENDS_SENT) + ", received "
        + c.get(Counter.SRQ_RESENDS_RECEIVED) + ", ignored " + c.get(Counter.SRQ_RESENDS_IGNORED) + "; probes "
        + c.get(Counter.SRQ_STOP_PROBES) + "; polls " + c.get(Counter.SRQ_POLLS) + "; RNR NAKs "
        + c.get(Counter.RNR_NAKS_SENT) + "/" + c.get(Counter.RNR_NAKS_RECEIVED) + "; retries "
        + c.get(Counter.TRANSPORT_RETRIES) + "; timeouts " + c.get(Counter.TIMEOUTS);
    if (receiver) {
      assertTrue(c.get(Counter.SRQ_STOPS_SENT) >= 1, all);
      assertTrue(c.get(Counter.SRQ_RESENDS_SENT) >= 1, all);
      assertTrue(c.get(Counter.RNR_NAKS_SENT) == 0, all);
    } else {
      assertTrue(c.get(Counter.SRQ_STOPS_RECEIVED) >= 1, all);
      assertTrue(c.get(Counter.SRQ_RESENDS_RECEIVED) >= 1, all);
      assertTrue(c.get(Counter.RNR_NAKS_RECEIVED) == 0, all);
    }
  }
}
