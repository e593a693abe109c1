package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.topo.Port;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Seed 001's PEACH2 hardware experiments in modelled time (the {@code verbs4j reproduce 001}
 * command): two rings of four boards on the deterministic in-JVM fabric, the board driven directly
 * — PIO stores, DMA in each descriptor mode, two channels through one N port — and each figure
 * measured from the modelled times at which the writes land. The same measurements are pinned by
 * {@code Peach2BoardTest} and {@code DmaTimelineTest}.
 */
public final class Seed001Experiments {
  /**
   * One figure.
   *
   * @param name what is measured
   * @param unit its unit
   * @param paper the paper's value (seed 001, or seed 000 §2.6 for the descriptor modes)
   * @param modelled the model's value
   */
  public record Figure(String name, String unit, double paper, double modelled) {}

  private static final int MIB = 1 << 20;

  private final LocalFabric fabric;
  private final Peach2Board[] boards;
  private final List<Long> landed = new ArrayList<>();

  private Seed001Experiments(Peach2Params params) {
    Map<String, String> s = Map.of("verbs.fabric.mode", "deterministic", "verbs.topology",
        "peach2:rings=2,nodesPerRing=4");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    fabric = LocalFabric.create(FabricOptions.from(FabricLink.fabricSettings(s, params), Map.of()), registry);
    int n = fabric.topology().maxNodes();
    boards = new Peach2Board[n + 1];
    for (int i = 1; i <= n; i++) {
      boards[i] = new Peach2Board(FabricLink.wrap(fabric.addNode()), params, registry, 64L << 20, 16L << 20);
      Peach2Board b = boards[i];
      b.setWriteHook(() -> landed.add(b.clock().nowNanos()));
    }
  }

  /**
   * Runs every experiment with the default parameters.
   *
   * @return the figures, in the order of SEEDS.md's 001 section
   */
  public static List<Figure> run() {
    Seed001Experiments e = new Seed001Experiments(Peach2Params.defaults());
    try {
      return e.all();
    } finally {
      e.fabric.close();
    }
  }

  private List<Figure> all() {
    Peach2Board src = boards[1];
    int east = neighbour(Port.E);
    int west = neighbour(Port.W);
    TcaMallocPool.Block s = src.hostPool().allocate(4 * MIB, 64);
    TcaMallocPool.Block d = boards[east].hostPool().allocate(4 * MIB, 64);
    TcaMallocPool.Block dw = boards[west].hostPool().allocate(4 * MIB, 64);
    TcaMallocPool.Block desc = src.hostPool().allocate(4 * 32, 64);
    List<Figure> f = new ArrayList<>();

    long t0 = begin(src);
    src.pio().writeInt(d.address(), 1);
    f.add(new Figure("PIO CPU to remote CPU, minimum latency", "µs", 0.9, (end() - t0) / 1e3));

    InternalDescriptorMemory im = src.dmac().internalMemory();
    int idx = im.allocate(1);
    im.write(idx, s.address(), d.address(), 4, 0, 0, 0, -1);
    t0 = begin(src);
    src.dmac().channel(0).start(DescriptorMode.INTERNAL, idx);
    f.add(new Figure("DMA minimum latency, internal descriptors", "µs", 2.0, (end() - t0) / 1e3));
    im.free(idx, 1);

    src.dmac().writeHostDescriptor(desc, 0, s.address(), d.address(), 4, 0, 0, 0, -1);
    t0 = begin(src);
    src.dmac().channel(0).start(DescriptorMode.HOST, desc.address());
    f.add(new Figure("DMA minimum latency, host descriptors", "µs", 2.2, (end() - t0) / 1e3));

    for (int size : new int[] {64, 2048}) {
      src.dmac().writeHostDescriptor(desc, 0, s.address(), d.address(), size, 0, 0, 0, -1);
      t0 = begin(src);
      src.dmac().channel(0).start(DescriptorMode.HOST, desc.address());
      long host = end() - t0;
      t0 = begin(src);
      src.dmac().channel(0).startRegister(s.address(), d.address(), size);
      long register = end() - t0;
      f.add(new Figure("register mode faster than descriptors, " + (size < 1024 ? size + " B" : size / 1024 + " KiB"),
          "%", 35, 100.0 * host / register - 100)); // speed: descriptor time / register time - 1
    }

    for (int k = 0; k < 4; k++) {
      long next = k < 3 ? desc.address() + 32L * (k + 1) : -1;
      src.dmac().writeHostDescriptor(desc, k, s.address() + 4096L * k, d.address() + 4096L * k, 4096, 0, 0, 0, next);
    }
    t0 = begin(src);
    src.dmac().channel(0).start(DescriptorMode.HOST, desc.address());
    double chained = 4 * 4096.0 / (end() - t0);

    t0 = begin(src);
    src.dmac().channel(0).startRegister(s.address(), d.address(), 4 * MIB);
    double peak = 4.0 * MIB / (end() - t0);
    f.add(new Figure("DMA peak CPU to remote CPU, 4 MiB", "GB/s", 3.5, peak));
    f.add(new Figure("4 chained 4 KiB transfers, share of peak", "%", 70, 100 * chained / peak));

    t0 = begin(src);
    src.dmac().channel(0).startRegister(s.address(), d.address(), 4 * MIB);
    src.dmac().channel(1).startRegister(s.address(), dw.address(), 4 * MIB);
    f.add(new Figure("two DMA channels to E and W through one N port, together", "GB/s", 3.5,
        2.0 * 4 * MIB / (end() - t0)));

    TcaMallocPool.Block gpu = src.devicePool(0).allocate(MIB, 64);
    t0 = begin(src);
    src.dmac().channel(0).startRegister(gpu.address(), d.address(), MIB);
    f.add(new Figure("DMA reading GPU memory", "MB/s", 875, (double) MIB * 1000 / (end() - t0)));
    return f;
  }

  /** Lets every board finish, forgets what landed and returns the source's clock. */
  private long begin(Peach2Board src) {
    fabric.runUntilIdle();
    long latest = 0;
    for (int i = 1; i < boards.length; i++) {
      latest = Math.max(latest, boards[i].clock().nowNanos());
    }
    for (int i = 1; i < boards.length; i++) {
      boards[i].clock().advanceTo(latest);
      for (int c = 0; c < boards[i].dmac().channels(); c++) {
        boards[i].clock().advanceTo(boards[i].dmac().channel(c).doneAtNanos());
      }
    }
    landed.clear();
    return src.clock().nowNanos();
  }

  /** Runs until idle; @return when the last write landed */
  private long end() {
    fabric.runUntilIdle();
    if (landed.isEmpty()) {
      throw new IllegalStateException("seed 001 experiment: nothing landed");
    }
    return landed.get(landed.size() - 1);
  }

  private int neighbour(Port port) {
    Peach2Board src = boards[1];
    for (int n = 2; n < boards.length; n++) {
      if (src.topology().hops(1, n) == 1 && src.addressMap().route(src.window().hostBase(n)) == port) {
        return n;
      }
    }
    throw new IllegalStateException("node 1 has no neighbour through " + port);
  }
}
