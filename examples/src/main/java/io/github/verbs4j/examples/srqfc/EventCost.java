package io.github.verbs4j.examples.srqfc;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
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
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * One flow-control event, measured in modelled time on the in-JVM fabric: two ib contexts
 * ({@code verbs.time=modelled}, {@code verbs.threading=invoker}), a receiver whose SRQ is empty and
 * a sender that posts one SEND into it; as soon as the receiver's device has refused it (a stop
 * request or an RNR NAK sent) the receiver posts one receive. The event
 * costs from the sender's post (t1, the sender's modelled clock) to the receive's completion
 * timestamp (t4, the receiver's modelled clock) — the paper's t4 - t1 (§4.1.2). The stop-resend
 * figure varies by whole poll intervals from run to run (docs/srq-flow-control.md).
 */
final class EventCost {
  /** How a run's receiver controls the flow. */
  enum Mode {
    /** verbs.ib.srq-flow-control=rnr, min_rnr_timer code 1 (0.01 ms). */
    RNR,
    /** verbs.ib.srq-flow-control=stop-resend with the given poll interval. */
    STOP_RESEND,
    /** A receive posted before the SEND: no flow control, the one-way latency. */
    NONE
  }

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
    String job = "srqfc-" + UUID.randomUUID();
    MeterRegistry meters = new SimpleMeterRegistry();
    CompletableFuture<Context> r0 = CompletableFuture.supplyAsync(() -> open(job, 0, mode, pollNanos, meters));
    CompletableFuture<Context> r1 = CompletableFuture.supplyAsync(() -> open(job, 1, mode, pollNanos,
        new SimpleMeterRegistry()));
    try (Context rx = r0.get(); Context tx = r1.get();
        ProtectionDomain rpd = rx.allocPd(); ProtectionDomain tpd = tx.allocPd();
        CompletionQueue rcq = rx.createCq(16, null, 0); CompletionQueue tcq = tx.createCq(16, null, 0);
        SharedReceiveQueue srq = rpd.createSrq(SrqAttr.of(16, 1));
        MemoryRegion rmr = rpd.allocateMemory(4096, EnumSet.of(Access.LOCAL_WRITE));
        MemoryRegion tmr = tpd.allocateMemory(4096, EnumSet.of(Access.LOCAL_WRITE));
        QueuePair rqp = rpd.createQp(QpInitAttr.builder(QpType.RC).cq(rcq).srq(srq)
            .cap(new QpCap(4, 0, 1, 0, 0)).build());
        QueuePair tqp = tpd.createQp(QpInitAttr.builder(QpType.RC).cq(tcq).cap(new QpCap(4, 1, 1, 1, 0)).build())) {
      connect(rqp, tx.queryPort(1).lid(), tqp.qpNum());
      connect(tqp, rx.queryPort(1).lid(), rqp.qpNum());
      RecvWr recv = new RecvWr().wrId(1).sge(rmr, 0, 4096);
      if (mode == Mode.NONE) {
        srq.postRecv(recv);
      }
      long t1 = tx.nowNanos();
      tqp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(tmr, 0, bytes));
      if (mode != Mode.NONE) {
        // The receiving process posts as soon as the SEND was refused (the paper's t2 -> t3): it
        // watches the device's count of stop requests or RNR NAKs sent, driving both engines
        // (invoker threading) meanwhile.
        long until = System.nanoTime() + LIMIT.toNanos();
        WorkCompletion[] none = WorkCompletion.array(1);
        while (!refused(rx, meters, mode)) {
          if (System.nanoTime() - until > 0) {
            return -1;
          }
          tcq.poll(none);
          rcq.poll(none);
          Thread.onSpinWait();
        }
        srq.postRecv(recv);
      }
      WorkCompletion wc = pollOne(rcq, tcq);
      if (wc == null) {
        return -1;
      }
      if (wc.status() != WcStatus.SUCCESS) {
        throw new IllegalStateException(mode + ": the receive completed " + wc.status());
      }
      return wc.timestampNanos() - t1;
    }
  }

  /** Whether the receiver's device refused the SEND: an RNR NAK, or a stop request (its ib meter). */
  private static boolean refused(Context rx, MeterRegistry meters, Mode mode) {
    if (mode == Mode.RNR) {
      return rx.queryPortCounters(1).get(PortCounter.SEND_RNR_ERR) > 0;
    }
    FunctionCounter stops = meters.find("verbs4j.ib.srq.stops").tag("direction", "sent").functionCounter();
    return stops != null && stops.count() > 0;
  }

  private static WorkCompletion pollOne(CompletionQueue rcq, CompletionQueue tcq) {
    WorkCompletion[] wcs = WorkCompletion.array(1);
    WorkCompletion[] other = WorkCompletion.array(4);
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (System.nanoTime() - deadline < 0) {
      if (rcq.poll(wcs) > 0) {
        return wcs[0];
      }
      tcq.poll(other);
      Thread.onSpinWait();
    }
    return null;
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
