package io.github.verbs4j.examples.srqfc;

import io.github.verbs4j.examples.common.OwnThreads;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.PortCounter;
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
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * One flow-control event, measured in modelled time on the in-JVM fabric: two ib contexts
 * ({@code verbs.time=modelled}, {@code verbs.threading=invoker}), a receiver whose SRQ runs dry and
 * a sender that posts one SEND into it (t1, the sender's modelled clock).
 *
 * <ul>
 *   <li>Stop-resend and RNR: the SRQ is empty; as soon as the receiver's device has refused the
 *       SEND (a stop request or an RNR NAK sent) the receiving application posts one receive. The
 *       event ends at the receive's completion timestamp (t4) — the paper's t4 - t1 (§4.1.2).
 *   <li>Limit-event refill (MVAPICH): the SRQ holds {@link #LIMIT_RECEIVES} receives and is armed
 *       at that limit, so the SEND takes it below and the device raises {@code
 *       SRQ_LIMIT_REACHED}. The receiving application takes the event, charges t_int (interrupt to
 *       refill thread) on its node's modelled clock with {@link Context#chargeNanos}, posts {@link
 *       #REFILL} receives, re-arms the limit and charges t_setev; the event ends there (t4, the
 *       receiver's modelled clock; §4.1.2, fig. 8).
 * </ul>
 *
 * <p>Deterministic: until it has posted, the receiving application polls only the receiver's CQ
 * (the sender's device leaves the stop request or RNR NAK queued) and charges 0 ns of work to its
 * clock on each turn, which counts as activity: no modelled timer — the receiver's SRQ poll
 * included — is run as the next event before the post, so the post happens at the stop's modelled
 * time and the next poll finds it. (A thread descheduled for two of the timer watch's
 * one-millisecond looks could still let a poll run first.)
 */
final class EventCost {
  /** How a run's receiver controls the flow. */
  enum Mode {
    /** verbs.ib.srq-flow-control=rnr, min_rnr_timer code 1 (0.01 ms). */
    RNR,
    /** verbs.ib.srq-flow-control=stop-resend with the given poll interval. */
    STOP_RESEND,
    /** A receive posted before the SEND: no flow control, the one-way latency. */
    NONE,
    /** RNR mode, the SRQ armed with a limit: the limit event and the refill thread. */
    LIMIT_EVENT
  }

  /** Receives in the SRQ, and its limit, before a limit-event run. */
  static final int LIMIT_RECEIVES = 2;
  /** Receives the refill thread posts (the paper adds 64 at a time, §4.1.2). */
  static final int REFILL = 64;

  private static final Duration LIMIT = Duration.ofSeconds(10);

  private EventCost() {}

  /**
   * @param mode the flow control
   * @param pollNanos the device's SRQ poll interval (stop-resend)
   * @param bytes the SEND's size
   * @return modelled nanoseconds from the SEND's post to its receive completion, or -1 if it did
   *     not complete within {@link #LIMIT} of wall time
   */
  static long measure(Mode mode, long pollNanos, int bytes) throws Exception {
    return measure(mode, pollNanos, bytes, 0, 0);
  }

  /**
   * @param mode the flow control
   * @param pollNanos the device's SRQ poll interval (stop-resend)
   * @param bytes the SEND's size
   * @param tIntNanos the limit event's interrupt-to-thread time the receiver charges (LIMIT_EVENT)
   * @param tSetevNanos the limit's re-arming time the receiver charges (LIMIT_EVENT)
   * @return modelled nanoseconds of the event (see the class), or -1 if it did not end within
   *     {@link #LIMIT} of wall time
   */
  static long measure(Mode mode, long pollNanos, int bytes, long tIntNanos, long tSetevNanos) throws Exception {
    return measure(mode, pollNanos, bytes, tIntNanos, tSetevNanos, 1);
  }

  /**
   * The same event with {@code senders} RC QPs of one sending context, each posting one SEND at
   * the same modelled time (t1) into the one SRQ: the receiving application posts as many receives
   * (stop-resend, RNR) once its device has refused every SEND; the limit-event refill posts its
   * {@link #REFILL}. The event ends when the last receive has completed (and, limit event, the limit
   * is armed again).
   *
   * @param senders 1 to {@link #REFILL}
   * @return modelled nanoseconds from t1 to the end, or -1 if it did not end within {@link
   *     #LIMIT} of wall time
   */
  static long measure(Mode mode, long pollNanos, int bytes, long tIntNanos, long tSetevNanos, int senders)
      throws Exception {
    if (senders < 1 || senders > REFILL) {
      throw new IllegalArgumentException("senders=" + senders + " must be 1.." + REFILL);
    }
    String job = "srqfc-" + UUID.randomUUID();
    MeterRegistry meters = new SimpleMeterRegistry();
    CompletableFuture<Context> r0 = CompletableFuture.supplyAsync(() -> open(job, 0, mode, pollNanos, meters),
        OwnThreads.INSTANCE);
    CompletableFuture<Context> r1 = CompletableFuture.supplyAsync(() -> open(job, 1, mode, pollNanos,
        new SimpleMeterRegistry()), OwnThreads.INSTANCE);
    List<AutoCloseable> qps = new ArrayList<>();
    try (Context rx = r0.get(); Context tx = r1.get();
        ProtectionDomain rpd = rx.allocPd(); ProtectionDomain tpd = tx.allocPd();
        CompletionQueue rcq = rx.createCq(4 * REFILL, null, 0); CompletionQueue tcq = tx.createCq(4 * REFILL, null, 0);
        SharedReceiveQueue srq = rpd.createSrq(SrqAttr.of(2 * REFILL, 1));
        MemoryRegion rmr = rpd.allocateMemory(4096L * (REFILL + LIMIT_RECEIVES), EnumSet.of(Access.LOCAL_WRITE));
        MemoryRegion tmr = tpd.allocateMemory(4096, EnumSet.of(Access.LOCAL_WRITE))) {
      try {
        return run(mode, rx, tx, rpd, tpd, rcq, tcq, srq, rmr, tmr, meters, bytes, tIntNanos, tSetevNanos, senders, qps);
      } finally {
        for (int i = qps.size() - 1; i >= 0; i--) {
          qps.get(i).close();
        }
      }
    }
  }

  private static long run(Mode mode, Context rx, Context tx, ProtectionDomain rpd, ProtectionDomain tpd,
      CompletionQueue rcq, CompletionQueue tcq, SharedReceiveQueue srq, MemoryRegion rmr, MemoryRegion tmr,
      MeterRegistry meters, int bytes, long tIntNanos, long tSetevNanos, int senders, List<AutoCloseable> qps)
      throws Exception {
    {
      QueuePair[] tqp = new QueuePair[senders];
      for (int i = 0; i < senders; i++) {
        QueuePair rqp = rpd.createQp(QpInitAttr.builder(QpType.RC).cq(rcq).srq(srq).cap(new QpCap(4, 0, 1, 0, 0)).build());
        tqp[i] = tpd.createQp(QpInitAttr.builder(QpType.RC).cq(tcq).cap(new QpCap(4, 1, 1, 1, 0)).build());
        qps.add(rqp);
        qps.add(tqp[i]);
        connect(rqp, tx.queryPort(1).lid(), tqp[i].qpNum());
        connect(tqp[i], rx.queryPort(1).lid(), rqp.qpNum());
      }
      RecvWr recv = new RecvWr();
      if (mode == Mode.NONE) {
        postRecvs(srq, rmr, senders);
      }
      if (mode == Mode.LIMIT_EVENT) {
        for (int i = 0; i < LIMIT_RECEIVES; i++) {
          srq.postRecv(recv.wrId(i).sge(rmr, 4096L * i, 4096));
        }
        srq.arm(LIMIT_RECEIVES);
      }
      Received got = new Received();
      long t1 = tx.nowNanos();
      SendWr send = new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(tmr, 0, bytes);
      for (QueuePair q : tqp) {
        q.postSend(send);
      }
      if (mode == Mode.LIMIT_EVENT) {
        long armed = refill(rx, srq, rmr, rcq, tIntNanos, tSetevNanos, got);
        if (armed < 0 || !got.await(rcq, tcq, senders)) {
          return -1;
        }
        return Math.max(armed, got.last) - t1;
      }
      if (mode != Mode.NONE) {
        // The receiving process posts as soon as every SEND was refused (the paper's t2 -> t3): it
        // watches the device's count of stop requests or RNR NAKs sent, driving the receiver's
        // engine (invoker threading) and not the sender's, whose stop or NAK stays queued.
        long until = System.nanoTime() + LIMIT.toNanos();
        WorkCompletion[] wcs = WorkCompletion.array(4);
        while (refused(rx, meters, mode) < senders) {
          if (System.nanoTime() - until > 0) {
            return -1;
          }
          got.take(wcs, rcq.poll(wcs));
          rx.chargeNanos(0); // the application is at work: no timer is the next event yet
          Thread.onSpinWait();
        }
        postRecvs(srq, rmr, senders);
      }
      if (!got.await(rcq, tcq, senders)) {
        return -1;
      }
      return got.last - t1;
    }
  }

  private static void postRecvs(SharedReceiveQueue srq, MemoryRegion rmr, int n) {
    RecvWr recv = new RecvWr();
    for (int i = 0; i < n; i++) {
      srq.postRecv(recv.wrId(i).sge(rmr, 4096L * i, 4096));
    }
  }

  /** Receive completions counted so far and the latest timestamp. */
  private static final class Received {
    int n;
    long last;

    void take(WorkCompletion[] wcs, int k) {
      for (int i = 0; i < k; i++) {
        if (wcs[i].status() != WcStatus.SUCCESS) {
          throw new IllegalStateException("a receive completed " + wcs[i].status());
        }
        n++;
        last = Math.max(last, wcs[i].timestampNanos());
      }
    }

    /** Polls until {@code total} receives completed; @return false on timeout */
    boolean await(CompletionQueue rcq, CompletionQueue tcq, int total) {
      WorkCompletion[] wcs = WorkCompletion.array(16);
      WorkCompletion[] other = WorkCompletion.array(16);
      long deadline = System.nanoTime() + LIMIT.toNanos();
      while (n < total) {
        if (System.nanoTime() - deadline > 0) {
          return false;
        }
        take(wcs, rcq.poll(wcs));
        tcq.poll(other);
        Thread.onSpinWait();
      }
      return true;
    }
  }

  /**
   * The MVAPICH refill thread: waits for SRQ_LIMIT_REACHED (driving only the receiver's engine),
   * charges t_int, posts {@link #REFILL} receives, re-arms the limit, charges t_setev.
   *
   * @return the receiver's modelled clock when the limit is armed again (t4), or -1 on timeout
   */
  private static long refill(Context rx, SharedReceiveQueue srq, MemoryRegion rmr, CompletionQueue rcq,
      long tIntNanos, long tSetevNanos, Received got) {
    long until = System.nanoTime() + LIMIT.toNanos();
    WorkCompletion[] wcs = WorkCompletion.array(4);
    while (rx.pollAsyncEvent(Duration.ZERO).filter(e -> e.type() == AsyncEventType.SRQ_LIMIT_REACHED).isEmpty()) {
      if (System.nanoTime() - until > 0) {
        return -1;
      }
      got.take(wcs, rcq.poll(wcs));
      rx.chargeNanos(0);
      Thread.onSpinWait();
    }
    rx.chargeNanos(tIntNanos); // the interrupt wakes the refill thread (t2)
    RecvWr wr = new RecvWr();
    for (int i = 0; i < REFILL; i++) {
      srq.postRecv(wr.wrId(100 + i).sge(rmr, 4096L * (LIMIT_RECEIVES + i), 4096));
    }
    srq.arm(LIMIT_RECEIVES); // (t3) the event set on the HCA again
    rx.chargeNanos(tSetevNanos);
    return rx.nowNanos(); // t4
  }

  /** SENDs the receiver's device refused: RNR NAKs, or stop requests (its ib meter). */
  private static long refused(Context rx, MeterRegistry meters, Mode mode) {
    if (mode == Mode.RNR) {
      return rx.queryPortCounters(1).get(PortCounter.SEND_RNR_ERR);
    }
    FunctionCounter stops = meters.find("verbs4j.ib.srq.stops").tag("direction", "sent").functionCounter();
    return stops == null ? 0 : (long) stops.count();
  }

  private static Context open(String job, int rank, Mode mode, long pollNanos, MeterRegistry meters) {
    Map<String, String> m = new HashMap<>();
    m.put("verbs.provider", "ib");
    m.put("verbs.fabric", "local");
    m.put("verbs.fabric.name", job);
    m.put("verbs.ib.job", job);
    m.put("verbs.rank", Integer.toString(rank));
    m.put("verbs.size", "2");
    m.put("verbs.time", "modelled");
    m.put("verbs.threading", "invoker");
    m.put("verbs.ib.srq-flow-control", mode == Mode.STOP_RESEND ? "stop-resend" : "rnr");
    m.put("verbs.ib.srq-poll-ns", Long.toString(pollNanos));
    return Verbs.open(VerbsConfig.of(m), DeviceOptions.none().with(MeterRegistry.class, meters));
  }

  private static void connect(QueuePair qp, int lid, int qpn) {
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
        .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE)));
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(qpn).rqPsn(0).maxDestRdAtomic(1)
        .minRnrTimer(1).ahAttr(AhAttr.lid(lid)));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
  }
}
