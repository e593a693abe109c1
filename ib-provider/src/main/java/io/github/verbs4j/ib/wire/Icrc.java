package io.github.verbs4j.ib.wire;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * Invariant CRC trailer (IBTA 7.8.1), 4 bytes, big-endian, last in every packet: CRC-32 (the IEEE
 * 802.3 polynomial of {@link CRC32}) over every byte from the LRH through the pad. IBTA's ICRC masks
 * the fields a switch may rewrite (VL, FECN/BECN); the simulated fabric rewrites none, so nothing is
 * masked. It catches the corruption the fabric's fault injector introduces; a packet that fails
 * the check is dropped and counted ({@code verbs4j.ib.crc.drops}), never processed.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                        CRC-32 (ICRC)                          |  0
 * +---------------------------------------------------------------+
 * </pre>
 *
 * Not thread-safe: each engine owns one instance.
 */
public final class Icrc {
  /** Trailer length in bytes. */
  public static final int LENGTH = 4;

  private final CRC32 crc = new CRC32();

  /**
   * Computes the CRC of {@code len} bytes at {@code off}.
   *
   * @param b the buffer
   * @param off first byte
   * @param len bytes
   * @return the CRC-32 value
   */
  public int compute(ByteBuf b, int off, int len) {
    crc.reset();
    if (b.nioBufferCount() == 1) {
      ByteBuffer nio = b.internalNioBuffer(off, len);
      crc.update(nio);
    } else if (b.hasArray()) {
      crc.update(b.array(), b.arrayOffset() + off, len);
    } else {
      for (ByteBuffer part : b.nioBuffers(off, len)) {
        crc.update(part);
      }
    }
    return (int) crc.getValue();
  }

  /**
   * Computes the CRC of {@code len} bytes at position {@code pos} of a view (its position and limit
   * are moved; nothing is allocated).
   *
   * @param view a buffer view
   * @param pos first byte
   * @param len bytes
   * @return the CRC-32 value
   */
  public int compute(ByteBuffer view, int pos, int len) {
    crc.reset();
    view.limit(pos + len).position(pos);
    crc.update(view);
    return (int) crc.getValue();
  }

  /**
   * Appends the trailer over bytes {@code [off, end)} at {@code end}.
   *
   * @param b the buffer
   * @param off the packet's first byte (LRH)
   * @param end where the trailer goes (after the pad)
   */
  public void write(ByteBuf b, int off, int end) {
    b.setInt(end, compute(b, off, end - off));
  }

  /**
   * @param b the buffer
   * @param off the packet's first byte (LRH)
   * @param end offset of the trailer
   * @return whether the trailer matches the bytes before it
   */
  public boolean check(ByteBuf b, int off, int end) {
    return b.getInt(end) == compute(b, off, end - off);
  }

  /**
   * {@link #check(ByteBuf, int, int)} reading the bytes through {@code view}, a view of {@code b}
   * in which index {@code i} of {@code b} is position {@code i + delta}.
   *
   * @param b the buffer
   * @param off the packet's first byte (LRH)
   * @param end offset of the trailer
   * @param view the view
   * @param delta view position minus buffer index
   * @return whether the trailer matches the bytes before it
   */
  public boolean check(ByteBuf b, int off, int end, ByteBuffer view, int delta) {
    return b.getInt(end) == compute(view, off + delta, end - off);
  }
}
