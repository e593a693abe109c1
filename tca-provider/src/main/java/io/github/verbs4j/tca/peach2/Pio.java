package io.github.verbs4j.tca.peach2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Programmed I/O: the CPU stores into the board's window, mapped into the process, and each store
 * becomes a memory write to the address's owner (seed 001 §3.5.1). Lowest latency (0.9 µs to a
 * neighbour, seed 001 §4.2.3) for a few bytes; the CPU does the work, so the source may be any
 * memory and the DMA rules do not apply. Thread-safe.
 */
public final class Pio {
  private final Peach2Board board;
  private final CRC32C crc = new CRC32C();
  private final ByteBuffer word = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);

  Pio(Peach2Board board) {
    this.board = board;
  }

  private void check(long dst, long len) {
    if (!board.destinationValid(dst, len)) {
      throw new IllegalArgumentException("PIO destination 0x" + Long.toHexString(dst) + " (+" + len
          + ") is outside the global window or unmapped on node " + board.nodeId());
    }
  }

  /**
   * Charges the CPU its part of a PIO write — the stores: one posted MMIO store ({@link
   * Peach2Params#dmaDoorbellNs()}, the same kind of store as a doorbell) and the stores beyond the
   * first dword — and says when the write leaves the board: the rest of {@link
   * Peach2Params#pioNs(long)} later (the store's way through the root complex and the board), during
   * which the CPU goes on.
   *
   * @return the modelled time the frames leave, or {@link Long#MIN_VALUE} on a wall clock
   */
  private long issue(long len) {
    Peach2Params p = board.params();
    HostClock clock = board.clock();
    long total = p.pioNs(len);
    long cpu = Math.min(total, p.dmaDoorbellNs() + total - p.pioIssueNs());
    clock.charge(cpu);
    return clock.isModelled() ? clock.nowNanos() + total - cpu : Long.MIN_VALUE;
  }

  /**
   * Stores {@code len} bytes of {@code src} at a global address.
   *
   * @param dst destination global address
   * @param src source (any memory; absolute index)
   * @param index first byte
   * @param len bytes
   */
  public synchronized void write(long dst, ByteBuffer src, int index, int len) {
    check(dst, len);
    long tlps = board.emit(dst, src, index, len, crc, issue(len));
    count(dst, len, tlps);
  }

  /**
   * Stores an 8-byte little-endian word (a flag, a PSN pair).
   *
   * @param dst destination global address
   * @param value the word
   */
  public synchronized void writeLong(long dst, long value) {
    check(dst, 8);
    word.putLong(0, value);
    long tlps = board.emit(dst, word, 0, 8, crc, issue(8));
    count(dst, 8, tlps);
  }

  /**
   * Stores a 4-byte little-endian word (for example into a remote interrupt register).
   *
   * @param dst destination global address
   * @param value the word
   */
  public synchronized void writeInt(long dst, int value) {
    check(dst, 4);
    word.putInt(0, value);
    long tlps = board.emit(dst, word, 0, 4, crc, issue(4));
    count(dst, 4, tlps);
  }

  /**
   * Raises an interrupt on a node by writing its interrupt register (seed 001 §3.5).
   *
   * @param node the target node
   * @param bits bits to set
   */
  public void raiseInterrupt(int node, int bits) {
    writeInt(board.window().interruptRegister(node), bits);
  }

  private void count(long dst, long len, long tlps) {
    boolean local = board.window().nodeOf(dst) == board.nodeId();
    board.counters().transfer(TransferKind.PIO, local || tlps < 0 ? 0 : len, local ? len : 0, Math.max(0, tlps));
  }
}
