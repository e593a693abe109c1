package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code verbs4j mp-latency}'s ping-pong on in-JVM ranks: it moves the bytes and reports rank 0's times. */
class MpLatencyCommandTest {
  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"LOOPBACK_BASELINE", "IB_BASELINE", "TCA_BASELINE", "IB_DC"})
  void ranksZeroAndOnePingPongOrExchangeCheckedBytesAndRankZeroGetsItsTimes(MpJob job) throws Exception {
    for (int size : new int[] {0, 8, 2048, 20_000}) { // 20,000 B goes by rendezvous
      for (boolean exchange : new boolean[] {false, true}) {
        List<double[]> r = job.run(3, ctx -> {
          try (VerbsCommunicator c = job.open(ctx, MpConfig.defaults())) {
            return MpLatencyCommand.measure(c, size, 200, 20, exchange);
          }
        });
        double[] zero = r.get(0);
        assertTrue(zero[0] > 0 && zero[1] > 0 && zero[2] >= zero[0], job + " " + size + " B, exchange " + exchange
            + ": median, mean, p99 " + java.util.Arrays.toString(zero));
        assertArrayEquals(new double[3], r.get(1), "only rank 0 reports");
        assertArrayEquals(new double[3], r.get(2), "rank 2 only takes part in the barriers");
      }
    }
  }

  @Test
  void badOptionsAreRefusedNamingTheOption() {
    CommandLine cl = Main.commandLine();
    java.io.StringWriter err = new java.io.StringWriter();
    cl.setErr(new java.io.PrintWriter(err));
    int rc = cl.execute("mp-latency", "--sizes", "8,-1");
    assertTrue(rc != 0 && err.toString().contains("--sizes: -1"), err.toString());
    err.getBuffer().setLength(0);
    rc = cl.execute("mp-latency", "--iters", "0");
    assertTrue(rc != 0 && err.toString().contains("--iters=0"), err.toString());
    err.getBuffer().setLength(0);
    rc = cl.execute("mp-latency", "--iters", "2147483647"); // refused before any array is made
    assertTrue(rc != 0 && err.toString().contains("--iters=2147483647 must be between 1 and 10000000"), err.toString());
    err.getBuffer().setLength(0);
    rc = cl.execute("mp-latency", "--warmup", "-1");
    assertTrue(rc != 0 && err.toString().contains("--warmup=-1"), err.toString());
  }
}
