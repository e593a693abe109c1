package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;

/**
 * Deterministic byte patterns: the same (seed, index) gives the same byte on every rank, so data
 * can be checked byte-exact without sending the expected bytes around. Neighbouring bytes and
 * neighbouring seeds differ, so a shifted, truncated, stale or reordered copy is caught.
 */
public final class Patterns {
  private Patterns() {}

  /**
   * The byte at {@code index} of the pattern {@code seed}.
   *
   * @param seed the pattern
   * @param index position in the message
   * @return the byte
   */
  public static byte at(long seed, long index) {
    long x = (seed * 0x9E3779B97F4A7C15L) ^ (index * 0xC2B2AE3D27D4EB4FL);
    x ^= x >>> 29;
    x *= 0xBF58476D1CE4E5B9L;
    x ^= x >>> 32;
    return (byte) x;
  }

  /**
   * Writes {@code len} bytes of pattern {@code seed}, starting at pattern index {@code from}, into
   * {@code buf} at {@code off}.
   *
   * @param buf the memory
   * @param off where
   * @param len how many
   * @param seed the pattern
   * @param from pattern index of the first byte
   */
  public static void fill(ByteBuffer buf, int off, int len, long seed, long from) {
    for (int i = 0; i < len; i++) {
      buf.put(off + i, at(seed, from + i));
    }
  }

  /**
   * {@link #fill(ByteBuffer, int, int, long, long)} from pattern index 0.
   *
   * @param buf the memory
   * @param off where
   * @param len how many
   * @param seed the pattern
   */
  public static void fill(ByteBuffer buf, int off, int len, long seed) {
    fill(buf, off, len, seed, 0);
  }

  /**
   * Asserts {@code buf} holds pattern {@code seed} (from index {@code from}) at [off, off+len).
   *
   * @param what names the data in the failure message
   * @param buf the memory
   * @param off where
   * @param len how many
   * @param seed the pattern
   * @param from pattern index of the first byte
   */
  public static void verify(String what, ByteBuffer buf, int off, int len, long seed, long from) {
    for (int i = 0; i < len; i++) {
      byte expected = at(seed, from + i);
      byte actual = buf.get(off + i);
      if (actual != expected) {
        fail(what + ": byte " + (from + i) + " (offset " + (off + i) + ") is 0x" + Integer.toHexString(actual & 0xff)
            + ", expected 0x" + Integer.toHexString(expected & 0xff) + " (pattern " + seed + ", " + len + " bytes)");
      }
    }
  }

  /**
   * {@link #verify(String, ByteBuffer, int, int, long, long)} from pattern index 0.
   *
   * @param what names the data
   * @param buf the memory
   * @param off where
   * @param len how many
   * @param seed the pattern
   */
  public static void verify(String what, ByteBuffer buf, int off, int len, long seed) {
    verify(what, buf, off, len, seed, 0);
  }
}
