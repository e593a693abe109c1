package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Regression (the rendezvous deadlock of f87bce0): a requester whose ACK timer ran out goes back
 * to a message the responder had already completed, while the responder waits for the FIN of a
 * later rendezvous. The responder must answer the old RTS (or FIN) as a duplicate; it used to drop
 * it, leaving the requester waiting for a CTS and the responder for a FIN until RETRY_EXC_ERR.
 *
 * <p>A local ACK timeout of 8.2 µs (code 1), far below a rendezvous round trip between host
 * threads, makes the requester go back again and again; rendezvous (16 KiB, above the eager limit)
 * and eager SENDs alternate so that old messages are met during a later rendezvous. How often the
 * timer runs out depends on the host's scheduling, so rounds repeat until the responder has met
 * duplicates (usually the first).
 */
class RendezvousDuplicatesTest {
  private static final int MESSAGES = 16;
  private static final int SIZE = 16384;

  @Test
  void oldRequestsMetDuringALaterRendezvousAreAnsweredAndEveryMessageArrivesOnce() {
    try (TwoTcaNodes n = new TwoTcaNodes(1)) {
      ByteBuffer src = n.a.pool.buffer();
      ByteBuffer dst = n.b.pool.buffer();
      double dup = 0;
      long deadline = System.nanoTime() + 30_000_000_000L; // until the responder met duplicates
      for (int round = 0; dup == 0 && System.nanoTime() < deadline; round++) {
        for (int i = 0; i < MESSAGES * SIZE; i++) {
          src.put(i, (byte) (i * 31 + round));
          dst.put(i, (byte) 0);
        }
        exchange(n);
        for (int i = 0; i < MESSAGES; i++) {
          int len = length(i);
          for (int k = 0; k < len; k++) {
            int at = i * SIZE + k;
            assertEquals((byte) (at * 31 + round), dst.get(at), "message " + i + " byte " + k);
          }
        }
        dup = n.registry.get("verbs4j.tca.verbs.duplicates").tag("node", Integer.toString(n.b.lid()))
            .functionCounter().count();
      }
      assertTrue(dup > 0, "the responder met duplicates");
    }
  }

  private static int length(int i) {
    return i % 2 == 0 ? SIZE : 64;
  }

  private static void exchange(TwoTcaNodes n) {
    for (int i = 0; i < MESSAGES; i++) {
      n.b.rc.postRecv(new RecvWr().wrId(i).sge(n.b.pool, (long) i * SIZE, SIZE));
    }
    for (int i = 0; i < MESSAGES; i++) {
      n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, (long) i * SIZE,
          length(i)));
    }
    for (int i = 0; i < MESSAGES; i++) {
      WorkCompletion wc = TwoTcaNodes.poll(n.a.cq);
      assertEquals(WcOpcode.SEND, wc.opcode());
      assertEquals(i, wc.wrId());
    }
    for (int i = 0; i < MESSAGES; i++) {
      WorkCompletion wc = TwoTcaNodes.poll(n.b.cq);
      assertEquals(WcStatus.SUCCESS, wc.status());
      assertEquals(i, wc.wrId(), "in order, once each");
      assertEquals(length(i), wc.byteLen());
    }
  }
}
