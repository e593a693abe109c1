package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.fabric.topo.Port;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import java.util.zip.CRC32C;

/**
 * One PEACH2 board (seed 001 §3.3, Fig. 2): the N port to its host, E and W on a ring, S to the
 * other ring; routing registers ({@link AddressMap}); a PIO window ({@link Pio}); a four-channel
 * DMA controller ({@link Dmac}); the remotely writable {@link InterruptRegister}; and on the host
 * side the {@code tcaMalloc} pool and the device (GPU) pools its DMA may use.
 *
 * <p>Only memory writes leave the board (seed 001 §3.5). A write for another node becomes a
 * {@link Peach2Tlp} frame handed to the board's PCIe {@link DataLinkLayer}, which delivers it
 * exactly once and in order whatever the fabric loses, duplicates, reorders or corrupts; a write
 * for this node's own slice is looped back through the N port. A TLP that arrives is checked
 * (version, length, ECRC), routed by its address — it must be for this board's own slice — and
 * written to the host after the board subtracts its offset (seed 001 §3.4). Writes to unmapped
 * addresses are dropped and counted, never applied.
 *
 * <p>Thread-safe: PIO and each DMA channel serialise their own users; the receive path runs on
 * the link thread.
 */
public final class Peach2Board implements AutoCloseable {
  /** Largest data burst carried by one frame. */
  public static final int MAX_FRAME_DATA = 64 * 1024;
  private static final long STALL_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final Peach2Link link;
  private final Peach2Params params;
  private final int nodeId;
  private final GlobalAddressMap window;
  private final AddressMap addressMap;
  private final Peach2Topology topology;
  private final TcaMallocPool hostPool;
  private final TcaMallocPool[] devicePools = new TcaMallocPool[GlobalAddressMap.DEVICES];
  private final Peach2Counters counters;
  private final InterruptRegister interruptRegister;
  private final Dmac dmac;
  private final Pio pio;
  private final DataLinkLayer dataLink;
  private final CRC32C receiveCrc = new CRC32C();
  private final List<IntConsumer> nodeDownListeners = new CopyOnWriteArrayList<>();
  private final java.util.Set<Integer> downNodes = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private volatile Runnable writeHook;
  private volatile boolean closed;

  /**
   * Builds the board of this node.
   *
   * @param link the cables (a fabric node of a PEACH2 topology)
   * @param params modelled costs
   * @param registry where counters go
   * @param hostPoolBytes most bytes of the {@code tcaMalloc} pool
   * @param devicePoolBytes most bytes of each device pool
   */
  public Peach2Board(Peach2Link link, Peach2Params params, MeterRegistry registry, long hostPoolBytes,
      long devicePoolBytes) {
    this.link = link;
    this.params = params;
    this.nodeId = link.nodeId();
    this.topology = link.topology();
    this.window = new GlobalAddressMap(topology.maxNodes(), topology.sliceBits());
    this.addressMap = AddressMap.forBoard(topology, window, nodeId);
    if (hostPoolBytes > window.hostSize() || devicePoolBytes > window.deviceSize()) {
      throw new IllegalArgumentException("pool sizes host=" + hostPoolBytes + ", device=" + devicePoolBytes
          + " exceed the sub-slices (" + window.hostSize() + ", " + window.deviceSize() + ") of " + window);
    }
    this.hostPool = new TcaMallocPool("tcaMalloc pool of node " + nodeId, window.hostBase(nodeId), 0, hostPoolBytes,
        false);
    for (int d = 0; d < devicePools.length; d++) {
      devicePools[d] = new TcaMallocPool("device " + d + " memory of node " + nodeId, window.deviceBase(nodeId, d),
          window.deviceLocalBase(d), devicePoolBytes, true);
    }
    this.counters = new Peach2Counters(registry, nodeId);
    this.interruptRegister = new InterruptRegister(params, link.clock(), counters);
    this.dmac = new Dmac(this);
    this.pio = new Pio(this);
    this.dataLink = new DataLinkLayer(link, params, counters, this::onFrame);
    link.addNodeListener(n -> {
      downNodes.add(n);
      dataLink.peerGone(n);
      for (IntConsumer l : nodeDownListeners) {
        l.accept(n);
      }
    });
  }

  /** @return this board's node id */
  public int nodeId() {
    return nodeId;
  }

  /** @return the modelled costs */
  public Peach2Params params() {
    return params;
  }

  /** @return the sub-cluster's global address window */
  public GlobalAddressMap window() {
    return window;
  }

  /** @return this board's routing registers */
  public AddressMap addressMap() {
    return addressMap;
  }

  /** @return the sub-cluster topology */
  public Peach2Topology topology() {
    return topology;
  }

  /** @return the {@code tcaMalloc} pool (host memory) */
  public TcaMallocPool hostPool() {
    return hostPool;
  }

  /**
   * @param device 0 or 1
   * @return that device's memory pool
   */
  public TcaMallocPool devicePool(int device) {
    return devicePools[device];
  }

  /** @return the counters */
  public Peach2Counters counters() {
    return counters;
  }

  /** @return the interrupt register */
  public InterruptRegister interruptRegister() {
    return interruptRegister;
  }

  /** @return the DMA controller */
  public Dmac dmac() {
    return dmac;
  }

  /** @return the PIO window */
  public Pio pio() {
    return pio;
  }

  /** @return the node clock */
  public HostClock clock() {
    return link.clock();
  }

  /** @return the scheduler of the link thread */
  public HostScheduler scheduler() {
    return link.scheduler();
  }

  /** @return the out-of-band management path */
  public ManagementPort management() {
    return link.management();
  }

  /** @return the link underneath */
  public Peach2Link link() {
    return link;
  }

  /** @return the PCIe data link layer between this board and the fabric */
  public DataLinkLayer dataLink() {
    return dataLink;
  }

  /**
   * Sets a hook run after every write that lands in this node's memory (a simulation hook for a
   * host that polls memory continuously; it models no cost).
   *
   * @param hook the hook, or null
   */
  public void setWriteHook(Runnable hook) {
    this.writeHook = hook;
  }

  /** @param listener told the node id when another node's board becomes unreachable */
  public void addNodeDownListener(IntConsumer listener) {
    nodeDownListeners.add(listener);
  }

  /**
   * The pool holding local pinned memory at a global address of this node.
   *
   * @param address a global address
   * @param len bytes
   * @return the pool, or null if {@code [address, +len)} is not pinned host or device memory here
   */
  public TcaMallocPool poolOf(long address, long len) {
    if (window.nodeOf(address) != nodeId) {
      return null;
    }
    if (hostPool.contains(address, len)) {
      return hostPool;
    }
    for (TcaMallocPool p : devicePools) {
      if (p.contains(address, len)) {
        return p;
      }
    }
    return null;
  }

  /**
   * Whether a write to {@code [address, +len)} would land somewhere: another node's slice, or
   * pinned memory or the registers of this one.
   */
  boolean destinationValid(long address, long len) {
    int n = window.nodeOf(address);
    if (n == 0 || (len > 0 && window.nodeOf(address + len - 1) != n)) {
      return false;
    }
    if (n != nodeId) {
      return true;
    }
    long off = window.localOffset(nodeId, address);
    if (window.region(off) == GlobalAddressMap.Region.REGISTERS) {
      return true;
    }
    return poolOf(address, Math.max(1, len)) != null;
  }

  // ------------------------------------------------------------------ transmit

  /**
   * Emits one write of {@code len} bytes from local memory to a global address, split into frames
   * of at most {@link #MAX_FRAME_DATA}. The caller validated the destination and charged costs.
   *
   * @return TLPs emitted, or -1 if a frame was dropped (the link to the node is down)
   */
  long emit(long dst, ByteBuffer src, int srcIndex, int len, CRC32C crc) {
    return emit(dst, src, srcIndex, len, crc, Long.MIN_VALUE);
  }

  /**
   * Like {@link #emit(long, ByteBuffer, int, int, CRC32C)}, with the frames leaving at modelled
   * time {@code sendTime} (a DMA channel's timeline; {@link Long#MIN_VALUE} = the clock's now).
   *
   * @return TLPs emitted, or -1 if a frame was dropped
   */
  long emit(long dst, ByteBuffer src, int srcIndex, int len, CRC32C crc, long sendTime) {
    int dstNode = window.nodeOf(dst);
    if (dstNode == nodeId) {
      landLocal(dst, src, srcIndex, len);
      return Peach2Tlp.tlpCount(len, params.tlpPayloadBytes());
    }
    Port port = addressMap.route(dst);
    if (port == null || port == Port.N) {
      counters.drop("no_route");
      return -1;
    }
    if (downNodes.contains(dstNode)) {
      counters.drop("node_down"); // the link reported the board gone: the write goes nowhere
      return -1;
    }
    long tlps = 0;
    int done = 0;
    do {
      int piece = Math.min(MAX_FRAME_DATA, len - done);
      ByteBuf f = dataLink.frames.allocate(LinkFrame.capacity(piece));
      ByteBuf w = LinkFrame.raw(f);
      w.writerIndex(LinkFrame.BODY_OFFSET); // the link header, written by the data link layer
      Peach2Tlp.writeHeader(w, nodeId, dst + done, piece);
      if (piece > 0) {
        ByteBuffer nio = w.internalNioBuffer(w.writerIndex(), piece);
        nio.put(nio.position(), src, srcIndex + done, piece);
        w.writerIndex(w.writerIndex() + piece);
      }
      Peach2Tlp.seal(w, LinkFrame.BODY_OFFSET, crc, link.mayCorrupt());
      awaitWritable(dstNode);
      int n = (int) Peach2Tlp.tlpCount(piece, params.tlpPayloadBytes());
      if (!dataLink.transmit(dstNode, f, n, sendTime)) {
        return -1;
      }
      tlps += n;
      done += piece;
    } while (done < len);
    return tlps;
  }

  /** PCIe flow control: a sender stalls while the path is congested (never on the link thread). */
  private void awaitWritable(int dstNode) {
    if (link.isWritable(dstNode) || link.scheduler().inLinkThread()) {
      return;
    }
    long deadline = System.nanoTime() + STALL_LIMIT_NANOS;
    int spins = 0;
    while (!link.isWritable(dstNode) && !closed && !downNodes.contains(dstNode) && System.nanoTime() - deadline < 0) {
      if (++spins < 100) {
        Thread.onSpinWait();
      } else if (spins < 200) {
        Thread.yield();
      } else {
        LockSupport.parkNanos(50_000);
      }
    }
  }

  private void landLocal(long dst, ByteBuffer src, int srcIndex, int len) {
    long off = window.localOffset(nodeId, dst);
    boolean ok;
    switch (window.region(off)) {
      case HOST -> ok = hostPool.write(off, src, srcIndex, len);
      case DEVICE -> {
        int d = window.deviceOf(off);
        ok = devicePools[d].write(off - window.deviceLocalBase(d), src, srcIndex, len);
      }
      case REGISTERS -> {
        ok = len >= 4;
        if (ok) {
          registerWrite(off - window.registerLocalBase(), src.order() == ByteOrder.LITTLE_ENDIAN
              ? src.getInt(srcIndex) : Integer.reverseBytes(src.getInt(srcIndex)));
        }
      }
      default -> ok = false;
    }
    if (!ok) {
      counters.drop("unmapped");
      return;
    }
    Runnable h = writeHook;
    if (h != null) {
      h.run();
    }
  }

  private void registerWrite(long registerOffset, int value) {
    if (registerOffset == GlobalAddressMap.INTERRUPT_REGISTER_OFFSET) {
      interruptRegister.write(value);
    } else {
      counters.drop("unsupported_register");
    }
  }

  // ------------------------------------------------------------------ receive

  private void onFrame(int srcNode, int hops, ByteBuf tlp) {
    ByteBuf frame = LinkFrame.raw(tlp);
    try {
      int off = frame.readerIndex();
      int readable = frame.readableBytes();
      counters.frameReceived(readable);
      String bad;
      synchronized (receiveCrc) {
        bad = Peach2Tlp.check(frame, off, readable, receiveCrc);
      }
      if (bad != null) {
        counters.drop(bad);
        return;
      }
      long address = Peach2Tlp.address(frame, off);
      int len = Peach2Tlp.length(frame, off);
      if (addressMap.route(address) != Port.N || (len > 0 && window.nodeOf(address + len - 1) != nodeId)) {
        counters.drop("misrouted");
        return;
      }
      long local = window.localOffset(nodeId, address);
      int data = off + Peach2Tlp.HEADER_LENGTH;
      boolean ok;
      switch (window.region(local)) {
        case HOST -> ok = hostPool.write(local, frame, data, len);
        case DEVICE -> {
          int d = window.deviceOf(local);
          ok = devicePools[d].write(local - window.deviceLocalBase(d), frame, data, len);
        }
        case REGISTERS -> {
          ok = len >= 4;
          if (ok) {
            registerWrite(local - window.registerLocalBase(), frame.getIntLE(data));
          }
        }
        default -> ok = false;
      }
      if (!ok) {
        counters.drop("unmapped");
        return;
      }
      Runnable h = writeHook;
      if (h != null) {
        h.run();
      }
    } finally {
      tlp.release();
    }
  }

  /** @return whether {@link #close()} ran */
  public boolean isClosed() {
    return closed;
  }

  /** Leaves the fabric. The pools' memory is released with the board. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    dataLink.close(); // first: its timers send nothing once the link underneath is closing
    link.close();
    counters.close();
  }

  @Override
  public String toString() {
    return "Peach2Board{node=" + nodeId + ", " + window + "}";
  }
}
