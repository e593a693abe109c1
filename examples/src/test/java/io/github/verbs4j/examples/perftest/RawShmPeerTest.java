package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.auth.PrivateDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The raw shared-memory baseline between two threads: exact bytes, counts, and no file left. */
class RawShmPeerTest {
  private static final int[] SIZES = {2, 8, 4096, 1 << 20};

  @Test
  void pingPongAndStreamDeliverExactBytesAndCloseRemovesTheRingFiles(@TempDir Path dir) throws Exception {
    RawShmPeer client = new RawShmPeer(dir, 0, 1 << 20);
    RawShmPeer server = new RawShmPeer(dir, 1, 1 << 20);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      client.connect(server.address());
      server.connect(client.address());
      for (int size : SIZES) {
        Future<?> serving = pool.submit(server::serve);
        long[] stamps = client.pingPong(size, 50);
        assertEquals(50, stamps.length);
        assertArrayEquals(client.payload(size, -1), client.lastReceived(size), "echo of " + size + " B");
        assertArrayEquals(client.payload(size, -1), server.lastReceived(size), "ping of " + size + " B");
        long[] s = client.stream(size, 40);
        assertEquals(41, s.length);
        assertTrue(s[40] >= s[39], "the count arrives after the last post");
        assertArrayEquals(client.payload(size, 39), server.lastReceived(size), "last streamed message of " + size + " B");
        client.stop();
        serving.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      client.close();
      server.close();
    }
    assertFalse(Files.exists(client.file()));
    assertFalse(Files.exists(server.file()));
    client.close(); // idempotent
    try (var left = Files.list(dir)) {
      assertEquals(0, left.count());
    }
  }

  @Test
  void ringFilesAreNamedForTheStaleFileCleanup(@TempDir Path dir) {
    try (RawShmPeer p = new RawShmPeer(dir, 3, 4096)) {
      String name = p.file().getFileName().toString();
      assertTrue(name.matches("n-" + ProcessHandle.current().pid() + "-3-[0-9a-f]+\\.ring"), name);
      assertEquals(0, PrivateDir.leftovers(dir).size(), "the file of a live process is not stale");
    }
  }

  @Test
  void aMessageLargerThanTheRingWasSizedForIsRefused(@TempDir Path dir) {
    try (RawShmPeer a = new RawShmPeer(dir, 0, 4096); RawShmPeer b = new RawShmPeer(dir, 1, 4096)) {
      a.connect(b.address());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.pingPong(8192, 10));
      assertTrue(e.getMessage().contains("size=8192"), e.getMessage());
    }
  }
}
