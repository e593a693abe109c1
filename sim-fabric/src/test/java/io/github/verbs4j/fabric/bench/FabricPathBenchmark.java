package io.github.verbs4j.fabric.bench;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The fabric's send/receive path under JMH, for allocation evidence ({@code -prof gc}: {@code
 * gc.alloc.rate.norm} is the bytes allocated per operation by every thread of the JVM, the event
 * loops included). Not a test: run by hand (docs/benchmarks.md).
 *
 * <ul>
 *   <li>{@code localDeterministic}: one frame from node 1 to node 2 of a deterministic in-JVM
 *       fabric (switch, modelled time) and {@code runUntilIdle}: send, two link hops in the link
 *       model, delivery, receiver.
 *   <li>{@code nettyRoundTrip}: two netty nodes in this JVM; node 2's receiver sends each payload
 *       straight back; one operation = one round trip (the benchmark thread waits for node 1's
 *       receiver to count the reply: spin, then yield). Encode, socket write, decode, dispatch,
 *       link model and metrics on both sides. {@code driver=app}: the benchmark thread sends each
 *       ping, as an application thread would; {@code driver=loop}: node 1's receiver sends the
 *       next ping from its fabric thread, as a provider engine running on the fabric thread
 *       would.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class FabricPathBenchmark {

  /** A deterministic in-JVM fabric with two nodes. */
  @State(Scope.Benchmark)
  public static class Local {
    @Param({"64"})
    int size;

    LocalFabric fabric;
    LocalNode a;
    ByteBuf payload;
    long received;

    @Setup(Level.Trial)
    public void setUp() {
      fabric = LocalFabric.create(FabricOptions.from(Map.of("verbs.fabric.mode", "deterministic"), Map.of()), new SimpleMeterRegistry());
      a = fabric.addNode();
      LocalNode b = fabric.addNode();
      b.setReceiver((h, p) -> {
        received += h.length();
        p.release();
      });
      payload = a.alloc().directBuffer(size).writeZero(size);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      payload.release();
      fabric.close();
    }
  }

  /** Two netty nodes in this JVM. */
  @State(Scope.Benchmark)
  public static class Netty {
    @Param({"uds", "tcp"})
    String transport;

    @Param({"wall", "modelled"})
    String time;

    @Param({"64", "65536"})
    int size;

    /** app: the benchmark thread sends each ping; loop: node 1's receiver sends the next ping. */
    @Param({"app", "loop"})
    String driver;

    EmbeddedCoordinator coordinator;
    final List<FabricNode> nodes = new ArrayList<>();
    FabricNode a;
    ByteBuf payload;
    final AtomicLong replies = new AtomicLong();
    volatile boolean stop;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      coordinator = EmbeddedCoordinator.start(Duration.ofSeconds(5));
      List<CompletableFuture<FabricNode>> fs = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        Map<String, String> s = new HashMap<>(coordinator.settings(r, 2));
        s.put("verbs.fabric.transport", transport);
        s.put("verbs.time", time);
        FabricOptions o = FabricOptions.from(s, Map.of());
        fs.add(CompletableFuture.supplyAsync(() -> Fabric.open(o, new SimpleMeterRegistry()), t -> new Thread(t).start()));
      }
      for (CompletableFuture<FabricNode> f : fs) {
        nodes.add(f.get(60, TimeUnit.SECONDS));
      }
      a = nodes.get(0);
      FabricNode b = nodes.get(1);
      b.setReceiver((h, p) -> b.send(h.src(), h.tag(), p)); // ownership passes back to the fabric
      payload = a.alloc().directBuffer(size).writeZero(size);
      if (driver.equals("app")) {
        a.setReceiver((h, p) -> {
          p.release();
          replies.incrementAndGet();
        });
      } else {
        a.setReceiver((h, p) -> {
          p.release();
          replies.incrementAndGet();
          if (!stop) {
            a.send(2, 0, payload.retain()); // the next ping, from the fabric thread
          }
        });
        a.send(2, 0, payload.retain());
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
      stop = true;
      Thread.sleep(100);
      payload.release();
      nodes.forEach(FabricNode::close);
      coordinator.close();
    }
  }

  /**
   * @param s state
   * @return payload bytes received so far
   */
  @Benchmark
  public long localDeterministic(Local s) {
    s.a.send(2, 0, s.payload.retain()); // the receiver releases it
    s.fabric.runUntilIdle();
    return s.received;
  }

  /**
   * @param s state
   * @return replies so far
   */
  @Benchmark
  public long nettyRoundTrip(Netty s) {
    long before = s.replies.get();
    if (s.driver.equals("app")) {
      s.a.send(2, 0, s.payload.retain()); // the fabric releases it once written
    }
    long r;
    for (int i = 0; (r = s.replies.get()) == before; i++) {
      if (i < 200) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
    return r;
  }
}
