package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.fabric.topo.Port;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A rank of {@link SharedLinkIT} on a PEACH2 ring of four boards with three processes. Rank 1 (node
 * 2) sends to node 3 over link 2→3, which node 1's frames to node 3 share (1→2→3), and publishes
 * its link model's view of that link; rank 2 (node 3) publishes the modelled arrival of every
 * frame it receives as {@code arrival/<n>/<src>} (the n-th frame from src) and its final clock.
 */
public final class SharedLinkChildMain {
  static final int PAYLOAD = 968; // + 32 B header = 1000 B = 1000 ns at 1000 MB/s
  private static final Duration WAIT = Duration.ofSeconds(60);

  private SharedLinkChildMain() {}

  static void put(FabricNode n, String key, Object value) {
    n.job().kvPut(key, value.toString().getBytes(StandardCharsets.UTF_8));
  }

  static String get(FabricNode n, String key) {
    return new String(n.job().kvGet(key, WAIT), StandardCharsets.UTF_8);
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
    try (FabricNode node = Fabric.open(FabricOptions.from(settings, System.getenv()), new SimpleMeterRegistry())) {
      if (node.nodeId() == 2) {
        node.job().barrier("ready", WAIT);
        node.send(3, node.alloc().directBuffer(PAYLOAD).writeZero(PAYLOAD));
        node.clock().charge(10_000);
        get(node, "go2");
        node.send(3, node.alloc().directBuffer(PAYLOAD).writeZero(PAYLOAD));
        get(node, "arrival/2/2");
        int shared = Peach2Topology.linkId(2, Port.E);
        NettyNode nn = (NettyNode) node;
        put(node, "stats/2", nn.linkModel().queueingNanos(shared) + "," + nn.linkModel().frames(shared) + ","
            + node.metrics().framesForwarded() + "," + node.metrics().framesReceived());
      } else {
        BlockingQueue<long[]> got = new LinkedBlockingQueue<>();
        node.setReceiver((h, p) -> {
          p.release();
          got.add(new long[] {h.src(), h.arrivalTimeNanos(), h.hops()});
        });
        node.job().barrier("ready", WAIT);
        int[] count = new int[4];
        for (int i = 0; i < 4; i++) {
          long[] f = got.poll(60, TimeUnit.SECONDS);
          if (f == null) {
            System.out.println("node 3 got only " + i + " frames");
            System.exit(2);
          }
          int src = (int) f[0];
          put(node, "arrival/" + ++count[src] + "/" + src, f[1] + "," + f[2]);
        }
        put(node, "clock/3", node.clock().nowNanos());
      }
      node.job().barrier("done", WAIT);
    }
  }
}
