package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link TcaPathBenchmark}'s setup and operation, run outside JMH so the benchmark cannot rot: every
 * operation completes both the SEND on A and the receive on B, with the benchmark's size.
 */
class TcaPathBenchmarkTest {
  private static final int OPERATIONS = 50;

  @ParameterizedTest
  @CsvSource({"8, invoker", "4096, invoker", "16384, invoker", "8, dedicated", "16384, dedicated"})
  void everyOperationCompletesTheSendAndTheReceiveWithTheSize(int size, String threading) {
    TcaPathBenchmark b = new TcaPathBenchmark();
    b.size = size;
    b.threading = threading;
    b.open();
    try {
      for (int i = 0; i < OPERATIONS; i++) {
        b.lastSend.reset(0, WcStatus.GENERAL_ERR, WcOpcode.RDMA_READ, 0);
        b.lastRecv.reset(0, WcStatus.GENERAL_ERR, WcOpcode.RDMA_READ, 0);
        assertEquals(2, b.sendRecvRoundTrip(), "operation " + i);
        assertEquals(WcStatus.SUCCESS, b.lastSend.status(), "send of operation " + i);
        assertEquals(WcOpcode.SEND, b.lastSend.opcode(), "send of operation " + i);
        assertEquals(1, b.lastSend.wrId(), "send of operation " + i);
        assertEquals(WcStatus.SUCCESS, b.lastRecv.status(), "receive of operation " + i);
        assertEquals(WcOpcode.RECV, b.lastRecv.opcode(), "receive of operation " + i);
        assertEquals(2, b.lastRecv.wrId(), "receive of operation " + i);
        assertEquals(size, b.lastRecv.byteLen(), "bytes received in operation " + i);
      }
    } finally {
      b.close();
    }
  }
}
