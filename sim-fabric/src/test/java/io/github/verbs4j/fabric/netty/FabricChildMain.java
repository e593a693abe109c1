package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.PeerListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A rank of {@link MultiProcessFabricIT}: joins through {@code -Dverbs.*}, sends {@link #FRAMES}
 * checked frames to every node after the "ready" barrier, publishes {@code done/<rank>} once it has
 * received as many intact frames from every peer, reports every peer-down event to node 1, and
 * exits 0 when node 1 sends QUIT.
 */
public final class FabricChildMain {
  static final int FRAMES = 50;
  static final int HELLO = 1;
  static final int QUIT = 2;
  static final int DOWN = 3;

  private FabricChildMain() {}

  /** Payload of frame {@code seq} from the node: kind, src, seq, length, a pattern, then a checksum. */
  static ByteBuf hello(FabricNode n, int seq) {
    int len = 16 + (seq * 2099) % 100_000;
    byte[] body = new byte[len - 16];
    long sum = 0;
    for (int i = 16; i < len; i++) {
      byte v = (byte) (i * 31 + seq + n.nodeId());
      body[i - 16] = v;
      sum += v;
    }
    ByteBuf b = n.alloc().directBuffer(len + 8);
    return b.writeInt(HELLO).writeInt(n.nodeId()).writeInt(seq).writeInt(len).writeBytes(body).writeLong(sum);
  }

  /** @return the sender's node id if {@code p} is an intact HELLO, else -1 */
  static int checkHello(ByteBuf p) {
    byte[] b = io.netty.buffer.ByteBufUtil.getBytes(p);
    java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(b);
    int src = bb.getInt(4);
    int seq = bb.getInt(8);
    int len = bb.getInt(12);
    if (b.length != len + 8) {
      return -1;
    }
    long sum = 0;
    for (int i = 16; i < len; i++) {
      if (b[i] != (byte) (i * 31 + seq + src)) {
        return -1;
      }
      sum += b[i];
    }
    return sum == bb.getLong(len) ? src : -1;
  }

  /**
   * @param args unused
   * @throws Exception on failure (exit code 1)
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> settings = new HashMap<>();
    System.getProperties().forEach((k, v) -> {
      if (k.toString().startsWith("verbs.")) {
        settings.put(k.toString(), v.toString());
      }
    });
    FabricOptions o = FabricOptions.from(settings, System.getenv());
    CountDownLatch quit = new CountDownLatch(1);
    Map<Integer, AtomicInteger> intact = new ConcurrentHashMap<>();
    AtomicInteger corrupt = new AtomicInteger();
    try (FabricNode node = Fabric.open(o, new SimpleMeterRegistry())) {
      System.out.println("rank " + node.rank() + " is node " + node.nodeId() + " over " + ((NettyNode) node).ioName());
      node.setReceiver((h, p) -> {
        try {
          int kind = p.getInt(p.readerIndex());
          if (kind == QUIT) {
            quit.countDown();
          } else if (kind == HELLO) {
            int src = checkHello(p);
            if (src == h.src()) {
              intact.computeIfAbsent(src, k -> new AtomicInteger()).incrementAndGet();
            } else {
              corrupt.incrementAndGet();
            }
          }
        } finally {
          p.release();
        }
      });
      node.addPeerListener(new PeerListener() {
        @Override
        public void onPeerDown(int id) {
          System.out.println("node " + node.nodeId() + " saw node " + id + " down");
          node.send(1, node.alloc().buffer(12).writeInt(DOWN).writeInt(node.nodeId()).writeInt(id));
        }
      });
      node.job().barrier("ready", Duration.ofSeconds(60));
      for (int seq = 0; seq < FRAMES; seq++) {
        for (int dst = 1; dst <= node.size(); dst++) {
          if (dst != node.nodeId()) {
            for (int k = 0; !node.isWritable(dst); k++) {
              if (k < 100) {
                Thread.onSpinWait();
              } else if (k < 200) {
                Thread.yield();
              } else {
                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
              }
            }
            node.send(dst, 0, hello(node, seq));
          }
        }
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (intact.values().stream().mapToInt(AtomicInteger::get).sum() < FRAMES * (node.size() - 1)) {
        if (System.nanoTime() > deadline) {
          System.out.println("timed out: intact=" + intact + " corrupt=" + corrupt);
          System.exit(2);
        }
        Thread.sleep(5);
      }
      node.job().kvPut("done/" + node.rank(), ("intact=" + intact + " corrupt=" + corrupt).getBytes(StandardCharsets.UTF_8));
      if (!quit.await(90, TimeUnit.SECONDS)) {
        System.out.println("no QUIT from node 1");
        System.exit(3);
      }
      System.out.println("rank " + node.rank() + " done: intact=" + intact);
    }
  }
}
