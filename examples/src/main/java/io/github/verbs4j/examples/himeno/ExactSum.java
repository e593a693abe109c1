package io.github.verbs4j.examples.himeno;

import java.math.BigInteger;

/**
 * An exact, order-independent sum of non-negative floats: each float m·2^e is added as the
 * integer m·2^(e+149) into 32-bit limbs held in longs, so the sum does not depend on how the
 * terms are grouped. Himeno's residual is summed this way so that every decomposition, and the
 * serial reference, report bit-identical values (a float accumulator, as in the original, changes
 * its last bits with the summation order). The limbs are what ranks allreduce.
 */
public final class ExactSum {
  /** Limbs: 9 × 32 bits cover floats up to 2^128 times 2^149 scaling, plus carry room. */
  public static final int LIMBS = 10;
  private static final int SCALE = 149;
  private final long[] limbs = new long[LIMBS];
  private boolean nonFinite;

  /**
   * @param v a non-negative float (NaN or infinity mark the sum non-finite)
   */
  public void add(float v) {
    if (!(v >= 0) || Float.isInfinite(v)) {
      nonFinite = true;
      return;
    }
    int bits = Float.floatToRawIntBits(v);
    int exp = (bits >>> 23) & 0xff;
    long mant = bits & 0x7fffff;
    if (exp != 0) {
      mant |= 0x800000;
    } else {
      exp = 1;
    }
    int shift = exp - 150 + SCALE; // value = mant · 2^(exp-150); scaled by 2^149
    long v64 = mant << (shift & 31);
    int idx = shift >>> 5;
    limbs[idx] += v64 & 0xffffffffL;
    limbs[idx + 1] += v64 >>> 32;
  }

  /** Starts over at zero. */
  public void clear() {
    java.util.Arrays.fill(limbs, 0);
    nonFinite = false;
  }

  /**
   * Propagates carries so every limb is below 2^32, then copies the limbs into {@code out}; the
   * last element is 1 if a non-finite value was added. Sums of such arrays (an allreduce) are
   * sums of the underlying values.
   *
   * @param out at least {@link #LIMBS} + 1 longs
   */
  public void exportTo(long[] out) {
    normalize(limbs);
    System.arraycopy(limbs, 0, out, 0, LIMBS);
    out[LIMBS] = nonFinite ? 1 : 0;
  }

  /**
   * The float nearest the exact sum held in exported (and possibly summed) limbs.
   *
   * @param exported {@link #LIMBS} limbs and the non-finite flag
   * @return the sum, or NaN if any term was not finite
   */
  public static float toFloat(long[] exported) {
    if (exported[LIMBS] != 0) {
      return Float.NaN;
    }
    long[] l = java.util.Arrays.copyOf(exported, LIMBS);
    normalize(l);
    BigInteger big = BigInteger.ZERO;
    for (int i = LIMBS - 1; i >= 0; i--) {
      big = big.shiftLeft(32).add(BigInteger.valueOf(l[i]));
    }
    return (float) Math.scalb(big.doubleValue(), -SCALE);
  }

  /** @return the sum as a float */
  public float toFloat() {
    long[] out = new long[LIMBS + 1];
    exportTo(out);
    return toFloat(out);
  }

  private static void normalize(long[] l) {
    long carry = 0;
    for (int i = 0; i < LIMBS; i++) {
      long v = l[i] + carry;
      l[i] = v & 0xffffffffL;
      carry = v >>> 32;
    }
    if (carry != 0) {
      throw new ArithmeticException("exact sum overflowed " + LIMBS * 32 + " bits");
    }
  }
}
