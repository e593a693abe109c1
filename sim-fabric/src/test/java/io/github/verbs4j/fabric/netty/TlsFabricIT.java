package io.github.verbs4j.fabric.netty;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.auth.Handshake;
import io.github.verbs4j.fabric.auth.JobSecret;
import io.github.verbs4j.fabric.auth.JobTls;
import io.github.verbs4j.fabric.coord.CoordinatorClient;
import io.github.verbs4j.fabric.testing.ChildJvm;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code verbs.fabric.tls=on} across processes: three JVMs (this one is rank 0 and runs the
 * coordinator) exchange checked frames of up to 100 KB over TCP with mutual TLS; then a process
 * without the job's key, and one that speaks plain text even with the right secret, are refused by
 * the data listener and by the coordinator, and counted.
 */
class TlsFabricIT {
  private static final int SIZE = 3;
  private final List<ChildJvm> children = new ArrayList<>();
  private FabricNode node;

  @AfterEach
  void cleanup() {
    children.forEach(ChildJvm::close);
    if (node != null) {
      node.close();
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void framesCrossProcessesOverTlsAndPeersWithoutTheKeyAreRefused() throws Exception {
    int coordPort = freePort();
    String coord = "embedded:127.0.0.1:" + coordPort;
    Map<String, String> common = Map.of("verbs.fabric", "netty", "verbs.size", Integer.toString(SIZE),
        "verbs.fabric.transport", "tcp", "verbs.fabric.tls", "on", "verbs.fabric.heartbeat-ms", "100",
        "verbs.fabric.peer-timeout-ms", "5000", "verbs.fabric.join-timeout-ms", "60000");
    for (int r = 1; r < SIZE; r++) {
      children.add(ChildJvm.builder(FabricChildMain.class).name("tls-rank" + r).properties(common)
          .property("verbs.coordinator", coord).property("verbs.rank", Integer.toString(r)).start());
    }
    Map<String, String> mine = new HashMap<>(common);
    mine.put("verbs.coordinator", coord);
    mine.put("verbs.rank", "0");
    node = Fabric.open(FabricOptions.from(mine, Map.of()), new SimpleMeterRegistry());
    for (int id = 2; id <= SIZE; id++) {
      assertEquals("tcp", ((NettyNode) node).transportTo(id));
    }
    Map<Integer, AtomicInteger> intact = new ConcurrentHashMap<>();
    AtomicInteger corrupt = new AtomicInteger();
    node.setReceiver((h, p) -> {
      try {
        if (p.getInt(p.readerIndex()) == FabricChildMain.HELLO) {
          if (FabricChildMain.checkHello(p) == h.src()) {
            intact.computeIfAbsent(h.src(), k -> new AtomicInteger()).incrementAndGet();
          } else {
            corrupt.incrementAndGet();
          }
        }
      } finally {
        p.release();
      }
    });
    node.job().barrier("ready", Duration.ofSeconds(60));
    for (int seq = 0; seq < FabricChildMain.FRAMES; seq++) {
      for (int dst = 2; dst <= SIZE; dst++) {
        await().atMost(30, TimeUnit.SECONDS).until(() -> node.isWritable(2) && node.isWritable(3));
        assertTrue(node.send(dst, 0, FabricChildMain.hello(node, seq)));
      }
    }
    await().atMost(60, TimeUnit.SECONDS).until(
        () -> intact.values().stream().mapToInt(AtomicInteger::get).sum() == FabricChildMain.FRAMES * (SIZE - 1));
    assertEquals(0, corrupt.get());
    for (int r = 1; r < SIZE; r++) {
      String done = new String(node.job().kvGet("done/" + r, Duration.ofSeconds(60)), StandardCharsets.UTF_8);
      assertTrue(done.endsWith("corrupt=0") && done.contains("1=" + FabricChildMain.FRAMES), "rank " + r + ": " + done);
    }

    // The data listener: TLS with another job's key, and plain text with this job's secret.
    String tcp = null;
    for (String a : node.directory().node(1).address().split(",")) {
      if (a.startsWith("tcp:")) {
        tcp = a.substring(4);
      }
    }
    assertNotNull(tcp);
    int dataPort = Integer.parseInt(tcp.substring(tcp.lastIndexOf(':') + 1));
    JobSecret secret = JobSecret.forCoordinator(System.getenv(), coordPort);
    long before = node.metrics().rejectedConnections(Handshake.Failure.TLS);
    assertThrows(javax.net.ssl.SSLException.class, () -> tlsHandshake(JobTls.of(JobSecret.generate()).jdk(), dataPort));
    assertTrue(plainHelloIsClosed(secret, dataPort), "a plain-text HELLO got an answer from a TLS listener");
    await().atMost(20, TimeUnit.SECONDS).until(() -> node.metrics().rejectedConnections(Handshake.Failure.TLS) >= before + 2);

    // The coordinator: plain text is refused even with the right secret; another job's key too.
    assertTrue(plainHelloIsClosed(secret, coordPort), "a plain-text HELLO got an answer from the coordinator");
    Handshake.AuthException e = assertThrows(Handshake.AuthException.class, () -> CoordinatorClient.connect("127.0.0.1",
        coordPort, Duration.ofSeconds(10), Duration.ofSeconds(1), null, JobSecret::generate, true));
    assertEquals(Handshake.Failure.TLS, e.failure());
    await().atMost(20, TimeUnit.SECONDS).until(() -> ((NettyNode) node).embeddedCoordinator().rejected() >= 2);

    for (int dst = 2; dst <= SIZE; dst++) {
      node.send(dst, 0, node.alloc().buffer(4).writeInt(FabricChildMain.QUIT));
    }
    for (ChildJvm c : children) {
      assertEquals(0, c.waitFor(Duration.ofSeconds(60)), c.output());
    }
  }

  private static void tlsHandshake(SSLContext c, int port) throws Exception {
    try (Socket raw = new Socket()) {
      raw.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      raw.setSoTimeout(10_000);
      try (SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket(raw, "127.0.0.1", port, true)) {
        s.setSSLParameters(JobTls.parameters(c));
        s.setUseClientMode(true);
        s.startHandshake(); // the client refuses the server's certificate: not on its key
      }
    }
  }

  /** @return true if the listener closed a plain connection that sent a valid HELLO, without a CHALLENGE */
  private static boolean plainHelloIsClosed(JobSecret secret, int port) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      s.setSoTimeout(20_000);
      OutputStream out = s.getOutputStream();
      out.write(Handshake.client(secret, Handshake.Kind.DATA, 2, 1).hello());
      out.flush();
      InputStream in = s.getInputStream();
      byte[] got = new byte[Handshake.CHALLENGE_LENGTH];
      int n = 0;
      try {
        int r;
        while (n < got.length && (r = in.read(got, n, got.length - n)) > 0) {
          n += r;
        }
      } catch (java.net.SocketException reset) {
        return true;
      }
      return n < got.length;
    }
  }
}
