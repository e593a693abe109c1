package io.github.verbs4j.examples.srqfc;

import io.github.verbs4j.examples.mp.AppTimeline;
import io.github.verbs4j.examples.srqfc.NpbTrace.Op;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
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
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.LongArrayQueue;

/**
 * One process of an NPB replay: its verbs resources (one SRQ of {@code depth} receives of 32 KiB,
 * one CQ, an RC QP to each neighbour on that SRQ) and its MPI layer, shared by the in-JVM driver
 * ({@link NpbReplay}) and the one-process-per-rank driver ({@link NpbProcess}).
 *
 * <p>MPI layer (eager only, seed 002 §4.2.1: every message, or 32-KiB piece of one, takes one
 * receive): a message is SEND_WITH_IMM pieces of at most 32 KiB, the immediate carrying the tag and
 * a last-piece bit. {@link #drain()} takes every completion (reposting each receive it took the
 * data out of); a Waitall completes when every receive posted so far has matched an arrived
 * message (by source and tag, in order) and every send has completed. Not thread-safe.
 *
 * <p>Modelled time: the process keeps its application's time ({@link #time}, as the mp layer does,
 * docs/modelled-time.md <em>the application's timeline</em>) apart from its device's clock. A
 * computation moves only the application's time; a send is posted after the device's clock is
 * brought up to it; a Waitall ends at the latest of the application's time and the completion
 * timestamps of what it waited for (the arrivals it matched, the sends), not when the driver
 * happened to take those completions. A message from a peer ahead in modelled time then moves the
 * device's clock but not the application's computation.
 */
final class NpbMpi implements AutoCloseable {
  /** {@link #advance()}: the process waits in a Waitall. */
  static final long WAITING = -1;
  /** {@link #advance()}: the process has finished every step. */
  static final long DONE = -2;

  final int id;
  final NpbReplay.Setup s;
  final Context ctx;
  final int limit;
  int step;
  int pc;
  int outstandingSends;
  long pieces;
  private final List<Op> ops;
  private final MeterRegistry meters;
  private final ProtectionDomain pd;
  private final CompletionQueue cq;
  private final SharedReceiveQueue srq;
  private final MemoryRegion recvMem;
  private final MemoryRegion sendMem;
  private final Map<Integer, QueuePair> qpByPeer = new TreeMap<>();
  private final Map<Integer, Integer> peerByQpn = new HashMap<>();
  /** Per source and tag: the completion times of messages arrived and not matched yet, in order. */
  private final Int2ObjectHashMap<LongArrayQueue> arrived = new Int2ObjectHashMap<>();
  private final IntArrayList pending = new IntArrayList();
  /** The latest completion time of a matched receive and of a completed send. */
  private long matchedAt;
  private long sentAt;
  private final WorkCompletion[] wcs = WorkCompletion.array(64);
  private final RecvWr recv = new RecvWr();
  private final SendWr send = new SendWr().opcode(WrOpcode.SEND_WITH_IMM).signaled(true);
  private FunctionCounter stops;
  /** The application's time (modelled) or the wall clock. */
  final AppTimeline time;

  /**
   * Creates the SRQ (full) and the CQ; with {@link NpbReplay.Mechanism#RNR} arms the SRQ limit of
   * eq. (1).
   *
   * @param s the run's settings
   * @param id this process
   * @param ops its trace
   * @param ctx its context (ib; not closed by {@link #close()})
   * @param meters the registry the context reports to
   */
  NpbMpi(NpbReplay.Setup s, int id, List<Op> ops, Context ctx, MeterRegistry meters) {
    this.s = s;
    this.id = id;
    this.ops = ops;
    this.ctx = ctx;
    this.meters = meters;
    this.time = new AppTimeline(ctx);
    pd = ctx.allocPd();
    cq = ctx.createCq(2 * s.depth() + 256, null, 0);
    srq = pd.createSrq(SrqAttr.of(s.depth(), 1));
    recvMem = pd.allocateMemory((long) NpbReplay.BUFFER * Math.min(s.depth(), NpbReplay.MEMORY_SLOTS),
        EnumSet.of(Access.LOCAL_WRITE));
    sendMem = pd.allocateMemory(NpbReplay.BUFFER, EnumSet.of(Access.LOCAL_WRITE));
    for (int i = 0; i < s.depth(); i++) {
      repost(i);
    }
    long perRefill = (s.tIntNanos() + s.tSetevNanos()) * NpbReplay.LINK_BYTES_PER_US / 1000 / NpbReplay.BUFFER;
    limit = (int) Math.max(1, Math.min(s.depth() - 1, perRefill));
    if (s.mechanism() == NpbReplay.Mechanism.RNR) {
      armLimit();
    }
  }

  /** Creates an RC QP (RESET) to each neighbour the trace names, in the trace's order. */
  void createQps() {
    for (Op op : ops) {
      if (op.peer() >= 0 && !qpByPeer.containsKey(op.peer())) {
        QueuePair qp = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq).srq(srq).cap(new QpCap(64, 0, 1, 0, 0)).build());
        qpByPeer.put(op.peer(), qp);
        peerByQpn.put(qp.qpNum(), op.peer());
      }
    }
  }

  /** @return the neighbours, in rank order */
  List<Integer> peers() {
    return List.copyOf(qpByPeer.keySet());
  }

  /**
   * @param peer a neighbour
   * @return the number of this process's QP to it
   */
  int qpNum(int peer) {
    return qpByPeer.get(peer).qpNum();
  }

  /**
   * Brings the QP to {@code peer} to RTS: MTU 4096, timeout 14, retry 7, rnr_retry 7, min_rnr_timer
   * 0.01 ms.
   *
   * @param peer the neighbour
   * @param remoteQpn its QP's number
   * @param lid its port's LID
   */
  void connect(int peer, int remoteQpn, int lid) {
    QueuePair qp = qpByPeer.get(peer);
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE)));
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(remoteQpn).rqPsn(0).maxDestRdAtomic(1)
        .minRnrTimer(NpbReplay.MIN_RNR_TIMER).ahAttr(AhAttr.lid(lid)));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
  }

  /** @return the SRQ (its async events name it) */
  SharedReceiveQueue srq() {
    return srq;
  }

  /** Arms the SRQ limit (the MVAPICH refill's trigger). */
  void armLimit() {
    srq.arm(limit);
  }

  private void repost(long slot) {
    srq.postRecv(recv.wrId(slot).sge(recvMem, (slot % NpbReplay.MEMORY_SLOTS) * NpbReplay.BUFFER, NpbReplay.BUFFER));
  }

  /** @return stop requests this process's device has sent */
  double stopsSent() {
    if (stops == null) {
      stops = meters.find("verbs4j.ib.srq.stops").tag("direction", "sent").functionCounter();
    }
    return stops == null ? 0 : stops.count();
  }

  /**
   * Takes every completion: receives into the MPI layer (and back on the SRQ, at the device's
   * clock: the caller brings it to its own time first if it should), sends done. The application's
   * time does not move here but when a Waitall needs what was taken.
   */
  void drain() {
    int n;
    while ((n = cq.poll(wcs)) > 0) {
      for (int i = 0; i < n; i++) {
        WorkCompletion wc = wcs[i];
        if (wc.status() != WcStatus.SUCCESS) {
          throw new IllegalStateException("rank " + id + ": " + wc);
        }
        if (wc.opcode() == WcOpcode.RECV) {
          repost(wc.wrId());
          if ((wc.immData() & 1) != 0) {
            arrived.computeIfAbsent(key(peerByQpn.get(wc.qpNum()), wc.immData() >>> 1), k -> new LongArrayQueue())
                .addLong(wc.timestampNanos());
          }
        } else {
          outstandingSends--;
          sentAt = Math.max(sentAt, wc.timestampNanos());
        }
      }
    }
  }

  /**
   * Runs the trace from where it stopped until it computes, waits or ends (the caller drains
   * first). A computation is charged on the application's time ({@link #time}) before it is
   * returned; the driver spends it (in wall time, or until its loop reaches the end).
   *
   * @return the computation's nanoseconds, {@link #WAITING} or {@link #DONE}
   */
  long advance() {
    while (true) {
      if (pc == ops.size()) {
        pc = 0;
        step++;
      }
      if (step == s.steps()) {
        return complete() ? DONE : WAITING;
      }
      Op op = ops.get(pc);
      switch (op.kind()) {
        case COMPUTE -> {
          pc++;
          if (op.nanos() > 0) {
            time.compute(op.nanos());
            return op.nanos();
          }
        }
        case ISEND -> {
          isend(op);
          pc++;
        }
        case IRECV -> {
          pending.addInt(key(op.peer(), op.tag()));
          pc++;
        }
        case WAIT -> {
          if (!complete()) {
            return WAITING;
          }
          pc++;
        }
      }
    }
  }

  /**
   * Matches posted receives to arrived messages; when nothing is outstanding the application's time
   * moves to the latest completion it waited for.
   *
   * @return whether nothing is outstanding
   */
  private boolean complete() {
    for (int i = 0; i < pending.size(); ) {
      LongArrayQueue q = arrived.get(pending.getInt(i));
      if (q != null && !q.isEmpty()) {
        matchedAt = Math.max(matchedAt, q.pollLong());
        pending.removeAt(i);
      } else {
        i++;
      }
    }
    if (!pending.isEmpty() || outstandingSends != 0) {
      return false;
    }
    time.waitedUntil(Math.max(matchedAt, sentAt));
    return true;
  }

  private void isend(Op op) {
    QueuePair qp = qpByPeer.get(op.peer());
    time.beforePost();
    int left = op.bytes();
    do {
      int len = Math.min(left, NpbReplay.BUFFER);
      left -= len;
      qp.postSend(send.wrId(pieces).immData(op.tag() << 1 | (left == 0 ? 1 : 0)).sge(sendMem, 0, len));
      outstandingSends++;
      pieces++;
    } while (left > 0);
  }

  private static int key(int peer, int tag) {
    return peer << 8 | tag;
  }

  /** @return where the process is, for a stuck run's message */
  String where() {
    return "rank " + id + " step " + step + " op " + pc + " sends " + outstandingSends + " recvs " + pending;
  }

  @Override
  public void close() {
    for (QueuePair qp : qpByPeer.values()) {
      qp.close();
    }
    srq.close();
    cq.close();
    recvMem.close();
    sendMem.close();
    pd.close();
  }
}
