package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.testing.InJvmJob;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The verbs communicator's protocols (eager slots with credits, rendezvous by WRITE and READ) and
 * MPI matching rules, on the in-JVM loopback test double and on the ib and tca providers over the
 * local fabric, with every connection strategy ({@link MpJob}; on demand with γ = 1, so links are
 * closed and opened again between messages).
 */
class VerbsCommunicatorTest {
  private static final int EAGER = 1024;
  private static final MpConfig CONFIG = MpConfig.defaults().withEagerLimit(EAGER).withSlots(8)
      .withTimeout(Duration.ofSeconds(30));

  private static ByteBuffer intMessage(int v) {
    return ByteBuffer.allocate(4).putInt(0, v);
  }

  @ParameterizedTest
  @EnumSource(MpJob.class)
  void tagsSelectMessagesAndOrderIsKeptPerSourceAndTag(MpJob job) throws Exception {
    List<List<Integer>> got = job.run(2, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, CONFIG)) {
        List<Integer> seen = new ArrayList<>();
        if (comm.rank() == 0) {
          int[] tags = {5, 7, 5, 7, 5, 9};
          for (int i = 0; i < tags.length; i++) {
            comm.send(intMessage(i), 1, tags[i]);
          }
        } else {
          ByteBuffer b = ByteBuffer.allocate(4);
          for (int tag : new int[] {7, 7, 5, 5, 5}) {
            Status s = comm.recv(b, 0, tag);
            assertEquals(tag, s.tag());
            assertEquals(4, s.length());
            seen.add(b.getInt(0));
          }
          Status any = comm.recv(b, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
          assertEquals(new Status(0, 9, 4), any);
          seen.add(b.getInt(0));
        }
        return seen;
      }
    });
    assertEquals(List.of(1, 3, 0, 2, 4, 5), got.get(1));
  }

  @ParameterizedTest
  @EnumSource(MpJob.class)
  void anySourceTakesMessagesFromEveryRank(MpJob job) throws Exception {
    List<Set<Integer>> got = job.run(4, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, CONFIG)) {
        Set<Integer> sources = new HashSet<>();
        if (comm.rank() != 0) {
          comm.send(intMessage(comm.rank() * 10), 0, 1);
        } else {
          ByteBuffer b = ByteBuffer.allocate(4);
          for (int i = 0; i < 3; i++) {
            Status s = comm.recv(b, Communicator.ANY_SOURCE, 1);
            assertEquals(s.source() * 10, b.getInt(0));
            sources.add(s.source());
          }
        }
        return sources;
      }
    });
    assertEquals(Set.of(1, 2, 3), got.get(0));
  }

  enum BufferKind {
    REGISTERED,
    HEAP,
    UNREGISTERED_DIRECT
  }

  static Stream<Arguments> sizes() {
    List<Arguments> list = new ArrayList<>();
    for (MpJob job : MpJob.values()) {
      for (MpConfig.Rendezvous mode : MpConfig.Rendezvous.values()) {
        for (BufferKind kind : BufferKind.values()) {
          list.add(Arguments.of(job, mode, kind));
        }
      }
    }
    return list.stream();
  }

  @ParameterizedTest(name = "{0}: {1} rendezvous, {2} buffers")
  @MethodSource("sizes")
  void messagesAroundTheEagerLimitAndRendezvousArriveIntact(MpJob job, MpConfig.Rendezvous mode, BufferKind kind)
      throws Exception {
    int[] sizes = {0, 1, EAGER - 1, EAGER, EAGER + 1, 100_000, 1 << 20};
    MpConfig cfg = CONFIG.withRendezvous(mode);
    List<Integer> checked = job.run(2, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        int ok = 0;
        for (int size : sizes) {
          ByteBuffer buf = switch (kind) {
            case REGISTERED -> comm.allocate(Math.max(1, size) + 16);
            case HEAP -> ByteBuffer.allocate(size + 16);
            case UNREGISTERED_DIRECT -> ByteBuffer.allocateDirect(size + 16);
          };
          buf.position(16 % (size + 1)).limit(buf.position() + size); // an offset into the buffer
          if (comm.rank() == 0) {
            for (int i = 0; i < size; i++) {
              buf.put(buf.position() + i, (byte) (i * 31 + size));
            }
            comm.send(buf, 1, size);
          } else {
            Status s = comm.recv(buf, 0, size);
            assertEquals(new Status(0, size, size), s);
            for (int i = 0; i < size; i++) {
              assertEquals((byte) (i * 31 + size), buf.get(buf.position() + i), "byte " + i + " of " + size);
            }
            assertEquals(16 % (size + 1), buf.position(), "positions are not changed");
            ok++;
          }
        }
        return ok;
      }
    });
    assertEquals(sizes.length, checked.get(1));
  }

  static Stream<Arguments> jobsAndModes() {
    List<Arguments> list = new ArrayList<>();
    for (MpJob job : MpJob.values()) {
      for (MpConfig.Rendezvous mode : MpConfig.Rendezvous.values()) {
        list.add(Arguments.of(job, mode));
      }
    }
    return list.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("jobsAndModes")
  void aRendezvousMessageSentBeforeItsReceiveIsPostedWaitsForIt(MpJob job, MpConfig.Rendezvous mode)
      throws Exception {
    MpConfig cfg = CONFIG.withRendezvous(mode);
    List<Integer> got = job.run(2, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        ByteBuffer big = comm.allocate(64 * 1024);
        if (comm.rank() == 0) {
          big.putInt(0, 4242);
          Request r = comm.isend(big, 1, 3);
          comm.barrier(); // the receive is posted only after this
          comm.wait(r);
          return 0;
        }
        comm.barrier();
        comm.recv(big, 0, 3);
        return big.getInt(0);
      }
    });
    assertEquals(4242, got.get(1));
  }

  @ParameterizedTest
  @EnumSource(MpJob.class)
  void creditsThrottleAFloodOfEagerMessagesWithoutLosingOne(MpJob job) throws Exception {
    int n = 300;
    List<int[]> got = job.run(2, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, CONFIG)) {
        int[] values = new int[n];
        if (comm.rank() == 0) {
          List<Request> reqs = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            reqs.add(comm.isend(intMessage(i), 1, 2)); // far more than the 4 credits of 8 slots
          }
          comm.barrier();
          comm.waitAll(reqs.toArray(Request[]::new));
        } else {
          comm.barrier(); // everything so far arrived unexpected, or waits for credits
          ByteBuffer b = ByteBuffer.allocate(4);
          for (int i = 0; i < n; i++) {
            comm.recv(b, 0, 2);
            values[i] = b.getInt(0);
          }
        }
        return values;
      }
    });
    int[] expected = new int[n];
    for (int i = 0; i < n; i++) {
      expected[i] = i;
    }
    assertArrayEquals(expected, got.get(1));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("jobsAndModes")
  void aTooLongMessageFailsTheReceiveAndNamesTheSizes(MpJob job, MpConfig.Rendezvous mode) throws Exception {
    MpConfig cfg = CONFIG.withRendezvous(mode);
    List<String> got = job.run(2, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        if (comm.rank() == 0) {
          comm.send(ByteBuffer.allocate(100), 1, 1);
          comm.send(ByteBuffer.allocate(5000), 1, 2);
          return "";
        }
        MpException eager = assertThrows(MpException.class, () -> comm.recv(ByteBuffer.allocate(10), 0, 1));
        MpException rndv = assertThrows(MpException.class, () -> comm.recv(ByteBuffer.allocate(4096), 0, 2));
        return eager.getMessage() + "|" + rndv.getMessage();
      }
    });
    assertTrue(got.get(1).contains("message of 100 bytes from rank 0 tag 1 is truncated: the receive buffer has 10 "
        + "bytes"), got.get(1));
    assertTrue(got.get(1).contains("message of 5000 bytes from rank 0 tag 2 is truncated: the receive buffer has "
        + "4096 bytes"), got.get(1));
  }

  @ParameterizedTest
  @EnumSource(MpJob.class)
  void collectivesOverVerbs(MpJob job) throws Exception {
    List<double[]> got = job.run(3, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, CONFIG)) {
        comm.barrier();
        double[] v = {comm.rank() + 0.5, -comm.rank()};
        comm.allreduce(v, ReduceOp.SUM);
        long[] m = {comm.rank()};
        comm.allreduce(m, ReduceOp.MAX);
        return new double[] {v[0], v[1], m[0]};
      }
    });
    for (double[] r : got) {
      assertArrayEquals(new double[] {4.5, -3, 2}, r);
    }
  }

  @ParameterizedTest
  @EnumSource(MpJob.class)
  void aRankSendsToItself(MpJob job) throws Exception {
    List<Integer> got = job.run(1, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, CONFIG)) {
        comm.send(intMessage(99), 0, 4);
        ByteBuffer b = ByteBuffer.allocate(4);
        Request r = comm.irecv(b, 0, 5);
        comm.send(intMessage(100), 0, 5);
        comm.wait(r);
        int second = b.getInt(0);
        comm.recv(b, 0, 4);
        return b.getInt(0) * 1000 + second;
      }
    });
    assertEquals(99_100, got.get(0));
  }

  @Test
  void badRanksAndTagsAreRefused() throws Exception {
    List<String> got = InJvmJob.LOOPBACK.run(2, ctx -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, CONFIG)) {
        String a = assertThrows(IllegalArgumentException.class, () -> comm.isend(ByteBuffer.allocate(1), 2, 0))
            .getMessage();
        String b = assertThrows(IllegalArgumentException.class, () -> comm.isend(ByteBuffer.allocate(1), 1, -1))
            .getMessage();
        return a + "|" + b;
      }
    });
    assertEquals("dest=2 is not a rank of this communicator (size 2)|tag=-1 must be 0 or more", got.get(0));
  }
}
