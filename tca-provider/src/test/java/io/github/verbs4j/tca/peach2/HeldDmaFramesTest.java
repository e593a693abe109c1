package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Modelled time (issue 18): a DMA channel's frames leave as the clock reaches their send time, not
 * all at once stamped ahead. Held frames are released by the clock alone — on the threaded fabric
 * by the modelled timers when the release is the next event — with the data intact, the partner's
 * writes acknowledged within the replay timeout meanwhile, and a write issued after a DMA's
 * doorbell still landing after the DMA's data. (The READ-bandwidth stream that took the link down
 * before is {@code ReproduceTest} in examples.)
 */
class HeldDmaFramesTest {
  private static final int MIB = 1 << 20;
  private Boards b = Boards.eight();

  @AfterEach
  void close() {
    b.close();
  }

  private static TcaMallocPool.Block filled(Peach2Board board, int n) {
    TcaMallocPool.Block blk = board.hostPool().allocate(n, 64);
    for (int i = 0; i < n; i++) {
      blk.buffer().put(i, (byte) (i * 31 + 7));
    }
    return blk;
  }

  /** 4 MiB on one channel (~1.2 ms of timeline) while the partner writes 16 words to this node. */
  private void dmaWhileThePartnerWrites(boolean threaded) throws InterruptedException {
    Peach2Board a = b.board(1);
    Peach2Board c = b.board(2);
    TcaMallocPool.Block s = filled(a, 4 * MIB);
    TcaMallocPool.Block d = c.hostPool().allocate(4 * MIB, 64);
    TcaMallocPool.Block flag = a.hostPool().allocate(64, 64);
    TcaMallocPool.Block desc = a.hostPool().allocate(32, 32);
    CountDownLatch started = new CountDownLatch(1);
    a.scheduler().execute(() -> { // a board engine that never waits
      for (int k = 0; k < 4; k++) {
        a.dmac().writeHostDescriptor(desc, 0, s.address() + (long) k * MIB, d.address() + (long) k * MIB, MIB, 0, 0,
            0, -1);
        a.dmac().channel(0).start(DescriptorMode.HOST, desc.address());
      }
      started.countDown();
    });
    if (!threaded) {
      b.run();
    }
    assertTrue(started.await(60, TimeUnit.SECONDS));
    // the partner writes to this node meanwhile: its link waits for this node's Acks, which go over
    // the link that carries the DMA's data
    for (int i = 0; i < 16; i++) {
      c.pio().writeInt(flag.address() + 4L * i, i);
    }
    if (threaded) {
      long deadline = System.nanoTime() + 60_000_000_000L;
      while ((d.buffer().get(4 * MIB - 1) != s.buffer().get(4 * MIB - 1) || flag.buffer().getInt(60) != 15
          || a.dataLink().unacknowledgedTlps(2) + c.dataLink().unacknowledgedTlps(1) > 0)
          && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
    } else {
      b.run();
    }
    for (int i = 0; i < 4 * MIB; i++) {
      assertEquals(s.buffer().get(i), d.buffer().get(i), "byte " + i);
    }
    assertEquals(15, flag.buffer().getInt(60));
    assertEquals(0, a.dataLink().unacknowledgedTlps(2) + c.dataLink().unacknowledgedTlps(1), "TLPs left unacked");
    // over a lossless fabric in modelled time a replay timer never replays
    assertEquals(0, c.counters().link(Link.REPLAY_TIMEOUTS));
    assertEquals(0, a.counters().link(Link.REPLAY_TIMEOUTS));
  }

  @Test
  void thePartnersWritesAreAckedWithinTheReplayTimeoutWhileDmaFramesAreHeld() throws InterruptedException {
    dmaWhileThePartnerWrites(false);
    // Acked within the replay timeout: no expiry at all (before, the Acks came ~1 ms late, behind the
    // data stamped ahead, and the partner's replay timer ran out again and again)
    assertEquals(0, b.board(2).counters().link(Link.REPLAYS_AVOIDED));
    assertEquals(0, b.board(1).counters().link(Link.REPLAYS_AVOIDED));
  }

  @Test
  void heldDmaFramesLeaveByTheClockAloneOnTheThreadedFabric() throws InterruptedException {
    // only the modelled timers release held frames there; which thread runs first is not fixed, so a
    // timer may pass its deadline while the Ack is queued (counted as avoided, never replayed)
    b.close();
    b = Boards.eightThreaded();
    dmaWhileThePartnerWrites(true);
  }

  @Test
  void aWriteAfterTheDoorbellLandsAfterTheDmaData() {
    Peach2Board a = b.board(1);
    Peach2Board c = b.board(2);
    TcaMallocPool.Block s = filled(a, MIB);
    TcaMallocPool.Block d = c.hostPool().allocate(MIB + 64, 64);
    List<Long> landed = new ArrayList<>();
    c.setWriteHook(() -> landed.add(c.clock().nowNanos()));
    a.dmac().channel(1).startRegister(s.address(), d.address(), 2048);
    TcaMallocPool.Block desc = a.hostPool().allocate(32, 32);
    a.dmac().writeHostDescriptor(desc, 0, s.address(), d.address(), MIB, 0, 0, 0, -1);
    a.dmac().channel(0).start(DescriptorMode.HOST, desc.address());
    a.pio().writeInt(d.address() + MIB, 0x5EED);
    b.run();
    assertEquals(0x5EED, d.buffer().getInt(MIB));
    long pio = landed.get(landed.size() - 1);
    assertTrue(pio >= a.dmac().channel(0).doneAtNanos(), "PIO landed at " + pio + ", before the DMA's end "
        + a.dmac().channel(0).doneAtNanos());
    assertEquals(a.dmac().channel(0).doneAtNanos(), landed.get(landed.size() - 2), 1_000, "the DMA's last frame");
  }
}
