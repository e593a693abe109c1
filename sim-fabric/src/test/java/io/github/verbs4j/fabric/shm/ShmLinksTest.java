package io.github.verbs4j.fabric.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.FrameHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ring transport alone: two nodes' links in one JVM, the receiver's "fabric thread" an executor. */
class ShmLinksTest {
  @TempDir Path dir;
  private ExecutorService loop;
  private final LinkedBlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
  private final List<ShmLinks> open = new ArrayList<>();

  @BeforeEach
  void start() {
    loop = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void stop() {
    open.forEach(ShmLinks::close);
    loop.shutdownNow();
  }

  private ShmLinks links(int self, int capacity) {
    ShmLinks l = new ShmLinks(dir, capacity, self, 8, "backoff", 200_000, loop, f -> {
      byte[] b = new byte[f.readableBytes()];
      f.readBytes(b);
      f.release();
      received.add(b);
    });
    open.add(l);
    byNode.put(self, l);
    return l;
  }

  private static ByteBuf payload(int sender, int seq, int len) {
    byte[] a = new byte[len];
    for (int i = 0; i < len; i++) {
      a[i] = (byte) (i < 4 ? (seq >>> (8 * i)) : sender * 31 + seq * 7 + i);
    }
    return Unpooled.directBuffer(len).writeBytes(a);
  }

  private final java.util.Map<Integer, ShmLinks> byNode = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Sends until the ring takes it (a full ring says so and writes nothing); rings the receiver's
   * doorbell on its fabric thread when the send says its poller sleeps, as the netty node does.
   */
  private void sendAll(ShmLinks from, int to, int src, ByteBuf p, int seq) {
    while (true) {
      ShmLinks.Result r = from.send(to, FrameHeader.TYPE_DATA, 0, 0, src, to, seq & 0xFFFF, p, seq, seq + 10);
      if (r == ShmLinks.Result.SENT || r == ShmLinks.Result.SENT_WAKE) {
        p.release();
        if (r == ShmLinks.Result.SENT_WAKE) {
          loop.execute(byNode.get(to)::doorbell);
        }
        return;
      }
      assertEquals(ShmLinks.Result.FULL, r);
      Thread.onSpinWait();
    }
  }

  private static void checkFrame(byte[] f, int src, int dst, int seq, int len) {
    ByteBuf b = Unpooled.wrappedBuffer(f);
    FrameHeader h = new FrameHeader().decode(b, 0);
    assertNull(FrameHeader.check(b, 0, 1 << 24, dst));
    assertEquals(src, h.src());
    assertEquals(dst, h.dst());
    assertEquals(len, h.length());
    assertEquals(seq & 0xFFFF, h.tag());
    assertEquals(seq, h.sendTimeNanos());
    assertEquals(seq + 10, h.arrivalTimeNanos());
    ByteBuf expect = payload(src, seq, len);
    assertEquals(expect, b.slice(FrameHeader.LENGTH, len));
    expect.release();
  }

  @Test
  void framesArriveInOrderByteExactThroughWrapAround() throws Exception {
    ShmLinks a = links(1, ShmRing.MIN_CAPACITY);
    ShmLinks b = links(2, ShmRing.MIN_CAPACITY);
    assertTrue(a.attach(2, b.address()));
    assertTrue(a.linked(2));
    int frames = 3000; // ~ 3000 x 1.5 KiB: the 64 KiB ring wraps ~70 times
    for (int i = 0; i < frames; i++) {
      sendAll(a, 2, 1, payload(1, i, (i * 37) % 3000 + 1), i);
    }
    for (int i = 0; i < frames; i++) {
      byte[] f = received.poll(30, TimeUnit.SECONDS);
      assertNotNull(f, "frame " + i);
      checkFrame(f, 1, 2, i, (i * 37) % 3000 + 1);
    }
  }

  @Test
  void aFabricThreadReadingTheRingItselfKeepsTheOrderWithThePoller() throws Exception {
    ShmLinks a = links(1, ShmRing.MIN_CAPACITY);
    ShmLinks b = links(2, ShmRing.MIN_CAPACITY);
    a.attach(2, b.address());
    int frames = 3000;
    java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger inline = new java.util.concurrent.atomic.AtomicInteger();
    Thread caller = new Thread(() -> { // a caller polling now and then, on the fabric thread
      while (!done.get()) {
        try {
          loop.submit(() -> inline.addAndGet(b.pollInline())).get();
        } catch (Exception e) {
          return;
        }
        java.util.concurrent.locks.LockSupport.parkNanos((inline.get() % 3) * 300_000L);
      }
    });
    caller.start();
    for (int i = 0; i < frames; i++) {
      sendAll(a, 2, 1, payload(1, i, 100 + i % 500), i);
    }
    for (int i = 0; i < frames; i++) {
      byte[] f = received.poll(30, TimeUnit.SECONDS);
      assertNotNull(f, "frame " + i);
      checkFrame(f, 1, 2, i, 100 + i % 500);
    }
    done.set(true);
    caller.join();
    assertTrue(inline.get() > 0, "the fabric thread read some frames itself");
  }

  @Test
  void largestFrameGoesThroughAndLargerOnesAreLeftToTheSocket() throws Exception {
    ShmLinks a = links(1, ShmRing.MIN_CAPACITY);
    ShmLinks b = links(2, ShmRing.MIN_CAPACITY);
    a.attach(2, b.address());
    int max = ShmRing.MIN_CAPACITY / 8 - FrameHeader.LENGTH;
    assertTrue(a.fits(2, max));
    assertFalse(a.fits(2, max + 1));
    sendAll(a, 2, 1, payload(1, 7, max), 7);
    checkFrame(received.poll(30, TimeUnit.SECONDS), 1, 2, 7, max);
    ByteBuf big = payload(1, 8, max + 1);
    assertEquals(ShmLinks.Result.NOT_LINKED, a.send(2, FrameHeader.TYPE_DATA, 0, 0, 1, 2, 8, big, 0, 0));
    big.release();
    assertNull(received.poll(200, TimeUnit.MILLISECONDS));
  }

  @Test
  void aOneMiBMtuRingTakesAWholeOneMiBFrame() throws Exception {
    int cap = ShmLinks.capacityFor(1 << 20);
    assertEquals(1 << 24, cap);
    ShmLinks a = links(1, cap);
    ShmLinks b = links(2, cap);
    a.attach(2, b.address());
    assertTrue(a.fits(2, 1 << 20));
    sendAll(a, 2, 1, payload(1, 3, 1 << 20), 3);
    checkFrame(received.poll(30, TimeUnit.SECONDS), 1, 2, 3, 1 << 20);
  }

  @Test
  void aSleepingPollerIsWokenByTheDoorbellAndABusyOneNeedsNone() throws Exception {
    ShmLinks a = links(1, ShmRing.MIN_CAPACITY);
    ShmLinks b = links(2, ShmRing.MIN_CAPACITY);
    assertTrue(a.attach(2, b.address()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!b.sleeping()) { // idle: the poller spins, yields, then sleeps with the word set
      assertTrue(System.nanoTime() < deadline, "the idle poller never slept");
      Thread.sleep(1);
    }
    ByteBuf p = payload(1, 1, 100);
    assertEquals(ShmLinks.Result.SENT_WAKE, a.send(2, FrameHeader.TYPE_DATA, 0, 0, 1, 2, 1, p, 1, 11),
        "a send to a sleeping poller asks for the doorbell");
    p.release();
    assertFalse(b.sleeping(), "the sender took the word: one doorbell per sleep");
    loop.execute(b::doorbell);
    checkFrame(received.poll(30, TimeUnit.SECONDS), 1, 2, 1, 100);
    ByteBuf q = payload(1, 2, 100);
    ShmLinks.Result again = a.send(2, FrameHeader.TYPE_DATA, 0, 0, 1, 2, 2, q, 2, 12);
    q.release();
    if (again == ShmLinks.Result.SENT_WAKE) {
      loop.execute(b::doorbell); // only if the poller went back to sleep in between
    }
    checkFrame(received.poll(30, TimeUnit.SECONDS), 1, 2, 2, 100);
  }

  @Test
  void manySendersKeepTheirOwnOrder() throws Exception {
    ShmLinks target = links(5, ShmRing.MIN_CAPACITY);
    int senders = 4;
    int each = 2000;
    List<Thread> threads = new ArrayList<>();
    for (int s = 1; s <= senders; s++) {
      ShmLinks l = links(s, ShmRing.MIN_CAPACITY);
      assertTrue(l.attach(5, target.address()));
      int src = s;
      threads.add(new Thread(() -> {
        for (int i = 0; i < each; i++) {
          sendAll(l, 5, src, payload(src, i, 64 + i % 200), i);
        }
      }));
    }
    threads.forEach(Thread::start);
    int[] next = new int[senders + 1];
    for (int n = 0; n < senders * each; n++) {
      byte[] f = received.poll(30, TimeUnit.SECONDS);
      assertNotNull(f, "frame " + n);
      int src = new FrameHeader().decode(Unpooled.wrappedBuffer(f), 0).src();
      int seq = next[src]++;
      checkFrame(f, src, 5, seq, 64 + seq % 200);
    }
    for (Thread t : threads) {
      t.join();
    }
    assertArrayEquals(new int[] {0, each, each, each, each}, next);
  }

  /**
   * A frame in a peer's ring has not reached the peer until the peer's reader takes it: a host
   * that did not run its receive path leaves it there ({@link ShmLinks#unread}). The peer here is a
   * ring nobody polls; the test reads it itself.
   */
  @Test
  void framesInAPeersRingCountAsUnreadUntilItsReaderTakesThem() {
    ShmLinks a = links(1, ShmRing.MIN_CAPACITY);
    Path file = dir.resolve("n-0-1-paused.ring");
    ShmRing.Mapped peer = ShmRing.create(file, ShmRing.MIN_CAPACITY);
    assertTrue(a.attach(2, ShmLinks.hostId() + "\n" + file));
    assertEquals(0, a.unread(2));
    for (int seq = 1; seq <= 2; seq++) {
      ByteBuf p = payload(1, seq, 100);
      ShmLinks.Result r = a.send(2, FrameHeader.TYPE_DATA, 0, 0, 1, 2, seq, p, 0, 0);
      p.release();
      assertTrue(r == ShmLinks.Result.SENT || r == ShmLinks.Result.SENT_WAKE, r::toString);
    }
    // Two records of header + 100 bytes, each with Agrona's 8-byte record header, 8-byte aligned.
    long record = (8 + FrameHeader.LENGTH + 100 + 7) & ~7;
    assertEquals(2 * record, a.unread(2));
    assertEquals(1, peer.ring().read((type, buf, index, length) -> { }, 1));
    assertEquals(record, a.unread(2));
    assertEquals(1, peer.ring().read((type, buf, index, length) -> { }));
    assertEquals(0, a.unread(2));
    ByteBuf p = payload(1, 3, 10);
    a.send(2, FrameHeader.TYPE_DATA, 0, 0, 1, 2, 3, p, 0, 0);
    p.release();
    assertTrue(a.unread(2) > 0);
    a.peerDown(2); // a peer that went down has nothing on its way
    assertEquals(0, a.unread(2));
  }

  /**
   * What a sender's ACK timer reads of a peer ({@link ShmLinks#peerCaughtUp}): an idle peer with an
   * empty ring is caught up now (a frame lost on the way never reached it, so a timeout is real);
   * once its reader took frames its engine has not reported taken, only its last report counts
   * (the timer waits for a host that did not run its engine); after the report, now again.
   */
  @Test
  void anIdlePeerIsCaughtUpNowAndABehindOneOnlyAtItsLastReport() throws Exception {
    ShmLinks a = links(1, ShmRing.MIN_CAPACITY);
    ShmLinks b = links(2, ShmRing.MIN_CAPACITY);
    assertTrue(a.attach(2, b.address()));
    long t0 = System.nanoTime();
    assertTrue(a.peerCaughtUp(2) - t0 >= 0, "an idle peer that took nothing is caught up now");
    sendAll(a, 2, 1, payload(1, 1, 100), 1);
    assertNotNull(received.poll(10, TimeUnit.SECONDS));
    long t1 = System.nanoTime();
    assertTrue(a.peerCaughtUp(2) - t1 < 0, "its engine has not reported the frame taken");
    b.caughtUp();
    long t2 = System.nanoTime();
    assertTrue(a.peerCaughtUp(2) - t2 >= 0, "caught up again");
    assertEquals(Long.MAX_VALUE, a.peerCaughtUp(3), "not linked");
  }

  @Test
  void ringFileIsPrivateAndRemovedOnCloseAndPeerDown() throws Exception {
    ShmLinks a = links(1, ShmRing.MIN_CAPACITY);
    ShmLinks b = links(2, ShmRing.MIN_CAPACITY);
    assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(b.file()));
    assertTrue(b.file().getFileName().toString().matches("n-" + ProcessHandle.current().pid() + "-1-[0-9a-f]+\\.ring"));
    a.attach(2, b.address());
    a.peerDown(2);
    assertFalse(a.linked(2));
    assertFalse(Files.exists(b.file()));
    ByteBuf p = payload(1, 1, 8);
    assertEquals(ShmLinks.Result.NOT_LINKED, a.send(2, FrameHeader.TYPE_DATA, 0, 0, 1, 2, 1, p, 0, 0));
    p.release();
    Path own = a.file();
    a.close();
    assertFalse(Files.exists(own));
  }

  @Test
  void aRingOfAnotherHostOrAMissingFileIsNotLinked() {
    ShmLinks a = links(1, ShmRing.MIN_CAPACITY);
    ShmLinks b = links(2, ShmRing.MIN_CAPACITY);
    assertFalse(a.attach(2, "another-boot-id/elsewhere\n" + b.file()));
    assertFalse(a.attach(3, ShmLinks.hostId() + "\n" + dir.resolve("n-1-2-ab.ring")));
    assertFalse(a.attach(2, "off"));
    assertFalse(a.linked(2));
    assertFalse(a.linked(3));
  }
}
