package io.github.verbs4j.examples.himeno;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.verbs4j.examples.mp.ThreadCommunicator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HimenoDecompositionTest {
  private static final int ITERATIONS = 12;

  @Test
  void oneRankGivesTheSerialReferencesResidualBitForBit() throws Exception {
    float serial = new SerialHimeno(HimenoSize.TINY).jacobi(ITERATIONS);
    List<Float> gosa = ThreadCommunicator.run(1,
        comm -> new HimenoSolver(comm, HimenoSize.TINY, 1, 1, false).run(ITERATIONS).gosa());
    assertEquals(Float.floatToRawIntBits(serial), Float.floatToRawIntBits(gosa.get(0)),
        "serial " + serial + " vs one rank " + gosa.get(0));
    assertEquals(true, serial > 0 && Float.isFinite(serial));
  }

  @ParameterizedTest(name = "{0} x {1}")
  @CsvSource({"2, 1", "1, 2", "2, 2", "3, 1", "3, 2", "4, 4"})
  void everyDecompositionGivesTheSerialResidualAndPressure(int ndx, int ndy) throws Exception {
    SerialHimeno serial = new SerialHimeno(HimenoSize.TINY);
    float expected = serial.jacobi(ITERATIONS);
    List<float[]> mismatches = ThreadCommunicator.run(ndx * ndy, comm -> {
      HimenoSolver solver = new HimenoSolver(comm, HimenoSize.TINY, ndx, ndy, false);
      float gosa = solver.run(ITERATIONS).gosa();
      Decomposition d = solver.decomposition();
      HimenoGrid g = solver.grid();
      int bad = 0;
      for (int i = 0; i < d.imax(); i++) {
        for (int j = 0; j < d.jmax(); j++) {
          for (int k = 0; k < d.kmax(); k++) {
            float mine = g.p()[g.index(i, j, k)];
            float ref = serial.p(i + d.iOffset(), j + d.jOffset(), k);
            if (Float.floatToRawIntBits(mine) != Float.floatToRawIntBits(ref)) {
              bad++;
            }
          }
        }
      }
      return new float[] {gosa, bad};
    });
    for (int r = 0; r < mismatches.size(); r++) {
      float[] m = mismatches.get(r);
      assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(m[0]), "rank " + r + " residual");
      assertEquals(0f, m[1], "rank " + r + ": points (halos included) that differ from the serial run");
    }
  }

  @Test
  void blocksFollowTheOriginalInitmax() {
    // 16 points over 3 parts: 6, 5, 5 owned; halos on internal sides
    Decomposition d0 = Decomposition.of(16, 16, 32, 3, 1, 0);
    Decomposition d1 = Decomposition.of(16, 16, 32, 3, 1, 1);
    Decomposition d2 = Decomposition.of(16, 16, 32, 3, 1, 2);
    assertArrayEquals(new int[] {7, 0, -1, 1}, new int[] {d0.imax(), d0.iOffset(), d0.left(), d0.right()});
    assertArrayEquals(new int[] {7, 5, 0, 2}, new int[] {d1.imax(), d1.iOffset(), d1.left(), d1.right()});
    assertArrayEquals(new int[] {6, 10, 1, -1}, new int[] {d2.imax(), d2.iOffset(), d2.left(), d2.right()});
    assertEquals(16, d1.jmax());
    // 2 x 2: rank = px * ndy + py
    Decomposition c = Decomposition.of(16, 16, 32, 2, 2, 3);
    assertArrayEquals(new int[] {1, 1, 1, -1, 2, -1}, new int[] {c.px(), c.py(), c.left(), c.right(), c.down(), c.up()});
  }

  @Test
  void dimsAreAsBalancedAsPossible() {
    assertArrayEquals(new int[] {1, 1}, Decomposition.dims(1));
    assertArrayEquals(new int[] {2, 1}, Decomposition.dims(2));
    assertArrayEquals(new int[] {2, 2}, Decomposition.dims(4));
    assertArrayEquals(new int[] {3, 2}, Decomposition.dims(6));
    assertArrayEquals(new int[] {4, 2}, Decomposition.dims(8));
    assertArrayEquals(new int[] {4, 4}, Decomposition.dims(16));
    assertArrayEquals(new int[] {7, 1}, Decomposition.dims(7));
  }

  @Test
  void tooManyRanksForTheGridAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Decomposition.of(HimenoSize.TINY, 16, 1, 0));
    assertEquals("a 16 x 1 grid leaves fewer than 2 points per rank of 16 x 16", e.getMessage());
  }
}
