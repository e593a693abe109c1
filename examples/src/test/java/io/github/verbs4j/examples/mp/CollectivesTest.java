package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The barrier and allreduce algorithms of {@link AbstractCommunicator}, for power-of-two and other
 * sizes, on in-JVM ranks.
 */
class CollectivesTest {
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 13})
  void allreduceSumAndMaxOfLongsAreExactOnEveryRank(int size) throws Exception {
    List<long[]> results = ThreadCommunicator.run(size, comm -> {
      long[] v = {comm.rank() + 1, -comm.rank(), 1L << 40};
      comm.allreduce(v, ReduceOp.SUM);
      long[] m = {comm.rank() * 7 % 5, -comm.rank()};
      comm.allreduce(m, ReduceOp.MAX);
      return new long[] {v[0], v[1], v[2], m[0], m[1]};
    });
    long max = 0;
    for (int r = 0; r < size; r++) {
      max = Math.max(max, r * 7 % 5);
    }
    long[] expected = {(long) size * (size + 1) / 2, -(long) size * (size - 1) / 2, size * (1L << 40), max, 0};
    for (long[] r : results) {
      assertArrayEquals(expected, r);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 6, 8, 11})
  void allreduceOfDoublesIsBitIdenticalOnEveryRank(int size) throws Exception {
    List<double[]> results = ThreadCommunicator.run(size, comm -> {
      Random rnd = new Random(42 + comm.rank());
      double[] v = new double[5];
      for (int i = 0; i < v.length; i++) {
        v[i] = rnd.nextDouble() * Math.pow(10, rnd.nextInt(20) - 10);
      }
      comm.allreduce(v, ReduceOp.SUM);
      return v;
    });
    double[] expected = new double[5];
    for (int r = 0; r < size; r++) {
      Random rnd = new Random(42 + r);
      for (int i = 0; i < 5; i++) {
        expected[i] += rnd.nextDouble() * Math.pow(10, rnd.nextInt(20) - 10);
      }
    }
    for (double[] r : results) {
      assertArrayEquals(results.get(0), r, 0.0, "every rank holds the same bits");
      for (int i = 0; i < r.length; i++) {
        assertEquals(expected[i], r[i], 1e-12 * Math.abs(expected[i]), "element " + i);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 5, 8})
  void repeatedBarriersAndAllreducesDoNotMixUp(int size) throws Exception {
    List<Long> sums = ThreadCommunicator.run(size, comm -> {
      long total = 0;
      for (int round = 0; round < 20; round++) {
        comm.barrier();
        long[] v = {round * 100 + comm.rank()};
        comm.allreduce(v, ReduceOp.SUM);
        total += v[0];
      }
      return total;
    });
    long expected = 0;
    for (int round = 0; round < 20; round++) {
      expected += (long) round * 100 * size + (long) size * (size - 1) / 2;
    }
    for (long s : sums) {
      assertEquals(expected, s);
    }
  }
}
