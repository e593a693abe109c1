package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.fault.FaultAction;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class Peach2BoardTest {
  private final Boards b = Boards.eight();
  private final Peach2Params p = b.params;

  @AfterEach
  void close() {
    b.close();
  }

  private static byte[] pattern(int n, int seed) {
    byte[] a = new byte[n];
    for (int i = 0; i < n; i++) {
      a[i] = (byte) (i * 31 + seed);
    }
    return a;
  }

  private static byte[] read(TcaMallocPool.Block blk, int off, int n) {
    byte[] a = new byte[n];
    blk.buffer().get(off, a);
    return a;
  }

  private static TcaMallocPool.Block filled(Peach2Board board, int n, int seed) {
    TcaMallocPool.Block blk = board.hostPool().allocate(n, 64);
    blk.buffer().put(0, pattern(n, seed));
    return blk;
  }

  /** Landing times of writes at a node, on its clock. */
  private List<Long> landings(int node) {
    List<Long> t = new ArrayList<>();
    Peach2Board r = b.board(node);
    r.setWriteHook(() -> t.add(r.clock().nowNanos()));
    return t;
  }

  private static long last(List<Long> t) {
    return t.get(t.size() - 1);
  }

  // ------------------------------------------------------------------ PIO

  @Test
  void pioWriteToANeighbourLandsAfterPoint9Microseconds() {
    TcaMallocPool.Block dst = b.board(2).hostPool().allocate(64, 64);
    List<Long> t = landings(2);
    long t0 = b.board(1).clock().nowNanos();
    b.board(1).pio().writeInt(dst.address(), 0xCAFEBABE);
    b.run();
    assertEquals(0xCAFEBABE, dst.buffer().getInt(0));
    assertEquals(900, last(t) - t0, "seed 001 §4.2.3: 0.9 µs CPU to remote CPU by PIO");
    Peach2Counters.Snapshot s = b.board(1).counters().snapshot();
    assertEquals(1, s.transfers().get(TransferKind.PIO));
    assertEquals(4, s.remoteBytes().get(TransferKind.PIO));
    assertEquals(1, s.framesSent());
    assertEquals(LinkFrame.TLP_OVERHEAD + Peach2Tlp.HEADER_LENGTH + 4, s.frameBytesSent());
    assertEquals(1, s.hops());
  }

  @Test
  void aThreeHopWriteAddsLinkLatencyAndForwardingAtEachIntermediateBoard() {
    assertEquals(3, b.board(1).topology().hops(1, 7));
    TcaMallocPool.Block dst = b.board(7).hostPool().allocate(64, 64);
    List<Long> t = landings(7);
    long t0 = b.board(1).clock().nowNanos();
    b.board(1).pio().writeInt(dst.address(), 7);
    b.run();
    assertEquals(p.pioIssueNs() + 3 * p.linkLatencyNs() + 2 * p.forwardNs() + p.wireNs(4), last(t) - t0);
    assertEquals(3, b.board(1).counters().snapshot().maxHops());
  }

  @Test
  void pioToAnUnmappedRemoteAddressIsDroppedByTheReceiverAndCounted() {
    long nowhere = b.board(2).window().hostBase(2) + (1L << 30);
    b.board(1).pio().writeLong(nowhere, 42);
    b.run();
    assertEquals(1L, b.board(2).counters().snapshot().drops().get("unmapped"));
    assertThrows(IllegalArgumentException.class, () -> b.board(1).pio().writeLong(-8, 1));
  }

  // ------------------------------------------------------------------ DMA latency by mode

  @Test
  void dmaMinimumLatencyIs2Point0InternalAnd2Point2HostAndRegisterModeIsFaster() {
    Peach2Board src = b.board(1);
    TcaMallocPool.Block s = filled(src, 64, 1);
    TcaMallocPool.Block d = b.board(2).hostPool().allocate(64, 64);
    List<Long> t = landings(2);

    InternalDescriptorMemory im = src.dmac().internalMemory();
    int idx = im.allocate(1);
    im.write(idx, s.address(), d.address(), 4, 0, 0, 0, -1);
    long t0 = src.clock().nowNanos();
    assertEquals(4, src.dmac().channel(0).start(DescriptorMode.INTERNAL, idx));
    b.run();
    assertEquals(2000, last(t) - t0, "seed 000 §2.6: internal descriptors, 2.0 µs");

    TcaMallocPool.Block desc = src.hostPool().allocate(64, 64);
    src.dmac().writeHostDescriptor(desc, 0, s.address() + 4, d.address() + 4, 4, 0, 0, 0, -1);
    t0 = src.clock().nowNanos();
    src.dmac().channel(1).start(DescriptorMode.HOST, desc.address());
    b.run();
    assertEquals(2200, last(t) - t0, "seed 000 §2.6: host descriptors, 2.2 µs");

    t0 = src.clock().nowNanos();
    src.dmac().channel(2).startRegister(s.address() + 8, d.address() + 8, 4);
    b.run();
    assertEquals(p.dmaRegisterLatencyNs(), last(t) - t0);
    assertArrayEquals(read(s, 0, 12), read(d, 0, 12));

    Peach2Counters.Snapshot c = src.counters().snapshot();
    assertEquals(1, c.transfers().get(TransferKind.DMA_INTERNAL));
    assertEquals(1, c.transfers().get(TransferKind.DMA_HOST));
    assertEquals(1, c.transfers().get(TransferKind.DMA_REGISTER));
    assertEquals(1, c.descriptorsCreated().get(DescriptorMode.INTERNAL));
    assertEquals(1, c.descriptorsCreated().get(DescriptorMode.HOST));
  }

  @Test
  void creatingInternalDescriptorsIsCostlyAndHostDescriptorsCheap() {
    Peach2Board src = b.board(1);
    TcaMallocPool.Block desc = src.hostPool().allocate(64, 64);
    long t0 = src.clock().nowNanos();
    src.dmac().internalMemory().write(0, 0, 0, 0, 0, 0, 0, -1);
    long internal = src.clock().nowNanos() - t0;
    t0 = src.clock().nowNanos();
    src.dmac().writeHostDescriptor(desc, 0, 0, 0, 0, 0, 0, 0, -1);
    long host = src.clock().nowNanos() - t0;
    assertEquals(p.descriptorCreateInternalNs(), internal);
    assertEquals(p.descriptorCreateHostNs(), host);
    assertTrue(internal > 10 * host);
  }

  @Test
  void internalMemoryHoldsAtMost1024Descriptors() {
    InternalDescriptorMemory im = b.board(1).dmac().internalMemory();
    assertEquals(1024, im.capacity());
    int first = im.allocate(1000);
    assertEquals(0, first);
    assertEquals(-1, im.allocate(25));
    assertEquals(1000, im.allocate(24));
    im.free(10, 5);
    assertEquals(10, im.allocate(5));
    assertEquals(-1, im.allocate(1));
  }

  // ------------------------------------------------------------------ chains, stride, status

  @Test
  void aChainReachesSeveralNodesThenWritesTheStatusWordToARemoteFlag() {
    Peach2Board src = b.board(1);
    TcaMallocPool.Block s = filled(src, 3 * 4096, 5);
    TcaMallocPool.Block d2 = b.board(2).hostPool().allocate(4096, 64);
    TcaMallocPool.Block d7 = b.board(7).hostPool().allocate(4096, 64);
    TcaMallocPool.Block d1 = src.hostPool().allocate(4096, 64);
    TcaMallocPool.Block flag = b.board(7).hostPool().allocate(64, 64);
    List<Long> t7 = landings(7);
    TcaMallocPool.Block desc = src.hostPool().allocate(3 * 32, 64);
    src.dmac().writeHostDescriptor(desc, 0, s.address(), d2.address(), 4096, 0, 0, 0, desc.address() + 32);
    src.dmac().writeHostDescriptor(desc, 1, s.address() + 4096, d7.address(), 4096, 0, 0, 0, desc.address() + 64);
    src.dmac().writeHostDescriptor(desc, 2, s.address() + 8192, d1.address(), 4096, 0, 0, 0, -1);
    long moved = src.dmac().channel(1).start(DescriptorMode.HOST, desc.address(), flag.address(), 0x600DL);
    assertEquals(3 * 4096, moved);
    b.run();
    assertArrayEquals(read(s, 0, 4096), read(d2, 0, 4096));
    assertArrayEquals(read(s, 4096, 4096), read(d7, 0, 4096));
    assertArrayEquals(read(s, 8192, 4096), read(d1, 0, 4096));
    assertEquals(0x600DL, flag.buffer().getLong(0));
    assertEquals(2, t7.size());
    assertTrue(t7.get(1) >= t7.get(0), "the status word lands after the data it reports");
    Peach2Counters.Snapshot c = src.counters().snapshot();
    assertEquals(2 * 4096 + 8, c.remoteBytes().get(TransferKind.DMA_HOST));
    assertEquals(4096, c.localBytes().get(TransferKind.DMA_HOST));
    assertEquals(0, c.framesReceived(), "local writes loop back through N without a frame");
  }

  @Test
  void blockStrideGathersAHaloAndCanScatterItWithTheSamePattern() {
    Peach2Board src = b.board(1);
    // 8 rows of 64 bytes; the halo is the first 16 bytes of each row
    TcaMallocPool.Block s = filled(src, 8 * 64, 9);
    TcaMallocPool.Block packed = b.board(3).hostPool().allocate(128, 64);
    TcaMallocPool.Block grid = b.board(3).hostPool().allocate(8 * 64, 64);
    src.dmac().channel(3).startRegister(s.address(), packed.address(), 128, 4, 12, DmaDescriptor.FLAG_STRIDE,
        Dmac.NO_STATUS, 0);
    InternalDescriptorMemory im = src.dmac().internalMemory();
    int i = im.allocate(1);
    im.write(i, s.address(), grid.address(), 128, 4, 12, DmaDescriptor.FLAG_STRIDE | DmaDescriptor.FLAG_STRIDE_DST, -1);
    src.dmac().channel(0).start(DescriptorMode.INTERNAL, i);
    b.run();
    for (int row = 0; row < 8; row++) {
      assertArrayEquals(read(s, row * 64, 16), read(packed, row * 16, 16), "gathered row " + row);
      assertArrayEquals(read(s, row * 64, 16), read(grid, row * 64, 16), "scattered row " + row);
      assertArrayEquals(new byte[48], read(grid, row * 64 + 16, 48), "gap of row " + row + " untouched");
    }
    assertEquals(16, src.counters().snapshot().framesSent(), "one frame per burst");
  }

  @Test
  void fourChained4KiBTransfersReachAboutSeventyPercentOfPeak() {
    Peach2Board src = b.board(1);
    TcaMallocPool.Block s = filled(src, 4 * 4096, 2);
    TcaMallocPool.Block d = b.board(2).hostPool().allocate(4 * 4096, 64);
    TcaMallocPool.Block desc = src.hostPool().allocate(4 * 32, 64);
    for (int k = 0; k < 4; k++) {
      src.dmac().writeHostDescriptor(desc, k, s.address() + k * 4096L, d.address() + k * 4096L, 4096, 0, 0, 0,
          k < 3 ? desc.address() + (k + 1) * 32L : -1);
    }
    List<Long> t = landings(2);
    long t0 = src.clock().nowNanos();
    src.dmac().channel(1).start(DescriptorMode.HOST, desc.address());
    b.run();
    double gbs = 4 * 4096.0 / (last(t) - t0);
    double ofPeak = gbs / 3.5;
    assertTrue(ofPeak > 0.6 && ofPeak < 0.8, "seed 001 §4.1.1: ~70 % of peak with 4 × 4 KiB, got " + ofPeak);
    assertArrayEquals(read(s, 0, 4 * 4096), read(d, 0, 4 * 4096));
  }

  @Test
  void largeTransfersApproachThePeakAndDeviceReadsSaturateAt870MBs() {
    Peach2Board src = b.board(1);
    int n = 4 << 20;
    TcaMallocPool.Block s = filled(src, n, 3);
    TcaMallocPool.Block d = b.board(2).hostPool().allocate(n, 64);
    List<Long> t = landings(2);
    long t0 = src.clock().nowNanos();
    src.dmac().channel(2).startRegister(s.address(), d.address(), n);
    b.run();
    double gbs = (double) n / (last(t) - t0);
    assertEquals(3.5, gbs, 0.05, "seed 001 §4.2.3: 3.5 GB/s peak between CPUs");

    TcaMallocPool.Block gpu = src.devicePool(0).allocate(1 << 20, 64);
    gpu.buffer().put(0, pattern(1 << 20, 4));
    // the sender's clock only paid the fixed cost; let it reach the end of the first transfer
    src.clock().charge(Math.max(0, last(t) - src.clock().nowNanos()));
    t.clear();
    t0 = src.clock().nowNanos();
    src.dmac().channel(2).startRegister(gpu.address(), d.address(), 1 << 20);
    b.run();
    double mbs = (1 << 20) * 1000.0 / (last(t) - t0);
    assertEquals(870, mbs, 20, "seed 001 §4.1.2: DMA reading GPU memory saturates near 870 MB/s");
    assertArrayEquals(read(gpu, 0, 1 << 20), read(d, 0, 1 << 20));
  }

  @Test
  void localDmaMovesWithoutFramesAtNinetyPercentOfTheTheoreticalPeak() {
    Peach2Board src = b.board(4);
    TcaMallocPool.Block s = filled(src, 1 << 20, 6);
    TcaMallocPool.Block d = src.hostPool().allocate(1 << 20, 64);
    long t0 = src.clock().nowNanos();
    src.dmac().channel(0).startRegister(s.address(), d.address(), 1 << 20);
    assertEquals(p.dmaDoorbellNs(), src.clock().nowNanos() - t0, "the CPU pays the doorbell only");
    long spent = src.dmac().channel(0).doneAtNanos() - t0;
    assertArrayEquals(read(s, 0, 1 << 20), read(d, 0, 1 << 20));
    long pieces = (1 << 20) / Peach2Board.MAX_FRAME_DATA;
    assertEquals(p.dmaFixedNs(DescriptorMode.REGISTER) + pieces * p.localTransferNs(Peach2Board.MAX_FRAME_DATA), spent);
    assertEquals(0, src.counters().snapshot().framesSent());
    assertEquals(1 << 20, src.counters().snapshot().localBytes().get(TransferKind.DMA_REGISTER));
  }

  // ------------------------------------------------------------------ rules

  private void assertNothingMoved(Peach2Board src, TcaMallocPool.Block dst) {
    b.run();
    assertArrayEquals(new byte[dst.length()], read(dst, 0, dst.length()), "no byte reached the destination");
    Peach2Counters.Snapshot c = src.counters().snapshot();
    assertEquals(0, c.framesSent());
    for (TransferKind k : TransferKind.values()) {
      assertEquals(0L, c.transfers().get(k), k.name());
    }
  }

  @Test
  void misalignedSourceOrDestinationIsRefusedAndMovesNothing() {
    Peach2Board src = b.board(1);
    TcaMallocPool.Block s = filled(src, 256, 1);
    TcaMallocPool.Block d = b.board(2).hostPool().allocate(256, 64);
    DmaRuleException e = assertThrows(DmaRuleException.class,
        () -> src.dmac().channel(2).startRegister(s.address() + 1, d.address() + 1, 16));
    assertEquals(DmaRule.ALIGNMENT, e.rule());
    assertTrue(e.getMessage().contains("must be 4-byte aligned") && e.getMessage().contains("no bytes moved"),
        e.getMessage());
    e = assertThrows(DmaRuleException.class, () -> src.dmac().channel(2).startRegister(s.address(), d.address() + 2, 16));
    assertEquals(DmaRule.ALIGNMENT, e.rule());
    assertNothingMoved(src, d);
    assertEquals(2L, src.counters().snapshot().violations().get(DmaRule.ALIGNMENT));
  }

  @Test
  void differingLowFourBitsAreRefusedAndMoveNothing() {
    Peach2Board src = b.board(1);
    TcaMallocPool.Block s = filled(src, 256, 1);
    TcaMallocPool.Block d = b.board(2).hostPool().allocate(256, 64);
    DmaRuleException e = assertThrows(DmaRuleException.class,
        () -> src.dmac().channel(2).startRegister(s.address() + 4, d.address() + 8, 16));
    assertEquals(DmaRule.LOW4_MISMATCH, e.rule());
    assertTrue(e.getMessage().contains("low 4 bits"), e.getMessage());
    assertNothingMoved(src, d);
    assertEquals(1L, src.counters().snapshot().violations().get(DmaRule.LOW4_MISMATCH));
  }

  @Test
  void memoryNotFromThePoolIsRefusedEvenLateInAChainAndNothingOfTheChainMoves() {
    Peach2Board src = b.board(1);
    TcaMallocPool.Block s = filled(src, 256, 1);
    TcaMallocPool.Block d = b.board(2).hostPool().allocate(256, 64);
    long notPinned = src.window().hostBase(1) + (1L << 30);
    TcaMallocPool.Block desc = src.hostPool().allocate(64, 64);
    src.dmac().writeHostDescriptor(desc, 0, s.address(), d.address(), 64, 0, 0, 0, desc.address() + 32);
    src.dmac().writeHostDescriptor(desc, 1, notPinned, d.address() + 64, 64, 0, 0, 0, -1);
    DmaRuleException e = assertThrows(DmaRuleException.class,
        () -> src.dmac().channel(1).start(DescriptorMode.HOST, desc.address()));
    assertEquals(DmaRule.NOT_POOL_MEMORY, e.rule());
    assertEquals(1, e.descriptor());
    assertTrue(e.getMessage().contains("is not tcaMalloc or device memory"), e.getMessage());
    // a source on another node is not local memory either (only the N port reads, seed 001 §3.5)
    TcaMallocPool.Block remote = b.board(2).hostPool().allocate(64, 64);
    e = assertThrows(DmaRuleException.class,
        () -> src.dmac().channel(2).startRegister(remote.address(), d.address(), 16));
    assertEquals(DmaRule.NOT_POOL_MEMORY, e.rule());
    assertNothingMoved(src, d);
  }

  @Test
  void destinationsOutsideTheWindowAreRefused() {
    Peach2Board src = b.board(1);
    TcaMallocPool.Block s = filled(src, 64, 1);
    DmaRuleException e = assertThrows(DmaRuleException.class,
        () -> src.dmac().channel(2).startRegister(s.address(), src.window().windowSize(), 16));
    assertEquals(DmaRule.BAD_DESTINATION, e.rule());
    e = assertThrows(DmaRuleException.class,
        () -> src.dmac().channel(2).startRegister(s.address(), src.window().hostBase(1) + (1L << 30), 16));
    assertEquals(DmaRule.BAD_DESTINATION, e.rule(), "an unmapped local destination");
  }

  // ------------------------------------------------------------------ interrupt, ECRC

  @Test
  void aRemoteWriteToTheInterruptRegisterInterruptsTheHostOnceWhileEnabled() {
    Peach2Board target = b.board(3);
    AtomicInteger handled = new AtomicInteger();
    target.interruptRegister().setHandler(handled::incrementAndGet);
    target.interruptRegister().enable(-1);
    long t0 = target.clock().nowNanos();
    b.board(1).pio().raiseInterrupt(3, 1);
    b.board(2).pio().raiseInterrupt(3, 2);
    b.run();
    assertEquals(1, handled.get(), "delivery masks the register until the host enables it again");
    assertEquals(3, target.interruptRegister().takePending());
    assertTrue(target.clock().nowNanos() - t0 >= p.interruptNs());
    Peach2Counters.Snapshot c = target.counters().snapshot();
    assertEquals(2, c.interruptWrites());
    assertEquals(1, c.interruptsDelivered());
    target.interruptRegister().disable();
    b.board(1).pio().raiseInterrupt(3, 4);
    b.run();
    assertEquals(1, handled.get());
    assertEquals(4, target.interruptRegister().pending());
  }

  @Test
  void aCorruptedFrameFailsItsLcrcAndIsReplayedNeverWrittenCorrupt() {
    b.fabric.faults().link(1, 2).at(0, FaultAction.CORRUPT);
    TcaMallocPool.Block s = filled(b.board(1), 4096, 8);
    TcaMallocPool.Block d = b.board(2).hostPool().allocate(4096, 64);
    List<Long> t = landings(2);
    long t0 = b.board(1).clock().nowNanos();
    b.board(1).dmac().channel(2).startRegister(s.address(), d.address(), 4096);
    b.run();
    assertArrayEquals(read(s, 0, 4096), read(d, 0, 4096), "the replay delivered the write");
    assertEquals(1, t.size(), "written once");
    Peach2Counters.Snapshot rx = b.board(2).counters().snapshot();
    Peach2Counters.Snapshot tx = b.board(1).counters().snapshot();
    assertEquals(1, rx.link(Peach2Counters.Link.LCRC_ERRORS));
    assertEquals(1, rx.link(Peach2Counters.Link.NAKS_SENT));
    assertEquals(1, tx.link(Peach2Counters.Link.NAKS_RECEIVED));
    assertEquals(1, tx.link(Peach2Counters.Link.REPLAYED_FRAMES));
    assertEquals(0L, rx.dropsTotal(), "nothing reached the TLP checks corrupted: " + rx.drops());
    long clean = p.dmaFixedNs(DescriptorMode.REGISTER) + p.pathNs(1, 4096);
    // the replay costs the Nak's way back and the frame's second crossing
    assertTrue(last(t) - t0 >= clean + p.pathNs(1, 0) + p.pathNs(1, 4096) - p.wireNs(0),
        "landed at " + (last(t) - t0) + " ns, a clean write at " + clean);
  }

  @Test
  void frameBytesOnTheFabricEqualTheBoardsCount() {
    TcaMallocPool.Block s = filled(b.board(1), 200_000, 8);
    TcaMallocPool.Block d = b.board(6).hostPool().allocate(200_000, 64);
    b.board(1).dmac().channel(2).startRegister(s.address(), d.address(), 200_000);
    b.board(1).pio().writeLong(d.address(), 1);
    b.run();
    Peach2Counters.Snapshot c = b.board(1).counters().snapshot();
    Peach2Counters.Snapshot r = b.board(6).counters().snapshot();
    // the writes, then the receiver's Acks (one per full 64 KiB burst, one for the rest): nothing else
    assertEquals(5, c.framesSent());
    assertEquals(c.remoteBytesTotal() + c.framesSent() * (Peach2Tlp.HEADER_LENGTH + LinkFrame.TLP_OVERHEAD),
        c.frameBytesSent());
    assertEquals(4, r.link(Peach2Counters.Link.ACKS_SENT));
    assertEquals(r.framesSent() * LinkFrame.DLLP_FRAME_LENGTH, r.frameBytesSent());
    assertEquals(c.framesSent() + r.framesSent(), b.fabric.metrics().framesSent());
    assertEquals(c.frameBytesSent() + r.frameBytesSent(),
        (long) b.registry.get("verbs4j.fabric.bytes.sent").functionCounter().count());
    assertEquals(0, c.link(Peach2Counters.Link.REPLAYS), "a lossless link replays nothing");
    assertEquals(0, b.board(1).dataLink().unacknowledgedTlps(6));
  }
}
