package io.github.verbs4j.examples.himeno;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ExactSumTest {
  @Test
  void theSumDoesNotDependOnOrderOrGrouping() {
    Random rnd = new Random(7);
    List<Float> values = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      values.add((float) (rnd.nextDouble() * Math.pow(2, rnd.nextInt(80) - 60)));
    }
    values.add(Float.MIN_VALUE);
    values.add(Float.MAX_VALUE / 4);
    ExactSum a = new ExactSum();
    values.forEach(a::add);
    Collections.shuffle(values, rnd);
    // grouped as 3 "ranks" whose exported limbs are added, as an allreduce does
    ExactSum[] parts = {new ExactSum(), new ExactSum(), new ExactSum()};
    for (int i = 0; i < values.size(); i++) {
      parts[i % 3].add(values.get(i));
    }
    long[] total = new long[ExactSum.LIMBS + 1];
    for (ExactSum p : parts) {
      long[] e = new long[ExactSum.LIMBS + 1];
      p.exportTo(e);
      for (int i = 0; i < total.length; i++) {
        total[i] += e[i];
      }
    }
    assertEquals(Float.floatToRawIntBits(a.toFloat()), Float.floatToRawIntBits(ExactSum.toFloat(total)));
    BigDecimal exact = BigDecimal.ZERO;
    for (float f : values) {
      exact = exact.add(new BigDecimal(f));
    }
    assertEquals(exact.round(MathContext.DECIMAL64).floatValue(), a.toFloat());
  }

  @Test
  void smallValuesAreNotLostNextToLargeOnes() {
    ExactSum s = new ExactSum();
    s.add(1.0f);
    for (int i = 0; i < 1 << 24; i++) {
      s.add(0x1p-24f); // each alone would vanish in a float accumulator
    }
    assertEquals(2.0f, s.toFloat());
  }

  @Test
  void nonFiniteTermsMakeTheSumNaN() {
    ExactSum s = new ExactSum();
    s.add(1f);
    s.add(Float.NaN);
    assertTrue(Float.isNaN(s.toFloat()));
  }
}
