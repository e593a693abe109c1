package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.DescriptorMode;
import io.github.verbs4j.tca.peach2.DmaDescriptor;
import io.github.verbs4j.tca.peach2.Peach2Board;
import io.github.verbs4j.tca.peach2.Peach2Link;
import io.github.verbs4j.tca.peach2.Peach2Params;
import io.github.verbs4j.tca.peach2.TcaMallocPool;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.LinkLayer;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.PortAttr;
import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.github.verbs4j.verbs.spi.SoftCompletionChannel;
import io.github.verbs4j.verbs.spi.SoftCompletionQueue;
import io.github.verbs4j.verbs.spi.SoftPort;
import io.github.verbs4j.verbs.spi.runtime.IdleStrategyKey;
import io.github.verbs4j.verbs.spi.runtime.Threading;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * An open {@code tca_peach2}: the PEACH2 board of this node, the receive areas of the packet rings
 * at the start of its {@code tcaMalloc} pool, the {@link Proxy} agent and its runners ({@code
 * verbs.threading}), the job and the meters.
 * Every byte this context sends to another node is a PEACH2 write (PIO or DMA) of the board.
 *
 * <p>The data movers ({@link #gatherRange}, {@link #dmaOut}, {@link #dmaFromRegion}, …) run in the
 * proxy's duty cycle and apply the board's rules: a DMA reads and writes pool memory only, 4-byte aligned, with
 * equal low four address bits; anything else goes through a bounce buffer of the pool (a CPU
 * copy, charged and counted).
 */
final class TcaContext extends AbstractContext {
  /** UD MTU: the largest UD message. */
  static final int UD_MTU = 4096;
  private static final int DMA_DATA = 2;
  private static final int DMA_READ = 3;
  private static final int REGISTER_MODE_MAX = 2048;

  private final Peach2Board board;
  private final Peach2Params params;
  private final VerbsCosts costs = VerbsCosts.defaults();
  private final Job job;
  private final TcaCounters counters;
  private final TcaMallocPool.Block areas;
  private final Proxy proxy;
  private final int eagerMax;
  private final ByteBuffer sendScratch;
  private final TcaMallocPool.Block dataDescriptor;
  private final AtomicInteger nextQpn = new AtomicInteger(0x40);
  private final SoftPort portState;
  private final Peach2Link.CableListener cableListener;

  TcaContext(Device device, VerbsConfig config, DeviceAttr attr, Peach2Board board, Job job,
      MeterRegistry registry) {
    super(device, config, attr);
    this.board = board;
    this.params = board.params();
    this.job = job;
    this.counters = new TcaCounters(registry, board.nodeId());
    counters.memory(memoryAccount());
    this.eagerMax = config.getInt(TcaConfig.EAGER_MAX);
    TcaMallocPool pool = board.hostPool();
    int nodes = board.window().nodes();
    this.areas = pool.allocate(nodes * Layout.AREA, 64);
    if (areas.address() != pool.globalBase()) {
      areas.free();
      throw new IllegalStateException("the ring areas must start the tcaMalloc pool of node " + board.nodeId()
          + " (at 0x" + Long.toHexString(pool.globalBase()) + "), got " + areas);
    }
    this.sendScratch = ByteBuffer.allocateDirect(Math.max(Layout.HB_MAX_PAYLOAD, UD_MTU)).order(ByteOrder.LITTLE_ENDIAN);
    this.dataDescriptor = pool.allocate(DmaDescriptor.LENGTH, 64);
    this.proxy = new Proxy(this, board, areas.buffer(), config.getInt(TcaConfig.LL_MAX),
        ProxyRunners.factory(Threading.of(config), IdleStrategyKey.of(config)));
    counters.gauge("pool.bytes", "bytes of the tcaMalloc pool in use", () -> pool.inUse());
    proxy.start();
    // No event at open (libibverbs raises port events only on a change): the port follows the
    // board's cables; a change racing the listener's registration is caught by the second read.
    this.portState = new SoftPort(this, 1, board.link().cablesUp());
    this.cableListener = portState::linkChanged;
    board.link().addCableListener(cableListener);
    portState.linkChanged(board.link().cablesUp());
  }

  Peach2Board board() {
    return board;
  }

  Proxy proxy() {
    return proxy;
  }

  TcaCounters counters() {
    return counters;
  }

  int eagerMax() {
    return eagerMax;
  }

  int udMtu() {
    return UD_MTU;
  }

  int nextQpNum() {
    return nextQpn.getAndIncrement() & 0xFFFFFF;
  }

  @Override
  protected long portCounter(int port, PortCounter counter) {
    return counters.portCounter(counter);
  }

  @Override
  protected PortAttr portAttr(int port) {
    return PortAttr.builder()
        .state(portState.state())
        .maxMtu(Mtu.MTU_4096)
        .activeMtu(Mtu.MTU_4096)
        .lid(board.nodeId())
        .smLid(1)
        .lmc(0)
        .gidTblLen(1)
        .pkeyTblLen(1)
        .qkeyViolCntr(counters.qkeyViolations())
        .linkLayer(LinkLayer.INFINIBAND)
        .activeSpeed(2) // PCIe Gen2 (5 GT/s per lane)
        .activeWidth(4) // x8
        .build();
  }

  @Override
  protected AbstractProtectionDomain newPd(int handle) {
    return new TcaProtectionDomain(this, handle);
  }

  @Override
  protected SoftCompletionQueue newCq(int cqe, SoftCompletionChannel channel) {
    return new TcaCompletionQueue(this, cqe, channel, proxy);
  }

  @Override
  protected void beforeBlocking() {
    proxy.beforeBlocking();
  }

  /** On a crowded host a thread waits for its completion event in the link's I/O, running the proxy. */
  @Override
  protected boolean awaitProgress(BooleanSupplier ready, long timeoutNanos) {
    return proxy.awaitProgress(ready, timeoutNanos);
  }

  @Override
  protected void channelEventQueued() {
    proxy.wakeAwaiting();
  }

  @Override
  public Job job() {
    return job;
  }

  @Override
  protected void beforeClose() {
    if (job != null) { // a context without a fabric (tests) has no job
      job.leaveModelledSteps(); // no-op unless the job runs in modelled-time steps
    }
  }

  @Override
  public long nowNanos() {
    return board.clock().nowNanos();
  }

  @Override
  public boolean modelledTime() {
    return board.clock().isModelled();
  }

  @Override
  protected void advanceClock(long nanos) {
    board.clock().advanceTo(nanos);
  }

  /** The proxy starts each send WQE at its own post time (SendWqe.postTime). */
  @Override
  protected void stampPosts(long nanos) {
    recordPostTime(nanos);
  }

  @Override
  protected void chargeClock(long nanos) {
    board.clock().charge(nanos);
  }

  @Override
  protected void closeDevice() {
    board.link().removeCableListener(cableListener);
    try {
      proxy.close();
      dataDescriptor.free();
      areas.free();
    } finally {
      counters.close();
      board.close();
    }
  }

  // ================================================================ modelled software costs

  /** @return the host-software primitives charged along each operation's path */
  VerbsCosts costs() {
    return costs;
  }

  /** The CPU writes one 32-byte record to host memory: a WQE, a packet header, a CQE. */
  void chargeStore() {
    board.clock().charge(costs.storeNs());
  }

  /** A poll finds what another agent wrote (a posted WQE, a packet, completions) and takes it. */
  void chargePoll() {
    board.clock().charge(costs.hostPollNs());
  }

  /** An atomic executed by the proxy at the target: a read-modify-write of one line. */
  void chargeAtomic() {
    board.clock().charge(costs.storeNs());
    counters.proxyServed(1);
  }

  /** The CPU copies {@code bytes} (into or out of a ring, or through a bounce buffer). */
  void chargeCopy(long bytes) {
    board.clock().charge(costs.copyNs(bytes));
  }

  /** The CPU read {@code mr}'s memory (the copy is charged apart): gdrcopy's read if it is device memory. */
  void chargeRead(SoftMemoryRegion mr) {
    if (mr.kind() == MemoryKind.DEVICE) {
      board.clock().charge(costs.gdrReadNs());
    }
  }

  /** The CPU read the SGEs of {@code w} (inline data at the post): gdrcopy's read for each in device memory. */
  void chargeReads(SendWqe w) {
    if (!board.clock().isModelled()) {
      return; // a post on the wall clock looks up no region for a cost it would not charge
    }
    for (int i = 0; i < w.numSge; i++) {
      SoftMemoryRegion mr = memoryKeys().byLkey(w.lkey[i]);
      if (mr != null && w.len[i] > 0) {
        chargeRead(mr);
      }
    }
  }

  /** A bounce-buffer copy: charged as a copy, and counted. */
  void chargeBounce(long bytes) {
    chargeCopy(bytes);
    board.counters().bounceCopy(1);
  }

  // ================================================================ local memory

  private SoftMemoryRegion local(ProtectionDomain pd, int lkey, long addr, int len, boolean write) {
    SoftMemoryRegion mr = memoryKeys().byLkey(lkey);
    if (mr == null || !mr.isValid() || mr.pd() != pd || !mr.contains(addr, len)
        || (write && !mr.allows(Access.LOCAL_WRITE))) {
      return null;
    }
    return mr;
  }

  /** Whether every SGE of {@code w} is valid local memory of {@code pd} (writable if {@code write}). */
  boolean checkLocal(ProtectionDomain pd, SendWqe w, boolean write) {
    for (int i = 0; i < w.numSge; i++) {
      if (local(pd, w.lkey[i], w.addr[i], w.len[i], write) == null) {
        return false;
      }
    }
    return true;
  }

  void regionOpened(TcaMemoryRegion mr) {
    regions().add(mr);
  }

  void regionClosed(TcaMemoryRegion mr) {
    regions().remove(mr);
  }

  /** @return a scratch buffer of at least {@code len} bytes (the proxy's duty cycle) */
  ByteBuffer scratch(int len) {
    return sendScratch;
  }

  /**
   * Copies message bytes [from, from + len) of {@code w} (inline or SGEs) into {@code into} at
   * {@code at}, charging a gdrcopy read per piece of device memory (the copy is the caller's).
   */
  void gatherRange(SendWqe w, int from, int len, ByteBuffer into, int at) {
    if (w.isInline()) {
      into.put(at, w.inline, from, len);
      return;
    }
    int skip = from;
    int done = 0;
    for (int i = 0; i < w.numSge && done < len; i++) {
      int sl = w.len[i];
      if (skip >= sl) {
        skip -= sl;
        continue;
      }
      int n = Math.min(sl - skip, len - done);
      SoftMemoryRegion mr = memoryKeys().byLkey(w.lkey[i]);
      mr.copyOut(w.addr[i] + skip, into, at + done, n);
      chargeRead(mr);
      done += n;
      skip = 0;
    }
  }

  /** Scatters {@code len} bytes of {@code src} from {@code at} into the SGEs of {@code w} (checked at start). */
  void scatter(SendWqe w, ByteBuffer src, int at, int len) {
    int done = 0;
    for (int i = 0; i < w.numSge && done < len; i++) {
      int n = Math.min(w.len[i], len - done);
      if (n > 0) {
        memoryKeys().byLkey(w.lkey[i]).copyIn(w.addr[i], src, at + done, n);
        done += n;
      }
    }
  }

  /** Writes an atomic's old value (8 bytes, little-endian) into the first SGE of {@code w}. */
  void putLong(SendWqe w, long value) {
    ByteBuffer b = sendScratch;
    b.putLong(0, value);
    scatter(w, b, 0, 8);
  }

  /**
   * The global address of local memory, if it is pool memory a DMA may use.
   *
   * @return the address, or -1
   */
  long globalAddress(int lkey, long addr, int len) {
    SoftMemoryRegion mr = memoryKeys().byLkey(lkey);
    return mr instanceof TcaMemoryRegion t ? t.globalAddress(addr, len) : -1;
  }

  /** Whether a receive WQE can take {@code len} bytes: each SGE used is valid writable memory of {@code pd}. */
  boolean checkRecv(ProtectionDomain pd, RecvWqe r, int len) {
    int left = len;
    for (int i = 0; i < r.numSge() && left > 0; i++) {
      int n = Math.min(r.length(i), left);
      if (local(pd, r.lkey(i), r.addr(i), n, true) == null) {
        return false;
      }
      left -= n;
    }
    return true;
  }

  /** Scatters into a checked receive WQE, starting {@code skip} bytes into it. */
  void scatterRecv(RecvWqe r, int skip, ByteBuffer src, int at, int len) {
    int done = 0;
    int off = skip;
    for (int i = 0; i < r.numSge() && done < len; i++) {
      int sl = r.length(i);
      if (off >= sl) {
        off -= sl;
        continue;
      }
      int n = Math.min(sl - off, len - done);
      memoryKeys().byLkey(r.lkey(i)).copyIn(r.addr(i) + off, src, at + done, n);
      done += n;
      off = 0;
    }
  }

  /** Where a rendezvous SEND may be DMA-written directly: the receive's first SGE, if pool memory; else -1. */
  long directDestination(ProtectionDomain pd, RecvWqe r, int len) {
    if (r.numSge() < 1 || r.length(0) < len) {
      return -1;
    }
    SoftMemoryRegion mr = local(pd, r.lkey(0), r.addr(0), len, true);
    long g = mr instanceof TcaMemoryRegion t ? t.globalAddress(r.addr(0), len) : -1;
    return g >= 0 && (g & 3) == 0 ? g : -1;
  }

  /** Where a rendezvous WRITE may be DMA-written directly: the region itself, if pool memory; else -1. */
  long directDestination(SoftMemoryRegion mr, long addr, int len) {
    long g = mr instanceof TcaMemoryRegion t ? t.globalAddress(addr, len) : -1;
    return g >= 0 && (g & 3) == 0 ? g : -1;
  }

  /**
   * Moves the first {@code len} bytes of a rendezvous message to {@code dst} by DMA, straight from
   * its SGE when the rules allow, else through a bounce buffer whose low four address bits match.
   */
  void dmaOut(SendWqe w, long dst, int len) {
    if (len == 0) {
      return;
    }
    if (!w.isInline() && w.numSge == 1) {
      long g = globalAddress(w.lkey[0], w.addr[0], len);
      if (g >= 0 && (g & 3) == 0 && ((g ^ dst) & 15) == 0) {
        dma(DMA_DATA, g, dst, len);
        return;
      }
    }
    TcaMallocPool.Block b = board.hostPool().allocate(len + 16, 64);
    try {
      int off = (int) (dst & 15);
      gatherRange(w, 0, len, b.buffer(), off);
      chargeBounce(len);
      dma(DMA_DATA, b.address() + off, dst, len);
    } finally {
      b.free();
    }
  }

  /** The proxy's half of a long READ: the region's bytes to the requester's landing address. */
  void dmaFromRegion(SoftMemoryRegion mr, long addr, int len, long dst) {
    long g = mr instanceof TcaMemoryRegion t ? t.globalAddress(addr, len) : -1;
    if (g >= 0 && (g & 3) == 0 && ((g ^ dst) & 15) == 0) {
      dma(DMA_READ, g, dst, len);
      return;
    }
    TcaMallocPool.Block b = board.hostPool().allocate(len + 16, 64);
    try {
      int off = (int) (dst & 15);
      mr.copyOut(addr, b.buffer(), off, len);
      chargeBounce(len);
      dma(DMA_READ, b.address() + off, dst, len);
    } finally {
      b.free();
    }
  }

  private void dma(int channel, long src, long dst, int len) {
    if (len <= REGISTER_MODE_MAX) {
      board.dmac().channel(channel).startRegister(src, dst, len);
      return;
    }
    synchronized (dataDescriptor) {
      board.dmac().writeHostDescriptor(dataDescriptor, 0, src, dst, len, 0, 0, 0, -1);
      board.dmac().channel(channel).start(DescriptorMode.HOST, dataDescriptor.address());
    }
  }
}
