package io.github.verbs4j.examples.srqfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code verbs4j srq-fc stress}, scaled down and without injected faults (the full-size, lossy run
 * is a documented command): 64 senders over two ranks into an SRQ of 16 with rnr_retry 0 deliver
 * everything exactly once and in order with stop-resend, and fail with RNR_RETRY_EXC_ERR with rnr.
 */
class StressCommandTest {
  private static String[] run(String flow) {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute("srq-fc", "stress", "--flow", flow, "--messages", "1280", "--drop", "0", "--duplicate", "0");
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  @Test
  void stopResendDeliversEverythingOnceAndInOrder() {
    String[] r = run("stop-resend");
    assertEquals("0", r[0], r[1] + r[2]);
    assertTrue(r[1].contains("received 1280 of 1280 (exactly once, in order per sender: yes)"), r[1]);
    assertTrue(r[1].contains("sender completions 1280: {SUCCESS=1280}"), r[1]);
    assertTrue(r[1].contains("RNR NAKs sent by the receiver: 0;"), r[1]);
  }

  @Test
  void rnrWithNoRnrRetriesFails() {
    String[] r = run("rnr");
    assertEquals("1", r[0], r[1] + r[2]);
    assertTrue(r[1].contains("RNR_RETRY_EXC_ERR="), r[1]);
    assertTrue(r[1].contains("result: FAILED (RNR_RETRY_EXC_ERR)"), r[1]);
  }
}
