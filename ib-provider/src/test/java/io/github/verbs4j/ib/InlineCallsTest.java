package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.NodeType;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.TransportType;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.runtime.Threading;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What each {@code verbs.threading} mode does with the application's calls. {@code dedicated} (the
 * default): a post to a QP with nothing else in flight runs the requester on the posting thread (a
 * post behind work in flight is left to the engine thread, which sends what is queued in trains)
 * and a CQ poll runs the engine (and asks the wire for packets) when no other thread runs it.
 * {@code shared}: the JVM's one engine thread does both. {@code invoker}: there is no engine
 * thread, every post sends on the posting thread. An engine thread here parks for seconds (no
 * spin, no timer: local ACK timeout 0 is infinite), so whatever happens right after a call
 * happened in the call.
 */
class InlineCallsTest {
  private static final int PEER_LID = 2;
  private static final int PEER_QPN = 0x777;
  private CapturePort port;
  private IbContext ctx;
  private ProtectionDomain pd;
  private CompletionQueue cq;
  private QueuePair qp;
  private MemoryRegion mr;

  private static final String DEDICATED_THREAD = "verbs4j-ib-engine-lid1";
  private static final String SHARED_THREAD = "verbs4j-engine-shared";

  /** @param mode verbs.threading */
  private void start(Threading mode) {
    IbParams p = IbParams.builder().threading(mode).idleSpins(0)
        .idleYields(0).idleMinParkNanos(TimeUnit.SECONDS.toNanos(10)).idleMaxParkNanos(TimeUnit.SECONDS.toNanos(10))
        .build();
    port = new CapturePort(1);
    ctx = new IbContext(new Device("sim_ib0", "ib", NodeType.CA, TransportType.IB, 1), VerbsConfig.of(Map.of()),
        IbProvider.deviceAttr(p, 1), p, port, null, null, new SimpleMeterRegistry(), null);
    pd = ctx.allocPd();
    cq = ctx.createCq(16, null, 0);
    qp = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq)
        .cap(QpCap.builder().maxSendWr(16).maxRecvWr(16).build()).build());
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoNodes.ALL));
    qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.lid(PEER_LID)).pathMtu(Mtu.MTU_1024)
        .destQpNum(PEER_QPN).rqPsn(100).maxDestRdAtomic(1).minRnrTimer(1));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(10).timeout(0).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
    mr = pd.allocateMemory(64, TwoNodes.ALL);
    if (mode != Threading.INVOKER) {
      awaitEngineParked(mode == Threading.SHARED ? SHARED_THREAD : DEDICATED_THREAD); // a post must not race it
    }
  }

  private static boolean engineThreadExists() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals(DEDICATED_THREAD) || t.getName().equals(SHARED_THREAD));
  }

  private static void awaitEngineParked(String name) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().equals(name) && t.getState() == Thread.State.TIMED_WAITING) {
          return;
        }
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("the engine thread did not park within 20 s");
  }

  @AfterEach
  void close() {
    if (ctx != null) {
      mr.close();
      qp.close();
      cq.close();
      pd.close();
      ctx.close();
    }
  }

  private void postSend() {
    qp.postSend(new SendWr().opcode(WrOpcode.SEND).signaled(true).sge(mr, 0, 16).wrId(7));
  }

  @Test
  void aPostSendsItsPacketOnThePostingThreadAndAPollCompletesOnThePollingThread() {
    start(Threading.DEDICATED);
    int polls = port.wirePolls.get();
    postSend();
    synchronized (port) {
      assertEquals(1, port.sent.size(), "the packet left before postSend returned");
      assertSame(Thread.currentThread(), port.sentBy.get(0));
    }
    assertEquals(polls, port.wirePolls.get(), "a post does not poll the wire");
    port.takeAll().forEach(ByteBuf::release);
    // An ACK queued without running the engine: the next poll takes it and completes the send.
    ctx.engine().enqueue(Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(10).build());
    WorkCompletion[] wcs = WorkCompletion.array(4);
    assertEquals(1, cq.poll(wcs), "the poll ran the completer");
    assertEquals(WcStatus.SUCCESS, wcs[0].status());
    assertEquals(7, wcs[0].wrId());
    assertTrue(port.wirePolls.get() > polls, "a poll asks the wire for packets first");
  }

  @Test
  void aPostBehindWorkInFlightIsLeftToTheEngineThreadWhichBatches() throws InterruptedException {
    start(Threading.DEDICATED);
    postSend();
    postSend(); // the first is not acknowledged: this one waits for the engine thread
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      synchronized (port) {
        if (port.sentBy.size() == 2) {
          break;
        }
      }
      Thread.sleep(1);
    }
    synchronized (port) {
      assertEquals(2, port.sent.size());
      assertSame(Thread.currentThread(), port.sentBy.get(0));
      assertTrue(port.sentBy.get(1).getName().startsWith("verbs4j-ib-engine"), port.sentBy.get(1).getName());
    }
    port.takeAll().forEach(ByteBuf::release);
  }

  @Test
  void sharedThreadingTheEngineThreadSendsAndCompletes() throws InterruptedException {
    start(Threading.SHARED);
    int calls = port.progressCalls.get();
    postSend();
    Thread sender = awaitSender();
    assertEquals(SHARED_THREAD, sender.getName());
    assertEquals(calls, port.progressCalls.get(), "no call ran the engine");
    port.takeAll().forEach(ByteBuf::release);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(10).build());
    WorkCompletion[] wcs = WorkCompletion.array(4);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    int n = 0;
    while (n == 0 && System.nanoTime() < deadline) {
      n = cq.poll(wcs);
      Thread.onSpinWait();
    }
    assertEquals(1, n, "the engine thread completed the send");
    assertEquals(WcStatus.SUCCESS, wcs[0].status());
  }

  @Test
  void theEngineDoesNotLockTheQueuePairObjectTheApplicationHolds() throws InterruptedException {
    start(Threading.SHARED); // polls do not run the engine: another thread must take the QP lock
    postSend();
    awaitSender();
    port.takeAll().forEach(ByteBuf::release);
    WorkCompletion[] wcs = WorkCompletion.array(4);
    int n = 0;
    synchronized (qp) {
      Thread t = new Thread(() -> port.inject(PEER_LID, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(10).build()));
      t.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (n == 0 && System.nanoTime() < deadline) {
        n = cq.poll(wcs);
        Thread.onSpinWait();
      }
      t.join(20_000);
    }
    assertEquals(1, n, "the ACK was processed while the application held the QP's monitor");
    assertEquals(WcStatus.SUCCESS, wcs[0].status());
  }

  @Test
  void invokerThreadingHasNoEngineThreadAndEveryPostSendsOnThePostingThread() {
    start(Threading.INVOKER);
    assertTrue(!engineThreadExists(), "no engine thread");
    postSend();
    postSend(); // behind one in flight: still sent by the post itself
    synchronized (port) {
      assertEquals(2, port.sent.size(), "both packets left before postSend returned");
      assertSame(Thread.currentThread(), port.sentBy.get(0));
      assertSame(Thread.currentThread(), port.sentBy.get(1));
    }
    port.takeAll().forEach(ByteBuf::release);
    ctx.engine().enqueue(Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(11).build());
    WorkCompletion[] wcs = WorkCompletion.array(4);
    assertEquals(2, cq.poll(wcs), "the poll ran the completer");
    assertEquals(WcStatus.SUCCESS, wcs[0].status());
    assertEquals(WcStatus.SUCCESS, wcs[1].status());
  }

  private Thread awaitSender() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      synchronized (port) {
        if (!port.sentBy.isEmpty()) {
          return port.sentBy.get(0);
        }
      }
      Thread.sleep(1);
    }
    throw new AssertionError("nothing was sent within 20 s");
  }

  @Test
  void theDefaultIsDedicatedThreadingAndEachModeSetsTheFabricsProgress() {
    assertEquals(Threading.DEDICATED, IbParams.defaults().threading);
    assertEquals(Threading.DEDICATED, IbConfig.params(VerbsConfig.of(Map.of())).threading);
    assertEquals("caller", progress(Map.of()));
    assertEquals("caller", progress(Map.of("verbs.threading", "invoker")));
    assertEquals("thread", progress(Map.of("verbs.threading", "shared")));
    assertEquals("thread", progress(Map.of("verbs.fabric.progress", "thread")), "a setting wins");
    assertEquals("caller", progress(Map.of("verbs.threading", "shared", "verbs.fabric.progress", "caller")),
        "a setting wins");
  }

  private static String progress(Map<String, String> settings) {
    return IbConfig.fabricSettings(VerbsConfig.of(settings)).get("verbs.fabric.progress");
  }
}
