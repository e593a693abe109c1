package io.github.verbs4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link PortCounter} names are the kernel's hw_counters file names; snapshots subtract. */
class PortCountersTest {
  @Test
  void everyCounterCarriesItsHwCountersFileName() {
    // drivers/infiniband/sw/rxe/rxe_hw_counters.c, and mlx5's local_ack_timeout_err
    Map<PortCounter, String> kernel = new LinkedHashMap<>();
    kernel.put(PortCounter.RCVD_RNR_ERR, "rcvd_rnr_err");
    kernel.put(PortCounter.SEND_RNR_ERR, "send_rnr_err");
    kernel.put(PortCounter.RCVD_SEQ_ERR, "rcvd_seq_err");
    kernel.put(PortCounter.OUT_OF_SEQ_REQUEST, "out_of_seq_request");
    kernel.put(PortCounter.DUPLICATE_REQUEST, "duplicate_request");
    kernel.put(PortCounter.LOCAL_ACK_TIMEOUT_ERR, "local_ack_timeout_err");
    kernel.put(PortCounter.COMPLETER_RETRY_ERR, "completer_retry_err");
    kernel.put(PortCounter.RETRY_EXCEEDED_ERR, "retry_exceeded_err");
    kernel.put(PortCounter.RETRY_RNR_EXCEEDED_ERR, "retry_rnr_exceeded_err");
    assertEquals(PortCounter.values().length, kernel.size());
    for (PortCounter c : PortCounter.values()) {
      assertEquals(kernel.get(c), c.hwName(), c.name());
    }
  }

  @Test
  void aSnapshotMinusAnEarlierOneIsEachCountersIncrease() {
    PortCounters before = PortCounters.read(c -> c.ordinal());
    PortCounters after = PortCounters.read(c -> c == PortCounter.RCVD_RNR_ERR ? 5 + c.ordinal() : c.ordinal());
    PortCounters d = after.minus(before);
    assertEquals(5, d.get(PortCounter.RCVD_RNR_ERR));
    assertEquals(0, d.get(PortCounter.COMPLETER_RETRY_ERR));
    assertEquals(PortCounter.values().length, d.asMap().size());
    assertEquals("{rcvd_rnr_err=5, send_rnr_err=0, rcvd_seq_err=0, out_of_seq_request=0, duplicate_request=0, "
        + "local_ack_timeout_err=0, completer_retry_err=0, retry_exceeded_err=0, retry_rnr_exceeded_err=0}",
        d.toString());
  }
}
