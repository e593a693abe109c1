package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.local.LocalNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.Map;

/** A deterministic in-JVM sub-cluster of PEACH2 boards for tests (modelled time, exact queueing). */
final class Boards implements AutoCloseable {
  final LocalFabric fabric;
  final Peach2Board[] boards;
  final LocalNode[] nodes;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final Peach2Params params;

  Boards(String topology, Peach2Params params, Map<String, String> extra) {
    this.params = params;
    Map<String, String> s = new HashMap<>(extra);
    s.putIfAbsent("verbs.fabric.mode", "deterministic");
    s.put("verbs.topology", topology);
    fabric = LocalFabric.create(FabricOptions.from(FabricLink.fabricSettings(s, params), Map.of()), registry);
    int n = fabric.topology().maxNodes();
    boards = new Peach2Board[n + 1];
    nodes = new LocalNode[n + 1];
    for (int i = 1; i <= n; i++) {
      LocalNode node = fabric.addNode();
      nodes[i] = node;
      boards[i] = new Peach2Board(FabricLink.wrap(node), params, registry, 64L << 20, 16L << 20);
    }
  }

  /** Two rings of four: 8 nodes, default parameters. */
  static Boards eight() {
    return new Boards("peach2:rings=2,nodesPerRing=4", Peach2Params.defaults(), Map.of());
  }

  /** Two rings of four on the threaded in-JVM fabric in modelled time (one thread per node). */
  static Boards eightThreaded() {
    return new Boards("peach2:rings=2,nodesPerRing=4", Peach2Params.defaults(),
        Map.of("verbs.fabric.mode", "threaded", "verbs.time", "modelled"));
  }

  Peach2Board board(int node) {
    return boards[node];
  }

  void run() {
    fabric.runUntilIdle();
  }

  @Override
  public void close() {
    fabric.close();
  }
}
