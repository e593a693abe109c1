package io.github.verbs4j.tca.peach2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The chaining DMA controller (seed 001 §3.5.2, seed 000 §2.3): four channels; a request is a
 * chain of {@link DmaDescriptor}s in internal memory ({@link #internalMemory()}, at most 1024) or
 * in host memory (the {@code tcaMalloc} pool), or a single transfer in register mode. Each
 * descriptor may be a block-stride transfer. When the chain is done the channel can write a status
 * word to a flag address, local or remote (seed 001 §4.2.2), which software polls.
 *
 * <p>The hardware rules are enforced for every descriptor before anything moves (seed 000 §2.4):
 * source and destination 4-byte aligned, their low four bits equal, and the source local pinned
 * memory — the {@code tcaMalloc} pool or device memory; the destination must be in the window
 * (and, on this node, mapped). A violating request throws {@link DmaRuleException}, is counted,
 * and moves no byte.
 *
 * <p>Modelled time: the CPU pays only the doorbell ({@link Peach2Params#dmaDoorbellNs()}); the
 * request then runs on the channel's own timeline — it starts when the doorbell has rung and the
 * channel is free, spends {@link Peach2Params#dmaStartNs} (engine start, first descriptor fetch),
 * and reads its source through the board's N port, the host link, which all four channels share:
 * each frame leaves when its data has been read, one frame's wire time (or, from device memory,
 * {@link Peach2Params#deviceReadMbs()}) after the previous read on the port. So channels overlap,
 * and together they move at most one port's bandwidth. Software that waits for a request (polls
 * its status word) moves its clock to {@link Channel#doneAtNanos()}. The bytes move at once in the
 * calling thread; each channel serialises its own users.
 */
public final class Dmac {
  /** Longest chain the controller follows (a longer one is taken for a loop). */
  public static final int MAX_CHAIN = 65536;
  /** Value of {@code statusAddress} meaning "no status word". */
  public static final long NO_STATUS = -1;

  private final Peach2Board board;
  private final Channel[] channels;
  private final InternalDescriptorMemory internal;
  private long nPortFree; // modelled time the N port's read direction is free; guarded by this

  Dmac(Peach2Board board) {
    this.board = board;
    Peach2Params p = board.params();
    this.internal = new InternalDescriptorMemory(p, board.clock(), board.counters());
    this.channels = new Channel[p.dmaChannels()];
    for (int i = 0; i < channels.length; i++) {
      channels[i] = new Channel(i);
    }
  }

  /**
   * Reads {@code occupancy} ns of data through the N port (host link) no earlier than {@code t}.
   *
   * @return when the read starts (the port is busy until start + occupancy)
   */
  private synchronized long readThroughN(long t, long occupancy) {
    long start = Math.max(t, nPortFree);
    nPortFree = start + occupancy;
    return start;
  }

  /** @return the number of channels (4) */
  public int channels() {
    return channels.length;
  }

  /**
   * @param i 0..channels-1
   * @return the channel
   */
  public Channel channel(int i) {
    return channels[i];
  }

  /** @return the internal descriptor memory */
  public InternalDescriptorMemory internalMemory() {
    return internal;
  }

  /**
   * Writes a descriptor into host memory (cheap: {@link Peach2Params#descriptorCreateHostNs()}).
   *
   * @param block a pool block holding descriptors
   * @param index descriptor index within the block
   * @param src source global address
   * @param dst destination global address
   * @param length bytes
   * @param burstDwords burst in dwords (0 = contiguous)
   * @param gapDwords gap in dwords
   * @param flags stride flags
   * @param next the next descriptor's global address, or -1 for the end
   */
  public void writeHostDescriptor(TcaMallocPool.Block block, int index, long src, long dst, int length,
      int burstDwords, int gapDwords, int flags, long next) {
    ByteBuffer m = block.sharedBuffer();
    DmaDescriptor.write(m, index * DmaDescriptor.LENGTH, src, dst, length, burstDwords, gapDwords, flags,
        next < 0 ? -1 : hostLink(next));
    board.clock().charge(board.params().descriptorCreateHostNs());
    board.counters().descriptorCreated(DescriptorMode.HOST, 1);
  }

  /**
   * @param address a 32-byte aligned global address in the host pool
   * @return the 32-bit link a host descriptor stores for it
   */
  public int hostLink(long address) {
    long off = address - board.hostPool().globalBase();
    if (off < 0 || (off & 31) != 0 || (off >>> 5) > 0xFFFFFFFEL) {
      throw new IllegalArgumentException("descriptor address 0x" + Long.toHexString(address)
          + " is not a 32-byte aligned host pool address of node " + board.nodeId());
    }
    return (int) (off >>> 5);
  }

  /** Time the N port takes to read {@code bytes} of source: a frame's wire time, or device memory's rate. */
  private static long readNs(Peach2Params p, int bytes, boolean device) {
    long wire = p.wireNs(bytes);
    return device ? Math.max(wire, bytes * 1000L / p.deviceReadMbs()) : wire;
  }

  private static long extent(int len, int burstBytes, int gapBytes, boolean strided) {
    if (!strided || len == 0) {
      return len;
    }
    long bursts = (len + (long) burstBytes - 1) / burstBytes;
    long last = len - (bursts - 1) * burstBytes;
    return (bursts - 1) * (burstBytes + (long) gapBytes) + last;
  }

  /** One DMA channel. */
  public final class Channel {
    private final int index;
    private final CRC32C crc = new CRC32C();
    private final ByteBuffer status = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
    private long[] src = new long[16];
    private long[] dst = new long[16];
    private int[] len = new int[16];
    private int[] burst = new int[16];
    private int[] gap = new int[16];
    private int[] flags = new int[16];
    private int count;
    private long free; // the channel's timeline: when its last request is done (modelled ns)

    Channel(int index) {
      this.index = index;
    }

    /**
     * @return the modelled time the channel's last request is done (its status word written): a
     *     host that polls for it moves its clock here ({@link HostClock#advanceTo})
     */
    public synchronized long doneAtNanos() {
      return free;
    }

    /** @return the channel number */
    public int index() {
      return index;
    }

    /**
     * Runs a descriptor chain.
     *
     * @param mode where the chain lives: {@link DescriptorMode#INTERNAL} (head = index) or {@link
     *     DescriptorMode#HOST} (head = global address in the host pool)
     * @param head the first descriptor
     * @return data bytes moved, or -1 if the link refused a frame (destination down)
     * @throws DmaRuleException if any descriptor breaks a rule (nothing moved)
     */
    public long start(DescriptorMode mode, long head) {
      return start(mode, head, NO_STATUS, 0);
    }

    /**
     * Runs a descriptor chain and then writes a status word.
     *
     * @param mode INTERNAL or HOST
     * @param head the first descriptor
     * @param statusAddress where to write the 8-byte status word (local or remote), or {@link
     *     #NO_STATUS}
     * @param statusValue the status word
     * @return data bytes moved, or -1 if the link refused a frame
     * @throws DmaRuleException if any descriptor breaks a rule (nothing moved)
     */
    public synchronized long start(DescriptorMode mode, long head, long statusAddress, long statusValue) {
      if (mode == DescriptorMode.REGISTER) {
        throw new IllegalArgumentException("mode=REGISTER has no descriptors: use startRegister");
      }
      load(mode, head);
      return run(mode, statusAddress, statusValue);
    }

    /**
     * Register mode: one transfer programmed into the channel's registers, no descriptor fetch
     * (seed 001 §3.5.2, §4.1.1).
     *
     * @param source source global address
     * @param destination destination global address
     * @param length bytes
     * @return bytes moved, or -1 if the link refused a frame
     * @throws DmaRuleException if a rule is broken (nothing moved)
     */
    public long startRegister(long source, long destination, int length) {
      return startRegister(source, destination, length, 0, 0, 0, NO_STATUS, 0);
    }

    /**
     * Register mode with block-stride and a status word.
     *
     * @param source source global address
     * @param destination destination global address
     * @param length bytes
     * @param burstDwords burst in dwords (0 = contiguous)
     * @param gapDwords gap in dwords
     * @param strideFlags {@link DmaDescriptor#FLAG_STRIDE}, {@link DmaDescriptor#FLAG_STRIDE_DST}
     * @param statusAddress status word address, or {@link #NO_STATUS}
     * @param statusValue status word
     * @return bytes moved, or -1 if the link refused a frame
     * @throws DmaRuleException if a rule is broken (nothing moved)
     */
    public synchronized long startRegister(long source, long destination, int length, int burstDwords, int gapDwords,
        int strideFlags, long statusAddress, long statusValue) {
      count = 0;
      add(source, destination, length, burstDwords, gapDwords, strideFlags | DmaDescriptor.VERSION << 8);
      return run(DescriptorMode.REGISTER, statusAddress, statusValue);
    }

    private void add(long s, long d, int l, int b, int g, int f) {
      if (count == src.length) {
        int n = count * 2;
        src = Arrays.copyOf(src, n);
        dst = Arrays.copyOf(dst, n);
        len = Arrays.copyOf(len, n);
        burst = Arrays.copyOf(burst, n);
        gap = Arrays.copyOf(gap, n);
        flags = Arrays.copyOf(flags, n);
      }
      src[count] = s;
      dst[count] = d;
      len[count] = l;
      burst[count] = b;
      gap[count] = g;
      flags[count] = f;
      count++;
    }

    private void load(DescriptorMode mode, long head) {
      count = 0;
      long at = head;
      while (true) {
        if (count >= MAX_CHAIN) {
          throw violation(DmaRule.BAD_DESCRIPTOR, count, "chain is longer than " + MAX_CHAIN + " descriptors (a loop?)");
        }
        ByteBuffer m;
        int idx;
        if (mode == DescriptorMode.INTERNAL) {
          if (at < 0 || at >= internal.capacity()) {
            throw violation(DmaRule.BAD_DESCRIPTOR, count, "internal descriptor index=" + at + " is outside [0, "
                + internal.capacity() + ")");
          }
          m = internal.memory();
          idx = (int) at * DmaDescriptor.LENGTH;
        } else {
          TcaMallocPool pool = board.hostPool();
          TcaMallocPool.Segment seg = (at & 31) == 0 ? pool.segmentAt(at - pool.globalBase(), DmaDescriptor.LENGTH) : null;
          if (seg == null) {
            throw violation(DmaRule.NOT_POOL_MEMORY, count, "host descriptor at 0x" + Long.toHexString(at)
                + " is not 32-byte aligned tcaMalloc memory of node " + board.nodeId());
          }
          m = seg.memory();
          idx = (int) (at - pool.globalBase() - seg.start());
        }
        int f = DmaDescriptor.flags(m, idx);
        add(DmaDescriptor.src(m, idx), DmaDescriptor.dst(m, idx), DmaDescriptor.length(m, idx),
            DmaDescriptor.burst(m, idx), DmaDescriptor.gap(m, idx), f | DmaDescriptor.version(m, idx) << 8);
        if ((f & DmaDescriptor.FLAG_CHAIN) == 0) {
          return;
        }
        int next = DmaDescriptor.next(m, idx);
        at = mode == DescriptorMode.INTERNAL ? next : board.hostPool().globalBase() + ((next & 0xFFFFFFFFL) << 5);
      }
    }

    private DmaRuleException violation(DmaRule rule, int i, String message) {
      board.counters().violation(rule);
      return new DmaRuleException(rule, i, "DMA channel " + index + " of node " + board.nodeId() + ": " + message);
    }

    private void validate(long statusAddress) {
      for (int i = 0; i < count; i++) {
        int f = flags[i];
        if ((f >>> 8) != DmaDescriptor.VERSION) {
          throw violation(DmaRule.BAD_DESCRIPTOR, i, "version=" + (f >>> 8) + " (expected " + DmaDescriptor.VERSION + ")");
        }
        if (len[i] < 0) {
          throw violation(DmaRule.BAD_DESCRIPTOR, i, "length=" + (len[i] & 0xFFFFFFFFL) + " exceeds 2^31-1");
        }
        boolean strided = (f & DmaDescriptor.FLAG_STRIDE) != 0;
        if (strided && burst[i] == 0) {
          throw violation(DmaRule.BAD_DESCRIPTOR, i, "block-stride with burst length 0");
        }
        if ((src[i] & 3) != 0 || (dst[i] & 3) != 0) {
          throw violation(DmaRule.ALIGNMENT, i, "source 0x" + Long.toHexString(src[i]) + " and destination 0x"
              + Long.toHexString(dst[i]) + " must be 4-byte aligned (seed 000 §2.4)");
        }
        if (((src[i] ^ dst[i]) & 15) != 0) {
          throw violation(DmaRule.LOW4_MISMATCH, i, "low 4 bits of source 0x" + Long.toHexString(src[i])
              + " (0x" + Long.toHexString(src[i] & 15) + ") and destination 0x" + Long.toHexString(dst[i]) + " (0x"
              + Long.toHexString(dst[i] & 15) + ") differ (seed 000 §2.4)");
        }
        if (len[i] == 0) {
          continue;
        }
        long srcExtent = extent(len[i], burst[i] * 4, gap[i] * 4, strided);
        long dstExtent = extent(len[i], burst[i] * 4, gap[i] * 4, strided && (f & DmaDescriptor.FLAG_STRIDE_DST) != 0);
        if (board.poolOf(src[i], srcExtent) == null) {
          throw violation(DmaRule.NOT_POOL_MEMORY, i, "source [0x" + Long.toHexString(src[i]) + ", +" + srcExtent
              + ") is not tcaMalloc or device memory of node " + board.nodeId() + " (seed 000 §2.4)");
        }
        if (!board.destinationValid(dst[i], dstExtent)) {
          throw violation(DmaRule.BAD_DESTINATION, i, "destination [0x" + Long.toHexString(dst[i]) + ", +" + dstExtent
              + ") is outside the global window or unmapped");
        }
      }
      if (statusAddress != NO_STATUS && ((statusAddress & 3) != 0 || !board.destinationValid(statusAddress, 8))) {
        throw violation(DmaRule.BAD_DESTINATION, count, "status address 0x" + Long.toHexString(statusAddress)
            + " is misaligned, outside the window or unmapped");
      }
    }

    private long run(DescriptorMode mode, long statusAddress, long statusValue) {
      validate(statusAddress);
      Peach2Params p = board.params();
      GlobalAddressMap w = board.window();
      int me = board.nodeId();
      HostClock clock = board.clock();
      clock.charge(p.dmaDoorbellNs()); // the CPU's part: the doorbell
      long t = clock.isModelled() ? Math.max(clock.nowNanos(), free) + p.dmaStartNs(mode) : Long.MIN_VALUE;
      long remote = 0;
      long local = 0;
      long tlps = 0;
      boolean refused = false;
      for (int i = 0; i < count && !refused; i++) {
        if (mode == DescriptorMode.HOST && i > 0 && t != Long.MIN_VALUE) {
          t += Math.max(0, p.hostDescriptorFetchNs() - p.wireNs(len[i - 1]));
        }
        int l = len[i];
        if (l == 0) {
          continue;
        }
        TcaMallocPool pool = board.poolOf(src[i], 1);
        boolean device = pool.isDevice();
        boolean toMe = w.nodeOf(dst[i]) == me;
        boolean strided = (flags[i] & DmaDescriptor.FLAG_STRIDE) != 0;
        long ext = extent(l, burst[i] * 4, gap[i] * 4, strided);
        TcaMallocPool.Segment seg = pool.segmentAt(src[i] - pool.globalBase(), ext);
        int s = (int) (src[i] - pool.globalBase() - seg.start());
        int b = strided ? burst[i] * 4 : Peach2Board.MAX_FRAME_DATA;
        int step = strided ? b + gap[i] * 4 : b;
        int dstStep = !strided || (flags[i] & DmaDescriptor.FLAG_STRIDE_DST) != 0 ? step : b;
        long d = dst[i];
        for (int done = 0; done < l && !refused; done += b, s += step, d += dstStep) {
          int piece = Math.min(b, l - done);
          long sendAt = t;
          if (t != Long.MIN_VALUE) {
            long occupancy = toMe ? p.localTransferNs(piece) : readNs(p, piece, device);
            long start = readThroughN(t, occupancy);
            t = start + occupancy;
            // cut-through: the frame streams out as its data comes in, so its tail leaves when the
            // read ends (later than the read's start when the source is slower than the link)
            sendAt = toMe ? t : Math.max(start, t - p.wireNs(piece));
          }
          long n = board.emit(d, seg.memory(), s, piece, crc, sendAt);
          refused = n < 0;
          tlps += Math.max(0, n);
        }
        if (toMe) {
          local += l;
        } else {
          remote += l;
        }
      }
      long data = remote + local;
      if (!refused && statusAddress != NO_STATUS) {
        status.putLong(0, statusValue);
        long n = board.emit(statusAddress, status, 0, 8, crc, t); // written by the board: no N read
        refused = n < 0;
        tlps += Math.max(0, n);
        if (w.nodeOf(statusAddress) == me) {
          local += 8;
        } else if (!refused) {
          remote += 8;
        }
      }
      if (t != Long.MIN_VALUE) {
        free = t;
      }
      board.counters().transfer(TransferKind.of(mode), remote, local, tlps);
      return refused ? -1 : data;
    }
  }
}
