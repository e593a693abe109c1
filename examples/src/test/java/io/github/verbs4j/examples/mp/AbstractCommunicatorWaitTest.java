package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.junit.jupiter.api.Test;

class AbstractCommunicatorWaitTest {
  /** Progress that always reports work but never finishes anything, as a rank with peers queued. */
  private static final class Busy extends AbstractCommunicator {
    Busy() {
      super(0, 2, Duration.ofMillis(50), new NoOpIdleStrategy());
    }

    @Override
    protected Request isend(ByteBuffer data, int dest, int tag, int context) {
      return new Request(Request.Kind.SEND, dest, tag, context, data, data.remaining());
    }

    @Override
    protected Request irecv(ByteBuffer into, int source, int tag, int context) {
      return new Request(Request.Kind.RECV, source, tag, context, into, into.remaining());
    }

    @Override
    protected int progress() {
      return 1;
    }

    @Override
    public ByteBuffer allocate(int bytes) {
      return ByteBuffer.allocate(bytes);
    }

    @Override
    public long nowNanos() {
      return System.nanoTime();
    }

    @Override
    public void compute(long nanos) {}

    @Override
    public void close() {}
  }

  /** The deadline holds however busy progress says it is (before, only idle rounds checked it). */
  @Test
  void aWaitTimesOutWhileProgressReportsWork() {
    Busy c = new Busy();
    Request r = c.irecv(ByteBuffer.allocate(8), 1, 7);
    MpException e = assertTimeoutPreemptively(Duration.ofSeconds(120),
        () -> assertThrows(MpException.class, () -> c.wait(r)), "wait never reached its deadline");
    assertTrue(e.getMessage().contains("did not finish within 50 ms"), e.getMessage());
  }
}
