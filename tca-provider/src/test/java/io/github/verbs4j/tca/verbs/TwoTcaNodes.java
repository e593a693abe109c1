package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.testing.Async;
import io.github.verbs4j.tca.peach2.Peach2Counters;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.MemoryRegion;
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
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Two tca contexts on one in-JVM fabric (nodes a and b), each with a PD, a CQ, 4 MiB of pool
 * memory, 1 MiB of registered (non-pool) memory, an RC QP connected to the other's and a UD QP in
 * RTS (Q_Key {@link #QKEY}); meters go to {@link #registry}.
 */
final class TwoTcaNodes implements AutoCloseable {
  static final Set<Access> ALL = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
      Access.REMOTE_ATOMIC);
  static final int POOL = 4 << 20;
  static final int USER = 1 << 20;
  static final int QKEY = 0x1111;

  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final Side a = new Side();
  final Side b = new Side();

  /** One node's resources. */
  static final class Side {
    Context ctx;
    ProtectionDomain pd;
    CompletionQueue cq;
    MemoryRegion pool;
    ByteBuffer userMemory;
    MemoryRegion user;
    QueuePair rc;
    QueuePair ud;

    private void open(VerbsConfig c, MeterRegistry registry) {
      ctx = Verbs.open(c, DeviceOptions.none().with(MeterRegistry.class, registry));
      pd = ctx.allocPd();
      cq = ctx.createCq(256, null, 0);
      pool = pd.allocateMemory(POOL, ALL);
      userMemory = ByteBuffer.allocateDirect(USER);
      user = pd.registerMemory(userMemory, ALL);
      QpCap cap = QpCap.builder().maxSendWr(128).maxRecvWr(128).maxSendSge(4).maxRecvSge(4).build();
      rc = pd.createQp(QpInitAttr.builder(QpType.RC).sendCq(cq).recvCq(cq).cap(cap).build());
      ud = pd.createQp(QpInitAttr.builder(QpType.UD).sendCq(cq).recvCq(cq).cap(cap).build());
    }

    int lid() {
      return ctx.queryPort(1).lid();
    }

    /** Takes this side's proxy lock (waiting up to 10 s), so its proxy does nothing until released. */
    AgentLock holdProxy() {
      AgentLock proxy = tca().proxy().lock();
      long until = System.nanoTime() + 10_000_000_000L;
      while (!proxy.tryAcquire()) {
        assertTrue(System.nanoTime() < until, "the proxy's lock was never free");
        Thread.onSpinWait();
      }
      return proxy;
    }

    TcaContext tca() {
      return (TcaContext) ctx;
    }

    Peach2Counters.Snapshot board() {
      return tca().board().counters().snapshot();
    }

    private void close() {
      for (AutoCloseable c : new AutoCloseable[] {ud, rc, user, pool, cq, pd, ctx}) {
        try {
          if (c != null) {
            c.close();
          }
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
    }
  }

  /**
   * Opens and connects both nodes.
   *
   * @param timeout the RC QPs' local ACK timeout code
   */
  TwoTcaNodes(int timeout) {
    this(timeout, Map.of());
  }

  /**
   * Opens and connects both nodes with further settings (fault injection, say).
   *
   * @param timeout the RC QPs' local ACK timeout code
   * @param extra more {@code verbs.*} settings for both nodes
   */
  TwoTcaNodes(int timeout, Map<String, String> extra) {
    String job = UUID.randomUUID().toString();
    CompletableFuture<Void> fa = Async.run(() -> a.open(config(job, 0, extra), registry));
    CompletableFuture<Void> fb = Async.run(() -> b.open(config(job, 1, extra), registry));
    fa.join();
    fb.join();
    connect(a, b, timeout);
    connect(b, a, timeout);
    for (Side s : new Side[] {a, b}) {
      s.ud.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY));
      s.ud.modify(new QpAttr().qpState(QpState.RTR));
      s.ud.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0));
    }
  }

  private static VerbsConfig config(String job, int rank, Map<String, String> extra) {
    Map<String, String> m = new java.util.HashMap<>(Map.of("verbs.provider", "tca", "verbs.fabric", "local",
        "verbs.fabric.name", "two-" + job, "verbs.rank", Integer.toString(rank), "verbs.size", "2", "verbs.tca.job",
        job));
    m.putAll(extra);
    return VerbsConfig.of(m);
  }

  /** @return the in-JVM fabric both nodes are on (its fault injector, say) */
  io.github.verbs4j.fabric.local.LocalFabric fabric() {
    return ((io.github.verbs4j.fabric.local.LocalNode) ((io.github.verbs4j.tca.peach2.FabricLink) a.tca().board()
        .link()).fabricNode()).fabric();
  }

  private static void connect(Side s, Side peer, int timeout) {
    s.rc.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(ALL));
    s.rc.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(peer.rc.qpNum()).rqPsn(100)
        .maxDestRdAtomic(4).minRnrTimer(1).ahAttr(AhAttr.lid(peer.lid())));
    s.rc.modify(new QpAttr().qpState(QpState.RTS).sqPsn(100).timeout(timeout).retryCnt(7).rnrRetry(7)
        .maxRdAtomic(4));
  }

  /** Polls one successful completion (30 s bound). */
  static WorkCompletion poll(CompletionQueue cq) {
    WorkCompletion[] wc = WorkCompletion.array(1);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (cq.poll(wc) == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no completion within 30 s");
      }
      Thread.onSpinWait();
    }
    if (wc[0].status() != WcStatus.SUCCESS) {
      throw new AssertionError("completion failed: " + wc[0]);
    }
    return wc[0];
  }

  @Override
  public void close() {
    a.close();
    b.close();
  }
}
