package io.github.verbs4j.examples.srqfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code verbs4j srq-fc} runs its three flow-control events in modelled time and prints them. No
 * figure is pinned yet (docs/srq-flow-control.md: modelled time is being reworked); what is
 * asserted holds for any sound model: every event completes, a stop/resend event costs at least
 * one poll interval more than a plain one-way SEND, and less than the limit-event refill.
 */
class SrqFcCommandTest {
  @Test
  void printsPaperModelledAndRatioForEachMechanism() {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    assertEquals(0, cl.execute("srq-fc"), err.toString());
    String text = out.toString();
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
