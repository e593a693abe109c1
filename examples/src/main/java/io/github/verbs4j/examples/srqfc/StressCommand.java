package io.github.verbs4j.examples.srqfc;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
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
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j srq-fc stress}: issue 19's stress at full size, outside the build — {@code
 * --senders} RC senders spread over {@code --sender-procs} ranks stream {@code --messages} SENDs in
 * all into one SRQ of {@code --depth} receives in rank 0, which posts a receive back only when one
 * completes (the SRQ runs dry all the time), over links that drop and duplicate a fraction of
 * the frames (seeded), with {@code rnr_retry} 0. Every SEND carries its sender and sequence number;
 * the receiver checks each arrives exactly once and in order per sender. Ranks are ib contexts on
 * the threaded in-JVM fabric, each driven by its own thread, on the wall clock.
 */
@Command(name = "stress", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Issue 19's stress: many senders into one small SRQ over a lossy fabric, rnr_retry 0; "
        + "exactly once and in order with stop-resend, RNR_RETRY_EXC_ERR with rnr."})
public final class StressCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--flow", paramLabel = "rnr|stop-resend", defaultValue = "stop-resend",
      description = "verbs.ib.srq-flow-control (default: ${DEFAULT-VALUE}).")
  String flow;

  @Option(names = "--senders", defaultValue = "64", description = "Sending QPs (default: ${DEFAULT-VALUE}).")
  int senders;

  @Option(names = "--sender-procs", defaultValue = "2", description = "Ranks the senders are spread over (default: ${DEFAULT-VALUE}).")
  int senderProcs;

  @Option(names = "--messages", defaultValue = "100000", description = "SENDs in all (default: ${DEFAULT-VALUE}).")
  int messages;

  @Option(names = "--depth", defaultValue = "16", description = "SRQ receives (default: ${DEFAULT-VALUE}).")
  int depth;

  @Option(names = "--drop", defaultValue = "0.01", description = "Frames dropped on every link (default: ${DEFAULT-VALUE}).")
  double drop;

  @Option(names = "--duplicate", defaultValue = "0.01", description = "Frames duplicated (default: ${DEFAULT-VALUE}).")
  double duplicate;

  @Option(names = "--window", defaultValue = "8", description = "SENDs outstanding per sender (default: ${DEFAULT-VALUE}).")
  int window;

  @Option(names = "--max-seconds", defaultValue = "1800", description = "Give up after (default: ${DEFAULT-VALUE}).")
  int maxSeconds;

  /** Bytes per SEND: sender number and sequence number. */
  private static final int MSG = 64;
  /** A receiver that sees nothing for this long stops (the senders have failed). */
  private static final long QUIET_NANOS = 2_000_000_000L;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (!flow.equals("rnr") && !flow.equals("stop-resend")) {
      throw new ParameterException(spec.commandLine(), "--flow=" + flow + " must be rnr or stop-resend");
    }
    if (senders < 1 || senderProcs < 1 || senders < senderProcs || messages < senders || depth < 1 || window < 1) {
      throw new ParameterException(spec.commandLine(), "--senders, --sender-procs, --messages, --depth and --window "
          + "must be positive, with at least one sender a rank and one message a sender");
    }
    String job = "srqfc-stress-" + UUID.randomUUID();
    int procs = 1 + senderProcs;
    List<Context> ctxs = new ArrayList<>();
    List<Runnable> closers = new ArrayList<>();
    long wall = System.nanoTime();
    try {
      for (int r = 0; r < procs; r++) {
        ctxs.add(open(job, r, procs));
      }
      Receiver rx = new Receiver(ctxs.get(0));
      closers.add(rx::close);
      List<Sender> txs = new ArrayList<>();
      int first = 0;
      for (int p = 0; p < senderProcs; p++) {
        int n = senders / senderProcs + (p < senders % senderProcs ? 1 : 0);
        Sender tx = new Sender(ctxs.get(1 + p), first, n);
        closers.add(tx::close);
        txs.add(tx);
        first += n;
      }
      for (Sender tx : txs) {
        for (int i = 0; i < tx.qps.length; i++) {
          connect(tx.qps[i], rx.ctx, rx.qps[tx.first + i]);
          connect(rx.qps[tx.first + i], tx.ctx, tx.qps[i]);
          rx.senderOf.put(rx.qps[tx.first + i].qpNum(), tx.first + i);
        }
      }
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (Sender tx : txs) {
        Thread t = new Thread(() -> tx.run(stop), "stress-tx-" + tx.first);
        t.start();
        threads.add(t);
      }
      Thread rxThread = new Thread(() -> rx.run(stop), "stress-rx");
      rxThread.start();
      rxThread.join(maxSeconds * 1000L);
      // the senders take the completions of the last messages (their ACKs may still be on their
      // way when the receiver has everything); stop only those that are still waiting after that
      long grace = System.nanoTime() + 10_000_000_000L;
      for (Thread t : threads) {
        t.join(Math.max(1, (grace - System.nanoTime()) / 1_000_000));
      }
      stop.set(true);
      for (Thread t : threads) {
        t.join(60_000);
      }
      rxThread.join(10_000);
      wall = System.nanoTime() - wall;
      Map<WcStatus, Integer> statuses = new EnumMap<>(WcStatus.class);
      long sent = 0;
      for (Sender tx : txs) {
        tx.statuses.forEach((k, v) -> statuses.merge(k, v, Integer::sum));
        sent += tx.completed;
      }
      long rnrSent = ctxs.get(0).queryPortCounters(1).get(PortCounter.SEND_RNR_ERR);
      out.printf(Locale.ROOT, "# srq-fc stress: %s, %d senders over %d ranks into one SRQ of %d, %d SENDs, drop %.3f, "
          + "duplicate %.3f, rnr_retry 0, timeout 14 (67 ms), retry_cnt 7%n", flow, senders, senderProcs, depth, messages,
          drop, duplicate);
      out.printf(Locale.ROOT, "received %d of %d (exactly once, in order per sender: %s%s)%n", rx.received, messages,
          rx.violation == null ? "yes" : "NO", rx.violation == null ? "" : ": " + rx.violation);
      out.printf(Locale.ROOT, "sender completions %d: %s%n", sent, statuses);
      out.printf(Locale.ROOT, "RNR NAKs sent by the receiver: %d; wall %.1f s%n", rnrSent, wall / 1e9);
      boolean ok = rx.violation == null && rx.received == messages && statuses.getOrDefault(WcStatus.SUCCESS, 0) == messages;
      out.println(ok ? "result: every message exactly once, in order, every send SUCCESS"
          : "result: FAILED (" + (statuses.containsKey(WcStatus.RNR_RETRY_EXC_ERR) ? "RNR_RETRY_EXC_ERR" : "see above") + ")");
      out.flush();
      return ok ? 0 : 1;
    } finally {
      closers.forEach(Runnable::run);
      for (Context c : ctxs) {
        c.close();
      }
    }
  }

  private Context open(String job, int rank, int procs) {
    Map<String, String> m = new HashMap<>();
    m.put("verbs.provider", "ib");
    m.put("verbs.fabric", "local");
    m.put("verbs.fabric.name", job);
    m.put("verbs.ib.job", job);
    m.put("verbs.rank", Integer.toString(rank));
    m.put("verbs.size", Integer.toString(procs));
    m.put("verbs.ib.srq-flow-control", flow);
    m.put("verbs.fault.drop", Double.toString(drop));
    m.put("verbs.fault.duplicate", Double.toString(duplicate));
    m.put("verbs.fault.seed", "19");
    return Verbs.open(VerbsConfig.of(m));
  }

  private static void connect(QueuePair qp, Context peer, QueuePair remote) {
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE)));
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(remote.qpNum()).rqPsn(0)
        .maxDestRdAtomic(1).minRnrTimer(1).ahAttr(AhAttr.lid(peer.queryPort(1).lid())));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(0).maxRdAtomic(1));
  }

  /** Rank 0: one SRQ, a QP per sender; checks every message and posts its receive back. */
  private final class Receiver {
    final Context ctx;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final SharedReceiveQueue srq;
    final MemoryRegion mr;
    final QueuePair[] qps = new QueuePair[senders];
    final Map<Integer, Integer> senderOf = new ConcurrentHashMap<>();
    final int[] next = new int[senders];
    volatile long received;
    volatile String violation;

    Receiver(Context ctx) {
      this.ctx = ctx;
      pd = ctx.allocPd();
      cq = ctx.createCq(4 * depth, null, 0);
      srq = pd.createSrq(SrqAttr.of(depth, 1));
      mr = pd.allocateMemory((long) depth * MSG, EnumSet.of(Access.LOCAL_WRITE));
      for (int i = 0; i < senders; i++) {
        qps[i] = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq).srq(srq).cap(new QpCap(1, 0, 1, 0, 0)).build());
      }
      RecvWr wr = new RecvWr();
      for (int i = 0; i < depth; i++) {
        srq.postRecv(wr.wrId(i).sge(mr, (long) i * MSG, MSG));
      }
    }

    void close() {
      for (QueuePair qp : qps) {
        qp.close();
      }
      srq.close();
      cq.close();
      mr.close();
      pd.close();
    }

    void run(AtomicBoolean stop) {
      WorkCompletion[] wcs = WorkCompletion.array(depth);
      RecvWr wr = new RecvWr();
      ByteBuffer buf = mr.buffer();
      long quiet = System.nanoTime();
      long got = 0;
      while (got < messages && !stop.get() && System.nanoTime() - quiet < QUIET_NANOS) {
        int n = cq.poll(wcs, wcs.length);
        for (int i = 0; i < n; i++) {
          WorkCompletion wc = wcs[i];
          if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.RECV) {
            violation = violation == null ? "receive " + wc : violation;
            continue;
          }
          int slot = (int) wc.wrId();
          int s = buf.getInt(slot * MSG);
          int seq = buf.getInt(slot * MSG + 4);
          Integer bySrc = senderOf.get(wc.qpNum());
          if (violation == null && (bySrc == null || bySrc != s || seq != next[s])) {
            violation = "sender " + s + " (QP says " + bySrc + ") message " + seq + " where " + (s >= 0 && s < senders
                ? next[s] : -1) + " was due";
          }
          if (s >= 0 && s < senders) {
            next[s] = Math.max(next[s], seq + 1);
          }
          got++;
          srq.postRecv(wr.wrId(slot).sge(mr, (long) slot * MSG, MSG));
        }
        if (n > 0) {
          quiet = System.nanoTime();
          received = got;
        } else {
          Thread.onSpinWait();
        }
      }
      received = got;
    }
  }

  /** A sending rank: its share of the senders, each with {@link #window} SENDs in flight. */
  private final class Sender {
    final Context ctx;
    final int first;
    final QueuePair[] qps;
    final int[] quota;
    final int[] posted;
    final int[] inFlight;
    final boolean[] failed;
    final CompletionQueue cq;
    final MemoryRegion mr;
    final ProtectionDomain pd;
    final Map<WcStatus, Integer> statuses = new EnumMap<>(WcStatus.class);
    long completed;

    Sender(Context ctx, int first, int n) {
      this.ctx = ctx;
      this.first = first;
      qps = new QueuePair[n];
      quota = new int[n];
      posted = new int[n];
      inFlight = new int[n];
      failed = new boolean[n];
      pd = ctx.allocPd();
      cq = ctx.createCq(n * window + 16, null, 0);
      mr = pd.allocateMemory((long) n * window * MSG, EnumSet.of(Access.LOCAL_WRITE));
      for (int i = 0; i < n; i++) {
        int s = first + i;
        quota[i] = messages / senders + (s < messages % senders ? 1 : 0);
        qps[i] = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq).cap(new QpCap(window, 1, 1, 1, 0)).build());
      }
    }

    void close() {
      for (QueuePair qp : qps) {
        qp.close();
      }
      cq.close();
      mr.close();
      pd.close();
    }

    void run(AtomicBoolean stop) {
      SendWr wr = new SendWr().opcode(WrOpcode.SEND).signaled(true);
      WorkCompletion[] wcs = WorkCompletion.array(64);
      ByteBuffer buf = mr.buffer();
      long total = 0;
      for (int q : quota) {
        total += q;
      }
      while (completed < total && !stop.get()) {
        for (int i = 0; i < qps.length; i++) {
          while (!failed[i] && posted[i] < quota[i] && inFlight[i] < window) {
            int slot = i * window + posted[i] % window;
            buf.putInt(slot * MSG, first + i);
            buf.putInt(slot * MSG + 4, posted[i]);
            qps[i].postSend(wr.wrId(i).sge(mr, (long) slot * MSG, MSG));
            posted[i]++;
            inFlight[i]++;
          }
        }
        int n = cq.poll(wcs, wcs.length);
        for (int k = 0; k < n; k++) {
          WorkCompletion wc = wcs[k];
          int i = (int) wc.wrId();
          inFlight[i]--;
          completed++;
          statuses.merge(wc.status(), 1, Integer::sum);
          if (wc.status() != WcStatus.SUCCESS && !failed[i]) {
            failed[i] = true;
            total -= quota[i] - posted[i]; // the QP is in error: its remaining messages are never posted
          }
        }
        if (n == 0) {
          Thread.onSpinWait();
        }
      }
    }
  }
}
