package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CFormatTest {
  @Test
  void fixedRoundsTheExactBinaryValueHalfToEvenLikeGlibc() {
    assertEquals("0.12   ", CFormat.fixed(0.125, -7, 2)); // exact tie: to even
    assertEquals("1.00   ", CFormat.fixed(1.005, -7, 2)); // 1.005 is 1.00499999... in binary
    assertEquals("2.68", CFormat.fixed(2.675000000000001, 0, 2));
    assertEquals("   3.50", CFormat.fixed(3.5, 7, 2));
    assertEquals("12345.678900", CFormat.fixed(12345.6789, -7, 6));
  }

  @Test
  void fixedKeepsTheSignOfNegativeValuesThatRoundToZero() {
    assertEquals("-0.00", CFormat.fixed(-0.001, 0, 2));
    assertEquals("-0.00", CFormat.fixed(-0.0, 0, 2));
  }

  @Test
  void fixedPrintsInfAndNanLikeC() {
    assertEquals("inf    ", CFormat.fixed(Double.POSITIVE_INFINITY, -7, 2));
    assertEquals("nan    ", CFormat.fixed(Double.NaN, -7, 2));
  }

  @Test
  void alternateHexHasThePrefixInsideTheWidthButNotForZero() {
    assertEquals("0x01", CFormat.altHex(1, 4));
    assertEquals("0x0011", CFormat.altHex(0x11, 6));
    assertEquals("0x2a3b4c", CFormat.altHex(0x2a3b4c, 6));
    assertEquals("0x12345678", CFormat.altHex(0x12345678, 6));
    assertEquals("000000", CFormat.altHex(0, 6));
  }

  @Test
  void integersPadLeftOrRight() {
    assertEquals("2      ", CFormat.integer(2, -7));
    assertEquals("      2", CFormat.integer(2, 7));
    assertEquals("123456789", CFormat.integer(123456789, -7));
  }
}
