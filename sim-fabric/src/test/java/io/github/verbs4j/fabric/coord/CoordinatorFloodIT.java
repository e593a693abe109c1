package io.github.verbs4j.fabric.coord;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.auth.Handshake;
import io.github.verbs4j.fabric.auth.JobSecret;
import io.github.verbs4j.fabric.auth.PrivateDir;
import io.github.verbs4j.fabric.testing.Async;
import io.github.verbs4j.fabric.testing.ChildJvm;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A standalone coordinator in a JVM limited to a 64 MiB heap, fed 100 connections of garbage and
 * partial headers (declared 16 MiB messages among them) that stay open, still serves a real job:
 * nothing a connection that has not proved the job secret sends is allocated.
 */
class CoordinatorFloodIT {
  private static final int CONNECTIONS = 100;

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void garbage(Socket s, int kind, Random rnd) throws IOException {
    OutputStream o = s.getOutputStream();
    DataOutputStream d = new DataOutputStream(o);
    switch (kind) {
      case 0 -> d.writeInt(16 << 20); // a 16 MiB message announced, nothing follows
      case 1 -> {
        byte[] b = new byte[10]; // a partial hello
        rnd.nextBytes(b);
        d.write(b);
      }
      case 2 -> {
        byte[] b = new byte[4096];
        rnd.nextBytes(b);
        d.write(b);
      }
      case 3 -> {
        d.write(Handshake.client(JobSecret.generate(), Handshake.Kind.COORDINATOR, 0, 0).hello()); // then a made-up proof
        byte[] b = new byte[Handshake.PROOF_LENGTH];
        rnd.nextBytes(b);
        d.write(b);
      }
      default -> {
        d.writeInt(16 << 20); // a 16 MiB PUT, of which 256 KiB arrive
        d.writeByte(1);
        d.writeByte(5);
        d.writeLong(1);
        d.write(new byte[256 << 10]);
      }
    }
    d.flush();
  }

  @Test
  void hundredGarbageConnectionsDoNotStopA64MiBCoordinatorServingAJob() throws Exception {
    int port = freePort();
    List<Socket> flood = new ArrayList<>();
    try (ChildJvm coord = ChildJvm.builder(CoordinatorMain.class).name("coordinator-flood")
        .jvmArg("-Xmx64m").jvmArg("-XX:+ExitOnOutOfMemoryError")
        .args("--port", Integer.toString(port), "--host", "127.0.0.1", "--peer-timeout-ms", "60000").start()) {
      // It leaves its secret file once it listens.
      await().atMost(Duration.ofSeconds(60)).until(() -> PrivateDir.findCoordinatorKey(PrivateDir.of(""), port).isPresent());
      Random rnd = new Random(23);
      for (int i = 0; i < CONNECTIONS; i++) {
        Socket s = new Socket("127.0.0.1", port);
        flood.add(s);
        try {
          garbage(s, i % 5, rnd);
        } catch (IOException closedEarly) {
          // a connection the coordinator already refused
        }
      }
      List<CompletableFuture<FabricNode>> fs = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        Map<String, String> s = Map.of("verbs.fabric", "netty", "verbs.coordinator", "127.0.0.1:" + port,
            "verbs.rank", Integer.toString(r), "verbs.size", "2");
        fs.add(Async.supply(() -> Fabric.open(s, new SimpleMeterRegistry())));
      }
      List<FabricNode> nodes = new ArrayList<>();
      try {
        for (CompletableFuture<FabricNode> f : fs) {
          nodes.add(f.get(120, TimeUnit.SECONDS));
        }
        nodes.get(1).job().kvPut("answer", "42".getBytes(StandardCharsets.UTF_8));
        assertEquals("42", new String(nodes.get(0).job().kvGet("answer", Duration.ofSeconds(60)), StandardCharsets.UTF_8));
        CompletableFuture<Void> b = Async.run(() -> nodes.get(1).job().barrier("flooded", Duration.ofSeconds(60)));
        nodes.get(0).job().barrier("flooded", Duration.ofSeconds(60));
        b.get(60, TimeUnit.SECONDS);
      } finally {
        nodes.forEach(FabricNode::close);
      }
      assertTrue(coord.isAlive(), "the coordinator died:\n" + coord.output());
      assertFalse(coord.output().contains("OutOfMemoryError"), coord.output());
    } finally {
      for (Socket s : flood) {
        s.close();
      }
    }
  }
}
