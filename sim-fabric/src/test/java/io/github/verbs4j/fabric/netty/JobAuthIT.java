package io.github.verbs4j.fabric.netty;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.auth.Handshake;
import io.github.verbs4j.fabric.auth.JobSecret;
import io.github.verbs4j.fabric.testing.Async;
import io.github.verbs4j.fabric.testing.ChildJvm;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Job authentication across processes: a process without the job's secret cannot join, cannot
 * GET or PUT on the coordinator, and a raw connection to a node's data socket is closed before any
 * frame is read, also when its frames claim a valid source; a member of the job cannot send frames
 * in another node's name.
 */
class JobAuthIT {
  private final List<FabricNode> nodes = new ArrayList<>();
  private final List<ChildJvm> children = new ArrayList<>();

  @AfterEach
  void cleanup() {
    children.forEach(ChildJvm::close);
    nodes.forEach(FabricNode::close);
  }

  /** A coordinator message as {@code CoordinatorProtocol} frames it. */
  private static byte[] message(int op, byte[] body) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    d.writeInt(10 + body.length);
    d.writeByte(1);
    d.writeByte(op);
    d.writeLong(7);
    d.write(body);
    return b.toByteArray();
  }

  private static byte[] utf(String key, byte[] value) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    d.writeUTF(key);
    if (value != null) {
      d.writeInt(value.length);
      d.write(value);
    }
    return b.toByteArray();
  }

  @Test
  void aProcessWithoutTheSecretCannotJoinGetOrPut(@TempDir Path elsewhere) throws Exception {
    try (EmbeddedCoordinator c = EmbeddedCoordinator.start(Duration.ofSeconds(15))) {
      CompletableFuture<FabricNode> rank0 = Async.supply(() -> Fabric.open(c.settings(0, 2), new SimpleMeterRegistry()));
      // PUT and GET written straight onto the coordinator's socket: closed, never answered.
      byte[] put = message(5, utf("intruder", "published by a stranger".getBytes(StandardCharsets.UTF_8)));
      byte[] get = message(7, utf("joined/0-and-some-padding-to-a-hello", null));
      for (byte[] m : List.of(put, get)) {
        try (Socket s = new Socket("127.0.0.1", c.port())) {
          s.setSoTimeout(30_000);
          s.getOutputStream().write(m);
          assertEquals(-1, s.getInputStream().read(), "the coordinator answered a connection that proved nothing");
        }
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> c.coordinator().rejected() >= 2);

      ChildJvm wrong = child("intruder-wrong-secret", c.settings(1, 2)).env(JobSecret.ENV, JobSecret.generate().toHex()).start();
      children.add(wrong);
      assertEquals(3, wrong.waitFor(Duration.ofSeconds(120)), wrong.output());
      assertTrue(wrong.output().contains("does not prove"), wrong.output());

      // No secret handed over and no coordinator secret file where it looks (its own temp dir).
      ChildJvm none = child("intruder-no-secret", c.settings(1, 2)).property("java.io.tmpdir", elsewhere.toString())
          .property("verbs.fabric.join-timeout-ms", "3000").start();
      children.add(none);
      assertEquals(3, none.waitFor(Duration.ofSeconds(120)), none.output());
      assertTrue(none.output().contains("no job secret"), none.output());
      assertFalse(rank0.isDone(), "rank 0 joined a job whose rank 1 never proved the secret");

      ChildJvm real = child("rank1", c.settings(1, 2)).start();
      children.add(real);
      FabricNode n0 = rank0.get(120, TimeUnit.SECONDS);
      nodes.add(n0);
      assertEquals("yes", new String(n0.job().kvGet("joined/1", Duration.ofSeconds(60)), StandardCharsets.UTF_8));
      assertThrows(FabricTimeoutException.class, () -> n0.job().kvGet("intruder", Duration.ofMillis(300)),
          "the stranger's PUT was stored");
      n0.job().barrier("done", Duration.ofSeconds(60));
      assertEquals(0, real.waitFor(Duration.ofSeconds(60)), real.output());
    }
  }

  private static ChildJvm.Builder child(String name, Map<String, String> settings) {
    return ChildJvm.builder(JoinChildMain.class).name("auth-" + name).properties(settings)
        .property("verbs.fabric.join-timeout-ms", "60000");
  }

  private record Got(int src, String text) {}

  private static void frame(ByteBuf b, int src, int dst, String text) {
    byte[] p = text.getBytes(StandardCharsets.UTF_8);
    FrameHeader.write(b, 0, src, dst, 0, p.length, 0, 0);
    b.writeBytes(p);
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "uds"})
  void aRawConnectionIsClosedBeforeAnyFrameAndAMemberCannotSpeakForAnother(String transport) throws Exception {
    List<Got> got = new CopyOnWriteArrayList<>();
    FabricNode n1;
    JobSecret secret;
    try (EmbeddedCoordinator c = EmbeddedCoordinator.start(Duration.ofSeconds(15))) {
      secret = c.coordinator().secret();
      List<CompletableFuture<FabricNode>> fs = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        Map<String, String> s = c.settings(r, 3);
        s.put("verbs.fabric.transport", transport);
        fs.add(Async.supply(() -> Fabric.open(s, new SimpleMeterRegistry())));
      }
      for (CompletableFuture<FabricNode> f : fs) {
        nodes.add(f.get(120, TimeUnit.SECONDS));
      }
      n1 = nodes.get(0);
      n1.setReceiver((h, p) -> {
        got.add(new Got(h.src(), p.toString(StandardCharsets.UTF_8)));
        p.release();
      });
      String address = n1.directory().node(1).address();
      Path sock = null;
      InetSocketAddress tcp = null;
      for (String a : address.split(",")) {
        if (a.startsWith("uds:")) {
          sock = Path.of(a.substring(4));
        } else if (a.startsWith("tcp:")) {
          int colon = a.lastIndexOf(':');
          tcp = new InetSocketAddress(a.substring(4, colon), Integer.parseInt(a.substring(colon + 1)));
        }
      }
      if (transport.equals("uds")) {
        assertNotNull(sock, address);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(sock.getParent())));
      }

      // A stranger: well-formed frames from node 2 (a real member) to node 1, no handshake.
      ByteBuf forged = Unpooled.buffer();
      for (int i = 0; i < 10; i++) {
        frame(forged, 2, 1, "forged " + i);
      }
      try (SocketChannel ch = open(transport, tcp, sock)) {
        ch.write(forged.nioBuffer());
        assertNull(readOrEof(ch, 1), "a stranger's connection got an answer");
      }
      awaitOr(() -> n1.metrics().rejectedConnections(Handshake.Failure.BAD_HELLO) == 1, () -> drops(n1));

      // A member of the job (holds the secret, proves node 2) writing frames in node 3's name.
      try (SocketChannel ch = open(transport, tcp, sock)) {
        Handshake h = Handshake.client(secret, Handshake.Kind.DATA, 2, 1);
        ch.write(ByteBuffer.wrap(h.hello()));
        byte[] challenge = readOrEof(ch, Handshake.CHALLENGE_LENGTH);
        assertNotNull(challenge, "node 1 closed a member's connection");
        ch.write(ByteBuffer.wrap(h.answer(challenge)));
        ByteBuf b = Unpooled.buffer();
        frame(b, 3, 1, "claims node 3");
        frame(b, 2, 1, "from node 2");
        ch.write(b.nioBuffer());
        awaitOr(() -> got.size() == 1 && n1.metrics().drops(DropReason.SPOOFED_SOURCE) == 1, () -> "got " + got + ", " + drops(n1));
      }
      assertEquals(List.of(new Got(2, "from node 2")), got, "only the frame of the proven peer is delivered");
      nodes.get(2).send(1, 0, Unpooled.copiedBuffer("real node 3", StandardCharsets.UTF_8));
      await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 2);
      assertEquals(new Got(3, "real node 3"), got.get(1));
      assertEquals(2, n1.metrics().framesReceived());
      nodes.forEach(FabricNode::close);
      if (sock != null) {
        assertFalse(Files.exists(sock), "socket file left after close: " + sock);
      }
    }
  }

  private static void awaitOr(java.util.concurrent.Callable<Boolean> cond, java.util.function.Supplier<String> state) {
    try {
      await().atMost(Duration.ofSeconds(30)).until(cond);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      fail("not reached in 30 s: " + state.get());
    }
  }

  private static String drops(FabricNode n) {
    StringBuilder b = new StringBuilder();
    for (DropReason r : DropReason.values()) {
      if (n.metrics().drops(r) > 0) {
        b.append(r.tag()).append('=').append(n.metrics().drops(r)).append(' ');
      }
    }
    for (Handshake.Failure f : Handshake.Failure.values()) {
      b.append("rejected ").append(f.tag()).append('=').append(n.metrics().rejectedConnections(f)).append(' ');
    }
    return b.toString();
  }

  private static SocketChannel open(String transport, InetSocketAddress tcp, Path sock) throws IOException {
    if (transport.equals("uds")) {
      SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
      ch.connect(UnixDomainSocketAddress.of(sock));
      return ch;
    }
    return SocketChannel.open(tcp);
  }

  /** Reads n bytes; null if the peer closes first. Gives up (closes the channel) after 30 s. */
  private static byte[] readOrEof(SocketChannel ch, int n) throws IOException {
    InputStream in = Channels.newInputStream(ch);
    CompletableFuture<Void> watchdog = CompletableFuture.runAsync(() -> {
      try {
        ch.close();
      } catch (IOException ignored) {
        // closing
      }
    }, CompletableFuture.delayedExecutor(30, TimeUnit.SECONDS));
    try {
      byte[] b = new byte[n];
      int have = 0;
      while (have < n) {
        int r = in.read(b, have, n - have);
        if (r < 0) {
          return null;
        }
        have += r;
      }
      return b;
    } finally {
      watchdog.cancel(false);
    }
  }
}
