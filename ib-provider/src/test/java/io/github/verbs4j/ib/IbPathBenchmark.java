package io.github.verbs4j.ib;

import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * The HCA's verbs path under JMH, for allocation evidence ({@code -prof gc}: {@code
 * gc.alloc.rate.norm} is the bytes every thread of the JVM allocated per operation). One operation
 * = {@code postRecv} on B, {@code postSend} (RC SEND, signaled) on A, the deterministic in-JVM
 * fabric run for 100 µs of modelled time (packet, ACK, engines on the calling thread: {@code
 * verbs.threading=invoker}, or the default {@code dedicated} threading, whose posts, polls and
 * deliveries run them there too; timers further out stay pending, as in a long run),
 * then {@code poll} of both completions. The WR objects are built once and reused, as an
 * application that cares about allocation would. Not a test: run by hand (docs/benchmarks.md).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled",
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
@State(Scope.Benchmark)
public class IbPathBenchmark {
  /**
   * Modelled time the fabric runs per step: enough for a packet and its ACK, far short of the
   * retransmit timer, which {@code runUntilIdle} would fire (jumping the clock) on every operation.
   */
  private static final long IN_FLIGHT_NANOS = 100_000;

  @Param({"8", "4096"})
  int size;

  /**
   * {@code verbs.threading}: {@code invoker} on the deterministic in-JVM fabric, or the default
   * {@code dedicated} on the threaded in-JVM fabric (posts and polls run the engine on the
   * benchmark thread when no other thread does, the fabric's thread delivers packets; the
   * allocation figure covers every thread; the deterministic fabric needs {@code invoker}).
   */
  @Param({"invoker", "dedicated"})
  String threading;

  /**
   * {@code local}: the in-JVM fabric (deterministic with {@code invoker} threading, threaded with
   * {@code dedicated}); {@code netty}: two netty nodes in this JVM joined through an embedded
   * coordinator, frames over a Unix socket — the path of a multi-process run (both modes set
   * {@code verbs.fabric.progress=caller} themselves).
   */
  @Param({"local", "netty"})
  String fabric;

  private TwoNodes n;
  private CompletionQueue cqA;
  private CompletionQueue cqB;
  private QueuePair qa;
  private QueuePair qb;
  private MemoryRegion ma;
  private MemoryRegion mb;
  private SendWr send;
  private RecvWr recv;
  private final WorkCompletion[] wcs = WorkCompletion.array(4);

  @Setup(Level.Trial)
  public void open() throws Exception {
    boolean caller = "invoker".equals(threading);
    if ("netty".equals(fabric)) {
      n = TwoNodes.netty(Map.of("verbs.threading", threading));
    } else {
      n = caller ? TwoNodes.deterministic(Map.of()) : TwoNodes.threaded(Map.of());
    }
    cqA = n.a.createCq(256, null, 0);
    cqB = n.b.createCq(256, null, 0);
    QpCap cap = QpCap.builder().maxSendWr(64).maxRecvWr(64).build();
    qa = n.qp(n.pdA, QpType.RC, cqA, cap);
    qb = n.qp(n.pdB, QpType.RC, cqB, cap);
    ma = n.pdA.allocateMemory(1 << 16, TwoNodes.ALL);
    mb = n.pdB.allocateMemory(1 << 16, TwoNodes.ALL);
    n.connect(qa, qb);
    send = new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(ma, 0, size);
    recv = new RecvWr().wrId(2).sge(mb, 0, size);
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    TwoNodes.closeAll(qa, qb, ma, mb, cqA, cqB, n.pdA, n.pdB);
    n.close();
  }

  @Benchmark
  public int sendRecvRoundTrip() {
    qb.postRecv(recv);
    qa.postSend(send);
    n.runFor(IN_FLIGHT_NANOS);
    int got = 0;
    while (got < 2) {
      int k = poll(cqA) + poll(cqB);
      if (k == 0) {
        n.runFor(IN_FLIGHT_NANOS);
      }
      got += k;
    }
    return got;
  }

  private int poll(CompletionQueue cq) {
    int k = cq.poll(wcs, 1);
    if (k == 1 && wcs[0].status() != WcStatus.SUCCESS) {
      throw new IllegalStateException("completion " + wcs[0]);
    }
    return k;
  }
}
