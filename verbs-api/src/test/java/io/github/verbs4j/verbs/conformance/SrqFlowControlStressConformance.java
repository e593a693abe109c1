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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 19's stress of seed 002's SRQ flow control, scaled to run in seconds: {@link #SENDERS} RC
 * senders in one rank stream {@link #MESSAGES} SENDs each into one shared receive queue of depth
 * {@link #DEPTH} in another, which the receiving application refills one receive per completion
 * (the SRQ runs dry all the time), over links that drop and duplicate 1 % of the frames each
 * (seeded). With stop-resend and {@code rnr_retry} 0, every message arrives exactly once, in order
 * per sender, byte-exact, and every sender completes SUCCESS: no RNR NAK is sent and no retry
 * count runs out. With the provider's default flow control (RNR NAK) and {@code rnr_retry} 0 the
 * same traffic ends in {@code RNR_RETRY_EXC_ERR}: the baseline the paper motivates its proposal
 * with.
 *
 * <p>Capabilities: the stop-resend scenario needs {@link Capability#SRQ_STOP_RESEND}, switched on
 * by {@link #stopResendSettings()} (a provider-specific key; empty: both scenarios skip). Subclass
 * it and return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class SrqFlowControlStressConformance extends AbstractConformance {
  /** Sending QPs, all in rank 1, each connected to its own QP on the SRQ in rank 0. */
  public static final int SENDERS = 64;
  /** SENDs per sender. */
  public static final int MESSAGES = 25;
  /** SRQ depth (max_wr), all posted at the start. */
  public static final int DEPTH = 16;
  /** One packet at MTU 1024. */
  private static final int MSG = 200;
  /** Faults on every link, both directions, seeded. */
  public static final Map<String, String> LOSSY = Map.of("verbs.fault.drop", "0.01", "verbs.fault.duplicate", "0.01",
      "verbs.fault.seed", "19");
  /** How long the RNR scenario's receiver sees no completion before it stops refilling. */
  private static final Duration QUIET = Duration.ofMillis(500);
  /** 67 ms local ACK timeout (pyverbs' default). */
  private static final int TIMEOUT = 14;

  /**
   * @return the configuration that switches the provider's SRQ flow control to stop-resend, or an
   *     empty map if it has none
   */
  protected Map<String, String> stopResendSettings() {
    return Map.of();
  }

  /**
   * Checks what the provider counted on this rank. Default: nothing.
   *
   * @param p the rank
   * @param receiver whether it is the receiving rank
   */
  protected void assertStopsAndResends(Peer p, boolean receiver) {}

  /** 64 senders, one SRQ of 16, lossy links: stop-resend delivers everything, once, in order. */
  @Test
  public void sixtyFourSendersIntoASixteenDeepSrqOverALossyFabricLoseNothingWithoutRnr() {
    Assumptions.assumeFalse(stopResendSettings().isEmpty(), "the provider has no stop-resend SRQ flow control");
    Map<String, String> s = new HashMap<>(stopResendSettings());
    s.putAll(LOSSY);
    spmd(2, "stopResendBody", s);
  }

  /** The same traffic with RNR NAKs and rnr_retry 0: senders end in RNR_RETRY_EXC_ERR. */
  @Test
  public void withRnrAndNoRnrRetriesTheSameSendersFail() {
    Assumptions.assumeFalse(stopResendSettings().isEmpty(), "the provider has no stop-resend SRQ flow control");
    spmd(2, "rnrBody", LOSSY);
  }

  /**
   * Body of the stop-resend scenario.
   *
   * @param p the rank
   */
  public void stopResendBody(Peer p) {
    assumeCapability(p, Capability.SRQ_STOP_RESEND);
    try (Closer closer = new Closer()) {
      Ends e = connect(p, closer);
      PortCounters before = p.ctx().queryPortCounters(1);
      p.barrier("ready");
      if (p.rank() == 0) {
        receive(p, e);
      } else {
        send(e);
        for (QueuePair qp : e.qps) {
          assertEquals(QpState.RTS, qp.state());
        }
        int[] next = new int[SENDERS];
        for (WorkCompletion wc : p.pollUntil(e.cq, SENDERS * MESSAGES)) {
          int s = indexOf(e.qps, wc.qpNum());
          KitAssertions.assertWc(wc, next[s]++, WcStatus.SUCCESS, WcOpcode.SEND, wc.qpNum());
        }
      }
      PortCounters d = p.ctx().queryPortCounters(1).minus(before);
      p.barrier("done");
      if (p.rank() == 0) {
        p.expectNoCompletion(e.cq, Duration.ofMillis(50)); // each message exactly once
        assertEquals(0, d.get(PortCounter.SEND_RNR_ERR), () -> "stop-resend sends no RNR NAK: " + d);
      } else {
        assertEquals(0, d.get(PortCounter.RCVD_RNR_ERR), () -> "no RNR NAK arrived: " + d);
        assertEquals(0, d.get(PortCounter.RETRY_EXCEEDED_ERR), () -> "no retry count ran out: " + d);
      }
      assertStopsAndResends(p, p.rank() == 0);
      p.barrier("checked");
    }
  }

  /**
   * Body of {@link #withRnrAndNoRnrRetriesTheSameSendersFail()}.
   *
   * @param p the rank
   */
  public void rnrBody(Peer p) {
    Assumptions.assumeFalse(p.ctx().queryDevice().has(Capability.SRQ_STOP_RESEND),
        "stop-resend is the device's default");
    try (Closer closer = new Closer()) {
      Ends e = connect(p, closer);
      p.barrier("ready");
      if (p.rank() == 0) {
        refillUntilQuiet(e);
        p.barrier("senders done");
      } else {
        send(e);
        int failed = 0;
        int total = SENDERS * MESSAGES;
        for (WorkCompletion wc : p.pollUntil(e.cq, total)) {
          if (wc.status() == WcStatus.RNR_RETRY_EXC_ERR) {
            failed++;
          } else {
            assertTrue(wc.status() == WcStatus.SUCCESS || wc.status() == WcStatus.WR_FLUSH_ERR, wc::toString);
          }
        }
        assertTrue(failed >= 1, "with rnr_retry 0 a dry SRQ ends some sender in RNR_RETRY_EXC_ERR");
        p.barrier("senders done");
      }
      p.barrier("checked");
    }
  }

  /** One rank's resources. */
  private record Ends(QueuePair[] qps, CompletionQueue cq, MemoryRegion mr, SharedReceiveQueue srq) {}

  private static Ends connect(Peer p, Closer closer) {
    boolean receiver = p.rank() == 0;
    ProtectionDomain pd = closer.add(p.ctx().allocPd());
    CompletionQueue cq = closer.add(p.ctx().createCq(receiver ? 4 * DEPTH : SENDERS * MESSAGES, null, 0));
    MemoryRegion mr = closer.add(pd.allocateMemory((long) (receiver ? DEPTH : SENDERS * MESSAGES) * MSG,
        EnumSet.of(Access.LOCAL_WRITE)));
    SharedReceiveQueue srq = receiver ? closer.add(pd.createSrq(SrqAttr.of(DEPTH, 1))) : null;
    QueuePair[] qps = new QueuePair[SENDERS];
    long[] mine = new long[1 + SENDERS];
    mine[0] = p.ctx().queryPort(1).lid();
    for (int i = 0; i < SENDERS; i++) {
      QpInitAttr.Builder b = QpInitAttr.builder(QpType.RC).cq(cq);
      b = receiver ? b.srq(srq).cap(new QpCap(1, 0, 1, 0, 0)) : b.cap(new QpCap(MESSAGES, 1, 1, 1, 0));
      qps[i] = closer.add(pd.createQp(b.build()));
      mine[1 + i] = qps[i].qpNum();
    }
    long[] other = p.exchange("connections", mine);
    for (int i = 0; i < SENDERS; i++) {
      qps[i].modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
          .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE)));
      qps[i].modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum((int) other[1 + i]).rqPsn(0)
          .maxDestRdAtomic(1).minRnrTimer(1).ahAttr(AhAttr.lid((int) other[0])));
      qps[i].modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(TIMEOUT).retryCnt(7).rnrRetry(0)
          .maxRdAtomic(1));
    }
    if (receiver) {
      for (int i = 0; i < DEPTH; i++) {
        srq.postRecv(new RecvWr().wrId(i).sge(mr, (long) i * MSG, MSG));
      }
    } else {
      for (int s = 0; s < SENDERS; s++) {
        for (int m = 0; m < MESSAGES; m++) {
          Patterns.fill(mr.buffer(), (s * MESSAGES + m) * MSG, MSG, seed(s, m));
        }
      }
    }
    return new Ends(qps, cq, mr, srq);
  }

  private static long seed(int sender, int message) {
    return 0x19_0000L + sender * 1000L + message;
  }

  /** Every sender posts all its SENDs, round robin over the senders. */
  private static void send(Ends e) {
    SendWr wr = new SendWr().opcode(WrOpcode.SEND).signaled(true);
    for (int m = 0; m < MESSAGES; m++) {
      for (int s = 0; s < SENDERS; s++) {
        e.qps[s].postSend(wr.wrId(m).sge(e.mr, (long) (s * MESSAGES + m) * MSG, MSG));
      }
    }
  }

  /** Rank 0: checks each receive (order per sender, bytes) and posts its buffer again at once. */
  private static void receive(Peer p, Ends e) {
    int[] next = new int[SENDERS];
    int total = SENDERS * MESSAGES;
    int done = 0;
    RecvWr wr = new RecvWr();
    while (done < total) {
      List<WorkCompletion> wcs = p.pollUntil(e.cq, 1);
      for (WorkCompletion wc : wcs) {
        assertEquals(WcStatus.SUCCESS, wc.status(), () -> "receive " + wc);
        assertEquals(WcOpcode.RECV, wc.opcode(), wc::toString);
        assertEquals(MSG, wc.byteLen(), () -> "byte_len of " + wc);
        int s = indexOf(e.qps, wc.qpNum());
        int k = next[s]++;
        int slot = (int) wc.wrId();
        Patterns.verify("message " + k + " of sender " + s + " (in order per sender)", e.mr.buffer(), slot * MSG, MSG,
            seed(s, k));
        done++;
        if (done + DEPTH <= total) {
          e.srq.postRecv(wr.wrId(slot).sge(e.mr, (long) slot * MSG, MSG));
        }
      }
    }
    for (int s = 0; s < SENDERS; s++) {
      assertEquals(MESSAGES, next[s], "messages from sender " + s);
      assertEquals(QpState.RTS, e.qps[s].state(), "flow control leaves the connection up");
    }
  }

  /**
   * Rank 0 of the RNR scenario: posts each completed receive's buffer again, as in the stop-resend
   * scenario, until no receive completed for {@link #QUIET} (the senders failed).
   */
  private static void refillUntilQuiet(Ends e) {
    WorkCompletion[] wcs = WorkCompletion.array(DEPTH);
    RecvWr wr = new RecvWr();
    Backoff backoff = new Backoff();
    long quietSince = System.nanoTime();
    while (System.nanoTime() - quietSince < QUIET.toNanos()) {
      int k = e.cq.poll(wcs, wcs.length);
      for (int i = 0; i < k; i++) {
        int slot = (int) wcs[i].wrId();
        e.srq.postRecv(wr.wrId(slot).sge(e.mr, (long) slot * MSG, MSG));
      }
      if (k > 0) {
        quietSince = System.nanoTime();
        backoff.reset();
      } else {
        backoff.idle();
      }
    }
  }

  private static int indexOf(QueuePair[] qps, int qpNum) {
    for (int i = 0; i < qps.length; i++) {
      if (qps[i].qpNum() == qpNum) {
        return i;
      }
    }
    throw new AssertionError("a completion on QP " + qpNum + ", which is none of this rank's");
  }
}
