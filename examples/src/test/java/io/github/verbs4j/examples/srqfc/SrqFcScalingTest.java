package io.github.verbs4j.examples.srqfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code verbs4j srq-fc --scaling}: one flow-control event with several senders at once. In
 * modelled time every mechanism takes longer the more senders refill through it, stop-resend's
 * cost per sender falls (one poll serves them all), and a receive posted first stays the floor.
 */
class SrqFcScalingTest {
  @Test
  void moreSendersCostMoreInAllButLessEachWithStopResend() {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    assertEquals(0, cl.execute("srq-fc", "--scaling", "1,8"), err.toString());
    String text = out.toString();
    double[] one = row(text, 1);
    double[] eight = row(text, 8);
    // The limit-event refill ends when the CPU has handled the interrupt and re-armed the limit;
    // the HCA takes the eight SENDs meanwhile on its own receive pipeline, so it need not grow.
    assertTrue(eight[0] >= one[0], "the limit-event column does not shrink with senders: " + text);
    for (int col = 0; col < 4; col++) {
      assertTrue(col == 0 || eight[col] > one[col], "column " + col + " grows with senders: " + text);
      assertTrue(one[3] <= one[col] && eight[3] <= eight[col], "no flow control is the floor: " + text);
    }
    assertEquals(one[1], one[4], 0.01, text);
    assertTrue(eight[4] < one[4] / 2, "stop-resend per sender at 8 senders: " + text);
    assertTrue(eight[1] < eight[0] / 5, "stop-resend well under the limit-event refill at 8 senders: " + text);
    assertEquals(2, cl.execute("srq-fc", "--scaling", "65"), "more senders than the refill's receives");
  }

  /** @return limit, stop-resend, rnr, no fc, stop-resend per sender of the row for {@code senders} */
  private static double[] row(String text, int senders) {
    boolean table = false;
    for (String line : text.split("\n")) {
      String[] c = line.trim().split("\\s+");
      table |= c[0].equals("senders");
      if (table && c.length == 6 && c[0].equals(Integer.toString(senders))) {
        return new double[] {Double.parseDouble(c[1]), Double.parseDouble(c[2]), Double.parseDouble(c[3]),
            Double.parseDouble(c[4]), Double.parseDouble(c[5])};
      }
    }
    throw new AssertionError("no row for " + senders + " senders in\n" + text);
  }
}
