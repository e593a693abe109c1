package io.github.verbs4j.fabric.coord;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.auth.Handshake;
import io.github.verbs4j.fabric.testing.Async;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code verbs.fabric.kvs=hashed} over the socket coordinator: it relays, the members hold. */
class KvsRelayTest {
  private static final Duration T = Duration.ofSeconds(20);
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private Coordinator coordinator() {
    Coordinator c = Coordinator.start("127.0.0.1", 0, Duration.ofSeconds(5));
    closeables.add(c);
    return c;
  }

  private CoordinatorClient member(Coordinator c, CoordinatorTest.Recorder events, int rank, int size) {
    CoordinatorClient cl = CoordinatorClient.connect("127.0.0.1", c.port(), T, Duration.ofMillis(100), events);
    closeables.add(cl);
    cl.hello(rank, size, "tcp:x:" + rank, "h", "switch", KvsPlacement.HASHED, T);
    return cl;
  }

  private List<CoordinatorClient> members(Coordinator c, int size) {
    List<CoordinatorClient> l = new ArrayList<>();
    for (int r = 0; r < size; r++) {
      l.add(member(c, new CoordinatorTest.Recorder(), r, size));
    }
    return l;
  }

  /** @return a key held by {@code holder} in a job of {@code size} */
  private static String keyHeldBy(int holder, int size, String prefix) {
    for (int i = 0; ; i++) {
      if (KvsPlacement.holder(prefix + i, size) == holder) {
        return prefix + i;
      }
    }
  }

  @Test
  void sixteenMembersEachHoldExactlyTheKeysThatHashToThemAndTheCoordinatorNone() throws Exception {
    Coordinator c = coordinator();
    int n = 16;
    int per = 10;
    List<CoordinatorClient> ms = members(c, n);
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (int rank = 0; rank < n; rank++) {
      CoordinatorClient m = ms.get(rank);
      int self = rank;
      all.add(Async.run(() -> {
        for (int i = 0; i < per; i++) {
          m.put("addr/" + self + "/" + i, value(self, i), T);
        }
        for (int r = 0; r < n; r++) {
          for (int i = 0; i < per; i++) {
            assertArrayEquals(value(r, i), m.get("addr/" + r + "/" + i, T), "rank " + self + " got addr/" + r + "/" + i);
          }
        }
      }));
    }
    for (CompletableFuture<Void> f : all) {
      f.get(60, TimeUnit.SECONDS);
    }
    assertEquals(KvsPlacement.HASHED, c.kvsPlacement());
    assertEquals(new JobChannel.CoordinatorKvs(0, 0, 0), c.kvs());
    assertEquals(new JobChannel.CoordinatorKvs(0, 0, 0), ms.get(5).coordinatorKvs(T), "asked over the wire");
    int total = 0;
    for (int rank = 0; rank < n; rank++) {
      long pairs = 0;
      long bytes = 0;
      for (int r = 0; r < n; r++) {
        for (int i = 0; i < per; i++) {
          String k = "addr/" + r + "/" + i;
          if (KvsPlacement.holder(k, n) == rank) {
            pairs++;
            bytes += k.length() + value(r, i).length + KvsPlacement.ENTRY_OVERHEAD;
          }
        }
      }
      assertEquals(pairs, ms.get(rank).kvsPairs(), "pairs of rank " + rank);
      assertEquals(bytes, ms.get(rank).kvsBytes(), "bytes of rank " + rank);
      total += ms.get(rank).kvsPairs();
    }
    assertEquals(n * per, total);
  }

  private static byte[] value(int rank, int i) {
    byte[] v = new byte[1 + (rank * 7 + i * 13) % 61];
    for (int j = 0; j < v.length; j++) {
      v[j] = (byte) (rank * 31 + i * 17 + j);
    }
    return v;
  }

  @Test
  void theHolderKeepsAWaitingGetForALaterPutAndRefusesAnotherValueAsTheRootDoes() throws Exception {
    Coordinator c = coordinator();
    List<CoordinatorClient> ms = members(c, 3);
    String k = keyHeldBy(2, 3, "rkey/");
    CompletableFuture<byte[]> pending = Async.supply(() -> ms.get(1).get(k, T));
    await().atMost(10, TimeUnit.SECONDS).until(() -> c.kvs().inFlight() == 1);
    assertFalse(pending.isDone());
    ms.get(0).put(k, new byte[] {1, 2, 3}, T);
    assertArrayEquals(new byte[] {1, 2, 3}, pending.get(10, TimeUnit.SECONDS));
    ms.get(1).put(k, new byte[] {1, 2, 3}, T);
    FabricException e = assertThrows(FabricException.class, () -> ms.get(0).put(k, new byte[] {9}, T));
    assertEquals("kvPut key='" + k + "': key '" + k + "' already holds another value (3 bytes); keys are write-once", e.getMessage());
    // The holder's own put of one of its keys takes no round trip and fails the same way.
    e = assertThrows(FabricException.class, () -> ms.get(2).put(k, new byte[] {9}, T));
    assertEquals("kvPut key='" + k + "': key '" + k + "' already holds another value (3 bytes); keys are write-once", e.getMessage());
    FabricTimeoutException t = assertThrows(FabricTimeoutException.class, () -> ms.get(0).get("never", Duration.ofMillis(100)));
    assertEquals("kvGet key='never' timed out after PT0.1S", t.getMessage());
    assertEquals(1, ms.get(2).kvsPairs());
    assertEquals(0, ms.get(0).kvsPairs() + ms.get(1).kvsPairs());
    assertEquals(0, c.kvs().pairs());
  }

  @Test
  void requestsForAHolderThatHasNotJoinedWaitForIt() throws Exception {
    Coordinator c = coordinator();
    CoordinatorClient a = member(c, new CoordinatorTest.Recorder(), 0, 3);
    CoordinatorClient b = member(c, new CoordinatorTest.Recorder(), 1, 3);
    String k = keyHeldBy(2, 3, "late/");
    CompletableFuture<byte[]> got = Async.supply(() -> b.get(k, T));
    CompletableFuture<Void> put = Async.run(() -> a.put(k, "v".getBytes(StandardCharsets.UTF_8), T));
    await().atMost(10, TimeUnit.SECONDS).until(() -> c.kvs().inFlight() == 2);
    assertFalse(put.isDone());
    CoordinatorClient holder = member(c, new CoordinatorTest.Recorder(), 2, 3);
    put.get(10, TimeUnit.SECONDS);
    assertEquals("v", new String(got.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
    assertEquals(1, holder.kvsPairs());
    assertEquals(0, c.kvs().inFlight());
  }

  @Test
  void withRootTheCoordinatorHoldsEveryPairAndSaysSoOverTheWire() {
    Coordinator c = coordinator();
    CoordinatorClient a = CoordinatorClient.connect("127.0.0.1", c.port(), T, Duration.ofMillis(100), new CoordinatorTest.Recorder());
    closeables.add(a);
    a.hello(0, 1, "a", "h", "switch", T);
    a.put("x", new byte[5], T);
    a.put("yy", new byte[7], T);
    JobChannel.CoordinatorKvs k = new JobChannel.CoordinatorKvs(2, 1 + 5 + 2 + 7 + 2 * KvsPlacement.ENTRY_OVERHEAD, 0);
    assertEquals(k, c.kvs());
    assertEquals(k, a.coordinatorKvs(T));
    assertEquals(0, a.kvsPairs());
    assertEquals(KvsPlacement.ROOT, c.kvsPlacement());
  }

  @Test
  void everyMemberMustNameTheSamePlacement() {
    Coordinator c = coordinator();
    member(c, new CoordinatorTest.Recorder(), 0, 2);
    CoordinatorClient root = CoordinatorClient.connect("127.0.0.1", c.port(), T, Duration.ofMillis(100), new CoordinatorTest.Recorder());
    closeables.add(root);
    FabricException e = assertThrows(FabricException.class, () -> root.hello(1, 2, "b", "h", "switch", T));
    assertEquals("join rank=1: verbs.fabric.kvs=root differs from the job's hashed", e.getMessage());
  }

  @Test
  void aGetForAHolderThatWentDownFailsNamingIt() {
    Coordinator c = coordinator();
    List<CoordinatorClient> ms = members(c, 2);
    String k = keyHeldBy(1, 2, "gone/");
    ms.get(1).close();
    await().atMost(10, TimeUnit.SECONDS).until(() -> {
      try {
        ms.get(0).get(k, Duration.ofSeconds(5));
        return false;
      } catch (FabricException e) {
        return e.getMessage().equals("kvGet key='" + k + "': its holder, rank 1, is down: the pairs it held are lost");
      }
    });
  }

  @Test
  void aHolderThatNeverAnswersCostsTheCoordinatorNothingPastTheRequestersTimeout() throws Exception {
    Coordinator c = coordinator();
    CoordinatorTest.Recorder events = new CoordinatorTest.Recorder();
    CoordinatorClient a = member(c, events, 0, 2);
    try (RawMember silent = new RawMember(c)) {
      silent.hello(1, 2);
      String k = keyHeldBy(1, 2, "silent/");
      FabricTimeoutException t = assertThrows(FabricTimeoutException.class, () -> a.get(k, Duration.ofMillis(300)));
      assertEquals("kvGet key='" + k + "' timed out after PT0.3S", t.getMessage());
      CoordinatorProtocol.Message m = silent.next();
      assertEquals(CoordinatorProtocol.HELD_GET, m.op());
      assertEquals(k, m.body().readUTF());
      assertTrue(m.body().readLong() <= 300);
      silent.send(CoordinatorProtocol.HEARTBEAT, 0, null);
      await().atMost(10, TimeUnit.SECONDS).until(() -> c.kvs().inFlight() == 0);
      // Its answer now comes too late: dropped, and the member is still served.
      silent.send(CoordinatorProtocol.VALUE, m.requestId(), o -> CoordinatorProtocol.writeBytes(o, new byte[] {1}));
      silent.send(CoordinatorProtocol.MISSING, 9, o -> o.writeUTF("no-such-barrier"));
      CoordinatorProtocol.Message r = silent.next();
      assertEquals(CoordinatorProtocol.RANKS, r.op());
      assertEquals(9, r.requestId());
      assertEquals(0, c.kvs().inFlight());
      assertFalse(events.down.contains(2));
    }
  }

  @Test
  void anAnswerForARequestNeverSentClosesThatMembersConnection() throws Exception {
    Coordinator c = coordinator();
    CoordinatorTest.Recorder events = new CoordinatorTest.Recorder();
    member(c, events, 0, 2);
    try (RawMember liar = new RawMember(c)) {
      liar.hello(1, 2);
      liar.send(CoordinatorProtocol.VALUE, 424242, o -> CoordinatorProtocol.writeBytes(o, new byte[] {6, 6, 6}));
      assertThrows(IOException.class, () -> {
        while (true) {
          liar.next(); // until the coordinator closes it
        }
      });
      await().atMost(10, TimeUnit.SECONDS).until(() -> events.down.contains(2));
    }
  }

  @Test
  void anOversizedValueIsRefusedByTheClientAndByTheCoordinator() throws Exception {
    Coordinator c = coordinator();
    CoordinatorClient a = member(c, new CoordinatorTest.Recorder(), 0, 2);
    byte[] big = new byte[CoordinatorProtocol.MAX_VALUE + 1];
    String k = keyHeldBy(1, 2, "big/");
    FabricException e = assertThrows(FabricException.class, () -> a.put(k, big, T));
    assertEquals("kvPut key='" + k + "': value of 8388609 bytes exceeds the 8388608 a verbs.fabric.kvs=hashed put may carry",
        e.getMessage());
    try (RawMember raw = new RawMember(c)) {
      raw.hello(1, 2);
      raw.send(CoordinatorProtocol.PUT, 5, o -> {
        o.writeUTF(k);
        CoordinatorProtocol.writeBytes(o, big);
        o.writeLong(1000);
      });
      CoordinatorProtocol.Message m = raw.next();
      assertEquals(CoordinatorProtocol.ERROR, m.op());
      assertEquals(5, m.requestId());
      assertEquals("value of 8388609 bytes exceeds the 8388608 a verbs.fabric.kvs=hashed put may carry", m.body().readUTF());
    }
    assertEquals(0, c.kvs().inFlight());
  }

  /** A member speaking the protocol by hand, after a real handshake. */
  private static final class RawMember implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    RawMember(Coordinator c) throws IOException {
      socket = new Socket("127.0.0.1", c.port());
      socket.setSoTimeout(20_000);
      in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      out = new DataOutputStream(socket.getOutputStream());
      Handshake h = Handshake.client(c.secret(), Handshake.Kind.COORDINATOR, 0, 0);
      out.write(h.hello());
      byte[] challenge = new byte[Handshake.CHALLENGE_LENGTH];
      in.readFully(challenge);
      out.write(h.answer(challenge));
      out.flush();
    }

    void hello(int rank, int size) throws IOException {
      send(CoordinatorProtocol.HELLO, 1, o -> {
        o.writeInt(rank);
        o.writeInt(size);
        o.writeUTF("tcp:raw:" + rank);
        o.writeUTF("h");
        o.writeUTF("switch");
        o.writeUTF("hashed");
      });
      assertEquals(CoordinatorProtocol.WELCOME, next().op());
    }

    void send(int op, long id, CoordinatorProtocol.Body body) throws IOException {
      CoordinatorProtocol.write(out, op, id, body);
    }

    /** @return the next message that is not a heartbeat or directory */
    CoordinatorProtocol.Message next() throws IOException {
      while (true) {
        CoordinatorProtocol.Message m = CoordinatorProtocol.read(in);
        if (m.op() != CoordinatorProtocol.HEARTBEAT && m.op() != CoordinatorProtocol.DIRECTORY) {
          return m;
        }
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
