package io.github.verbs4j.examples.srqfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code verbs4j srq-fc} runs its flow-control events in modelled time and prints them. Modelled
 * time is deterministic here, so the figures are pinned: the limit-event refill and stop-resend
 * within ±10 % of the paper's 92.8 us and 4.51 us (predicted from t_int, t_setev, t_poll and the
 * link model, none fitted), every figure the same in a second run, and the orderings any sound
 * model keeps.
 */
class SrqFcCommandTest {
  private static String run() {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    assertEquals(0, cl.execute("srq-fc"), err.toString());
    return out.toString();
  }

  @Test
  void perEventCostsLandWithinTenPercentOfThePaperAndRepeat() {
    String text = run();
    double limit = modelled(text, "limit-event refill");
    double stop = modelled(text, "stop-resend");
    assertEquals(92.8, limit, 9.28, text);
    assertEquals(4.51, stop, 0.451, text);
    assertTrue(stop / limit < 0.10, "the paper's -95 %, within the same 10 %: " + text);
    String again = run();
    for (String row : new String[] {"limit-event refill", "stop-resend", "rnr (min_rnr_timer 0.01 ms)",
        "no flow control (one-way)"}) {
      // which thread charges first moves a figure by tens of nanoseconds on the threaded local
      // fabric (91.71 / 91.61 us seen in a cold JVM): the study repeats within 0.5 %, not exactly
      assertEquals(modelled(text, row), modelled(again, row), 0.005 * modelled(text, row),
          () -> row + " repeats: " + text + again);
    }
  }

  @Test
  void printsPaperModelledAndRatioForEachMechanism() {
    String text = run();
    double limit = modelled(text, "limit-event refill");
    double stop = modelled(text, "stop-resend");
    double rnr = modelled(text, "rnr (min_rnr_timer 0.01 ms)");
    double oneWay = modelled(text, "no flow control (one-way)");
    assertTrue(oneWay > 0, text);
    assertTrue(rnr > oneWay, text);
    assertTrue(stop >= oneWay + SrqFcParameters.T_POLL_NANOS / 1e3, text);
    assertTrue(stop < limit, text);
    assertTrue(text.contains("92.80") && text.contains("4.51"), text);
  }

  /** @return the modelled microseconds of the row that starts with {@code name} */
  private static double modelled(String text, String name) {
    for (String line : text.split("\n")) {
      if (line.startsWith(name)) {
        String[] cols = line.substring(name.length()).trim().split("\\s+");
        return Double.parseDouble(cols[1]);
      }
    }
    throw new AssertionError("no row " + name + " in\n" + text);
  }
}
