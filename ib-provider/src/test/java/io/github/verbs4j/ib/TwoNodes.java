package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test fixture: two {@code sim_ib0} contexts on one in-JVM fabric (its own name per fixture),
 * with helpers to create and connect RC/UC QPs and to poll. Deterministic when opened with {@link
 * #deterministic}: then the test drives the fabric with {@link #run()}.
 */
final class TwoNodes implements AutoCloseable {
  private static final AtomicInteger IDS = new AtomicInteger();
  static final Set<Access> ALL = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
      Access.REMOTE_ATOMIC);

  final Context a;
  final Context b;
  final ProtectionDomain pdA;
  final ProtectionDomain pdB;
  final boolean deterministic;
  private final AutoCloseable coordinator;

  private TwoNodes(Context a, Context b, EmbeddedCoordinator coordinator) {
    this.deterministic = false;
    this.coordinator = coordinator;
    this.a = a;
    this.b = b;
    pdA = a.allocPd();
    pdB = b.allocPd();
  }

  private TwoNodes(Map<String, String> extra, boolean deterministic) {
    this.deterministic = deterministic;
    this.coordinator = null;
    String name = "ib-test-" + IDS.incrementAndGet() + "-" + System.nanoTime();
    Map<String, String> base = new HashMap<>();
    base.put("verbs.provider", "ib");
    base.put("verbs.fabric", "local");
    base.put("verbs.fabric.name", name);
    base.put("verbs.size", "2");
    base.putAll(extra);
    Map<String, String> ma = new HashMap<>(base);
    ma.put("verbs.rank", "0");
    Map<String, String> mb = new HashMap<>(base);
    mb.put("verbs.rank", "1");
    a = Verbs.open(VerbsConfig.of(ma));
    b = Verbs.open(VerbsConfig.of(mb));
    pdA = a.allocPd();
    pdB = b.allocPd();
  }

  static TwoNodes threaded() {
    return new TwoNodes(Map.of(), false);
  }

  static TwoNodes threaded(Map<String, String> extra) {
    return new TwoNodes(extra, false);
  }

  /**
   * Two contexts on the netty fabric in this JVM, joined through an embedded coordinator: their
   * frames cross a socket (Unix domain by default), as between processes.
   */
  static TwoNodes netty(Map<String, String> extra) throws Exception {
    EmbeddedCoordinator c = EmbeddedCoordinator.start();
    CompletableFuture<Context> a = null;
    CompletableFuture<Context> b = null;
    try {
      a = openAsync(c, 0, extra);
      b = openAsync(c, 1, extra);
      return new TwoNodes(a.get(60, TimeUnit.SECONDS), b.get(60, TimeUnit.SECONDS), c);
    } catch (Exception e) {
      for (CompletableFuture<Context> f : java.util.Arrays.asList(a, b)) {
        if (f != null) {
          f.thenAccept(Context::close);
        }
      }
      c.close();
      throw e;
    }
  }

  private static CompletableFuture<Context> openAsync(EmbeddedCoordinator c, int rank, Map<String, String> extra) {
    Map<String, String> m = new HashMap<>(c.settings(rank, 2));
    m.put("verbs.provider", "ib");
    m.put("verbs.fabric.join-timeout-ms", "30000");
    m.putAll(extra);
    CompletableFuture<Context> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        f.complete(Verbs.open(VerbsConfig.of(m)));
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    }, "open-rank-" + rank);
    t.start();
    return f;
  }

  static TwoNodes deterministic(Map<String, String> extra) {
    Map<String, String> m = new HashMap<>(extra);
    m.put("verbs.fabric.mode", "deterministic");
    m.put("verbs.threading", "invoker");
    return new TwoNodes(m, true);
  }

  /** Deterministic mode: runs the fabric until nothing is left to do. */
  void run() {
    if (deterministic) {
      ((LocalNode) ((IbContext) a).fabricNode()).fabric().runUntilIdle();
    }
  }

  /**
   * Deterministic mode: runs the fabric for {@code nanos} of modelled time from the latest event,
   * so packets and ACKs in flight arrive but timers further out (a retransmit deadline) do not
   * fire, as in a run that does not stop.
   */
  void runFor(long nanos) {
    if (deterministic) {
      io.github.verbs4j.fabric.local.LocalFabric f = ((LocalNode) ((IbContext) a).fabricNode()).fabric();
      f.runUntil(f.now() + nanos);
    }
  }

  int lid(Context c) {
    return c.queryPort(1).lid();
  }

  QueuePair qp(ProtectionDomain pd, QpType type, CompletionQueue cq, QpCap cap) {
    return pd.createQp(QpInitAttr.builder(type).cq(cq).cap(cap).build());
  }

  /** Connects two RC (or UC) QPs RESET to RTS. */
  void connect(QueuePair x, Context cx, QueuePair y, Context cy, int psnX, int psnY, Mtu mtu, int timeout,
      int retry, int rnrRetry, int minRnrTimer, int rdAtomic) {
    boolean rc = x.type() == QpType.RC;
    for (int i = 0; i < 2; i++) {
      QueuePair q = i == 0 ? x : y;
      QueuePair peer = i == 0 ? y : x;
      Context peerCtx = i == 0 ? cy : cx;
      int sq = i == 0 ? psnX : psnY;
      int rq = i == 0 ? psnY : psnX;
      q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(ALL));
      QpAttr rtr = new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.lid(lid(peerCtx))).pathMtu(mtu)
          .destQpNum(peer.qpNum()).rqPsn(rq);
      if (rc) {
        rtr.maxDestRdAtomic(rdAtomic).minRnrTimer(minRnrTimer);
      }
      q.modify(rtr);
      QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(sq);
      if (rc) {
        rts.timeout(timeout).retryCnt(retry).rnrRetry(rnrRetry).maxRdAtomic(rdAtomic);
      }
      q.modify(rts);
    }
  }

  void connect(QueuePair x, QueuePair y) {
    connect(x, a, y, b, 0x10, 0x20, Mtu.MTU_1024, 14, 7, 7, 12, 4);
  }

  /** Polls until {@code n} completions arrived or the deadline passed. */
  WorkCompletion[] poll(CompletionQueue cq, int n, Duration timeout) {
    WorkCompletion[] out = WorkCompletion.array(n);
    WorkCompletion[] one = WorkCompletion.array(1);
    int got = 0;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (got < n) {
      run();
      if (cq.poll(one) == 1) {
        out[got++].copyFrom(one[0]);
        continue;
      }
      if (System.nanoTime() - deadline > 0) {
        fail("got " + got + " of " + n + " completions within " + timeout);
      }
      Thread.onSpinWait();
    }
    return out;
  }

  WorkCompletion pollOne(CompletionQueue cq) {
    return poll(cq, 1, Duration.ofSeconds(20))[0];
  }

  static void assertOk(WorkCompletion wc) {
    assertEquals(WcStatus.SUCCESS, wc.status(), () -> "completion " + wc);
  }

  @Override
  public void close() throws Exception {
    closeAll(pdA, pdB, a, b, coordinator);
  }

  /** Closes everything a test created, children first. */
  static void closeAll(AutoCloseable... all) throws Exception {
    Exception first = null;
    for (AutoCloseable c : all) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
