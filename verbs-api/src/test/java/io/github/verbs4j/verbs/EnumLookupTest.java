package io.github.verbs4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link EnumLookup}: dense and sparse values, negative values, masks, duplicate detection. */
class EnumLookupTest {
  enum Sparse implements VerbsEnum {
    NEG(-5), ZERO(0), SMALL(3), BIG(1 << 20), HUGE(Integer.MIN_VALUE);

    private final int value;

    Sparse(int value) {
      this.value = value;
    }

    @Override
    public int value() {
      return value;
    }
  }

  enum Twice implements VerbsEnum {
    A(1), B(1);

    private final int value;

    Twice(int value) {
      this.value = value;
    }

    @Override
    public int value() {
      return value;
    }
  }

  enum Bits implements VerbsEnum {
    X(1), Y(2), Z(1 << 12);

    private final int value;

    Bits(int value) {
      this.value = value;
    }

    @Override
    public int value() {
      return value;
    }
  }

  @Test
  void findsDenseSparseAndNegativeValues() {
    EnumLookup<Sparse> l = EnumLookup.of(Sparse.class, "sparse_t");
    for (Sparse s : Sparse.values()) {
      assertSame(s, l.fromValue(s.value()));
    }
  }

  @Test
  void unknownValueIsNamedWithTheCEnumName() {
    EnumLookup<Sparse> l = EnumLookup.of(Sparse.class, "sparse_t");
    for (int v : new int[] {1, 4, -1, 4096, 1 << 21}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> l.fromValue(v));
      assertTrue(e.getMessage().contains("sparse_t") && e.getMessage().contains(Integer.toString(v)), e.getMessage());
    }
  }

  @Test
  void duplicateValuesAreRejectedAtConstruction() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> EnumLookup.of(Twice.class, "twice_t"));
    assertTrue(e.getMessage().contains("1"), e.getMessage());
  }

  @Test
  void masksRoundTripAndUnknownBitsAreNamed() {
    EnumLookup<Bits> l = EnumLookup.of(Bits.class, "bits_t");
    Set<Bits> all = EnumSet.allOf(Bits.class);
    int m = EnumLookup.mask(all);
    assertEquals(1 | 2 | (1 << 12), m);
    assertEquals(all, l.fromMask(m));
    assertEquals(EnumSet.noneOf(Bits.class), l.fromMask(0));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> l.fromMask(m | 8));
    assertTrue(e.getMessage().contains("bits_t") && e.getMessage().contains("0x8"), e.getMessage());
  }
}
