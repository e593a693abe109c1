package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.PortCounters;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Seed 002's SRQ flow control (stop and resend requests instead of RNR NAKs), end to end: many
 * senders stream SENDs into one shared receive queue that runs dry again and again, receives
 * posted late and in batches; every message completes SUCCESS, byte-exact, in order per sender,
 * and no RNR NAK and no {@code retry_cnt} was spent — the senders were stopped and asked to resend.
 * The same scenario without stop-resend is RNR NAKed (the baseline the paper improves on).
 *
 * <p>Rank 0 receives: one SRQ, one RC QP per sender. Ranks 1.. send {@link #MESSAGES} multi-packet
 * SENDs each. Rank 0 starts with {@link #FIRST} receives, waits until they complete, pauses
 * {@link #LATE} (the senders are now held), then posts {@link #BATCH} at a time, each batch once
 * the previous one completed.
 *
 * <p>Capabilities: the stop-resend scenario needs {@link Capability#SRQ_STOP_RESEND}, switched on
 * by the configuration {@link #stopResendSettings()} returns (a provider-specific key; empty: the
 * provider cannot, and both scenarios skip). What the device counted — stop and resend requests —
 * is provider-specific too: {@link #assertStopsAndResends} (default: nothing checked beyond the port
 * counters). Subclass it and return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class SrqFlowControlConformance extends AbstractConformance {
  /** SENDs per sender. */
  private static final int MESSAGES = 24;
  /** Two packets at MTU 1024, the last one short. */
  private static final int MSG = 1024 + 37;
  /** Receives posted before the senders start. */
  private static final int FIRST = 4;
  /** Receives posted per later batch. */
  private static final int BATCH = 8;
  private static final Duration LATE = Duration.ofMillis(200);
  /** About 1 s local ACK timeout: a busy machine must not look like a lost packet. */
  private static final int TIMEOUT = 18;
  /** Faults on every link of the lossy scenario, seeded. */
  private static final Map<String, String> LOSSY = Map.of("verbs.fault.drop", "0.01", "verbs.fault.duplicate", "0.01",
      "verbs.fault.seed", "2");
  /** SENDs per sender in the lossy scenario. */
  private static final int LOSSY_MESSAGES = 1000;
  /** 67 ms: losses are recovered by timeouts (and lost resend requests by 4 of them). */
  private static final int LOSSY_TIMEOUT = 14;

  /**
   * @return the configuration that switches the provider's SRQ flow control to stop-resend, or an
   *     empty map if it has none
   */
  protected Map<String, String> stopResendSettings() {
    return Map.of();
  }

  /**
   * Checks what the provider counted on this rank (stop requests sent and resend requests sent at
   * the receiver; stop requests received and resumes at a sender). Default: nothing.
   *
   * @param p the rank
   * @param receiver whether it is the receiving rank
   */
  protected void assertStopsAndResends(Peer p, boolean receiver) {}

  /** Three ranks: two senders into one SRQ that runs dry; stop-resend, no RNR NAK. */
  @Test
  public void twoSendersIntoADrySrqAreStoppedAndResumedWithoutRnrNaksOrRetries() {
    Assumptions.assumeFalse(stopResendSettings().isEmpty(), "the provider has no stop-resend SRQ flow control");
    spmd(3, "stopResendBody", stopResendSettings());
  }

  /** Four ranks: three senders into one SRQ that runs dry; stop-resend, no RNR NAK. */
  @Test
  public void threeSendersIntoADrySrqAreStoppedAndResumedWithoutRnrNaksOrRetries() {
    Assumptions.assumeFalse(stopResendSettings().isEmpty(), "the provider has no stop-resend SRQ flow control");
    spmd(4, "stopResendBody", stopResendSettings());
  }

  /**
   * Three senders, 1,000 SENDs each, over links that drop 1 % and duplicate 1 % of the frames
   * (seeded): stop and resend requests get lost and duplicated too, and still every message
   * arrives exactly once, in order, byte-exact, with no RNR NAK. (Losses may spend {@code
   * retry_cnt}; a lost resend request is made good by the sender's stop timer.)
   */
  @Test
  public void threeSendersIntoADrySrqOverALossyFabricLoseNothing() {
    Assumptions.assumeFalse(stopResendSettings().isEmpty(), "the provider has no stop-resend SRQ flow control");
    Map<String, String> s = new java.util.HashMap<>(stopResendSettings());
    s.putAll(LOSSY);
    spmd(4, "lossyBody", s);
  }

  /**
   * Body of {@link #threeSendersIntoADrySrqOverALossyFabricLoseNothing()}.
   *
   * @param p the rank
   */
  public void lossyBody(Peer p) {
    assumeCapability(p, Capability.SRQ_STOP_RESEND);
    PortCounters d = stream(p, LOSSY_MESSAGES, LOSSY_TIMEOUT);
    if (p.rank() == 0) {
      assertEquals(0, d.get(PortCounter.SEND_RNR_ERR), () -> "stop-resend sends no RNR NAK: " + d);
    } else {
      assertEquals(0, d.get(PortCounter.RCVD_RNR_ERR), () -> "rank " + p.rank() + ": " + d);
      assertEquals(0, d.get(PortCounter.RETRY_EXCEEDED_ERR), () -> "rank " + p.rank() + ": " + d);
    }
    p.barrier("checked");
  }

  /** The four-rank scenario with the provider's default flow control: the senders are RNR NAKed. */
  @Test
  public void withoutStopResendTheSameSendersAreRnrNaked() {
    Assumptions.assumeFalse(stopResendSettings().isEmpty(), "the provider has no stop-resend SRQ flow control");
    spmd(4, "rnrBody");
  }

  /**
   * Body of the stop-resend scenarios.
   *
   * @param p the rank
   */
  public void stopResendBody(Peer p) {
    assumeCapability(p, Capability.SRQ_STOP_RESEND);
    PortCounters d = stream(p, MESSAGES, TIMEOUT);
    if (p.rank() == 0) {
      assertEquals(0, d.get(PortCounter.SEND_RNR_ERR), () -> "stop-resend sends no RNR NAK: " + d);
    } else {
      assertEquals(0, d.get(PortCounter.RCVD_RNR_ERR), () -> "rank " + p.rank() + ": " + d);
      assertEquals(0, d.get(PortCounter.COMPLETER_RETRY_ERR), () -> "a stop spends no retry_cnt: " + d);
      assertEquals(0, d.get(PortCounter.LOCAL_ACK_TIMEOUT_ERR), () -> "no timeout while stopped: " + d);
    }
    assertStopsAndResends(p, p.rank() == 0);
    p.barrier("checked");
  }

  /**
   * Body of {@link #withoutStopResendTheSameSendersAreRnrNaked()}.
   *
   * @param p the rank
   */
  public void rnrBody(Peer p) {
    Assumptions.assumeFalse(p.ctx().queryDevice().has(Capability.SRQ_STOP_RESEND),
        "stop-resend is the device's default");
    PortCounters d = stream(p, MESSAGES, TIMEOUT);
    if (p.rank() == 0) {
      assertTrue(d.get(PortCounter.SEND_RNR_ERR) >= 1, () -> "the dry SRQ RNR NAKed the senders: " + d);
    } else {
      assertTrue(d.get(PortCounter.RCVD_RNR_ERR) >= 1, () -> "rank " + p.rank() + " was RNR NAKed: " + d);
      assertEquals(0, d.get(PortCounter.COMPLETER_RETRY_ERR), () -> "RNR NAKs spend no retry_cnt: " + d);
    }
    p.barrier("checked");
  }

  private static long seed(int sender, int message) {
    return 0x5EC0_0000L + sender * 1000L + message;
  }

  /**
   * The stream: every SEND arrives once, in order per sender, byte-exact.
   *
   * @return this rank's port counters over the stream
   */
  private static PortCounters stream(Peer p, int messages, int timeout) {
    int n = p.size();
    int me = p.rank();
    int senders = n - 1;
    try (Closer closer = new Closer()) {
      ProtectionDomain pd = closer.add(p.ctx().allocPd());
      int total = senders * messages;
      CompletionQueue cq = closer.add(p.ctx().createCq(total + 16, null, 0));
      MemoryRegion mr = closer.add(pd.allocateMemory((long) (me == 0 ? total : messages) * MSG,
          EnumSet.of(Access.LOCAL_WRITE)));
      QueuePair[] qps = new QueuePair[n];
      SharedReceiveQueue srq = null;
      long[] mine = new long[1 + n];
      mine[0] = p.ctx().queryPort(1).lid();
      if (me == 0) {
        srq = closer.add(pd.createSrq(SrqAttr.of(Math.max(FIRST, BATCH), 1)));
        for (int r = 1; r < n; r++) {
          qps[r] = closer.add(pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq).srq(srq)
              .cap(new QpCap(4, 0, 1, 0, 0)).build()));
          mine[1 + r] = qps[r].qpNum();
        }
      } else {
        qps[0] = closer.add(pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq)
            .cap(new QpCap(messages, 1, 1, 1, 0)).build()));
        mine[1] = qps[0].qpNum();
        for (int i = 0; i < messages; i++) {
          Patterns.fill(mr.buffer(), i * MSG, MSG, seed(me, i));
        }
      }
      long[][] all = p.allGather("connections", mine);
      if (me == 0) {
        for (int r = 1; r < n; r++) {
          connect(qps[r], (int) all[r][0], (int) all[r][1], timeout);
        }
        for (int i = 0; i < FIRST; i++) {
          srq.postRecv(new RecvWr().wrId(i).sge(mr, (long) i * MSG, MSG));
        }
      } else {
        connect(qps[0], (int) all[0][0], (int) all[0][1 + me], timeout);
      }
      PortCounters before = p.ctx().queryPortCounters(1);
      p.barrier("ready");
      if (me == 0) {
        receive(p, srq, cq, mr, qps, total, messages);
      } else {
        for (int i = 0; i < messages; i++) {
          qps[0].postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(mr, (long) i * MSG, MSG));
        }
        List<WorkCompletion> wcs = p.pollUntil(cq, messages);
        for (int i = 0; i < messages; i++) {
          WorkCompletion wc = wcs.get(i);
          KitAssertions.assertWc(wc, i, WcStatus.SUCCESS, WcOpcode.SEND, qps[0].qpNum());
        }
        assertEquals(QpState.RTS, qps[0].state());
      }
      PortCounters d = p.ctx().queryPortCounters(1).minus(before);
      p.barrier("done");
      if (me == 0) {
        p.expectNoCompletion(cq, Duration.ofMillis(50)); // each message exactly once
      }
      return d;
    }
  }

  /** Rank 0: FIRST receives, a pause, then batches; checks order per sender and the bytes. */
  private static void receive(Peer p, SharedReceiveQueue srq, CompletionQueue cq, MemoryRegion mr, QueuePair[] qps,
      int total, int messages) {
    int[] next = new int[qps.length];
    int posted = FIRST;
    int done = 0;
    while (done < total) {
      List<WorkCompletion> wcs = p.pollUntil(cq, posted - done);
      for (WorkCompletion wc : wcs) {
        assertEquals(WcStatus.SUCCESS, wc.status(), () -> "receive " + wc);
        assertEquals(WcOpcode.RECV, wc.opcode(), () -> wc.toString());
        assertEquals(MSG, wc.byteLen(), () -> "byte_len of " + wc);
        int sender = senderOf(qps, wc.qpNum());
        int k = next[sender]++;
        Patterns.verify("message " + k + " of rank " + sender + " (in order per sender)", mr.buffer(),
            (int) wc.wrId() * MSG, MSG, seed(sender, k));
      }
      done = posted;
      if (done == FIRST) {
        p.pause(LATE); // the SRQ is dry: every sender is held now
      }
      int end = Math.min(total, posted + BATCH);
      for (int i = posted; i < end; i++) {
        srq.postRecv(new RecvWr().wrId(i).sge(mr, (long) i * MSG, MSG));
      }
      posted = end;
    }
    for (int r = 1; r < qps.length; r++) {
      assertEquals(messages, next[r], "messages from rank " + r);
      assertEquals(QpState.RTS, qps[r].state(), "flow control leaves the connection up");
    }
  }

  private static int senderOf(QueuePair[] qps, int qpNum) {
    for (int r = 1; r < qps.length; r++) {
      if (qps[r].qpNum() == qpNum) {
        return r;
      }
    }
    throw new AssertionError("a receive completed on QP " + qpNum + ", which no sender is connected to");
  }

  private static void connect(QueuePair qp, int lid, int qpn, int timeout) {
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
        .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE)));
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(qpn).rqPsn(0).maxDestRdAtomic(1)
        .minRnrTimer(1).ahAttr(AhAttr.lid(lid)));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(timeout).retryCnt(7).rnrRetry(7)
        .maxRdAtomic(1));
  }
}
