package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.verbs.CompletionQueue;
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
 * The tca verbs path under JMH, for allocation evidence ({@code -prof gc}: {@code
 * gc.alloc.rate.norm} is the bytes every thread of the JVM allocated per operation). One operation
 * = {@code postRecv} on B, {@code postSend} (RC SEND, signaled) on A, the fabric and both nodes'
 * proxies run until the packet and its acknowledgement are through, then {@code poll} of both
 * completions. The WR and completion objects are built once and reused, as an application that
 * cares about allocation would. Not a test ({@code TcaPathBenchmarkTest} runs the operation): run
 * by hand (docs/benchmarks.md).
 *
 * <p>The sizes take each of tca's three paths with the default cut-offs: 8 B a low-latency ring
 * packet, 4 KiB a high-bandwidth ring packet ({@code verbs.tca.eager-max} is 8 KiB), 16 KiB a
 * rendezvous.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled",
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
@State(Scope.Benchmark)
public class TcaPathBenchmark {
  /**
   * Modelled time the deterministic fabric runs per step: enough for a packet and its
   * acknowledgement, far short of the RC retransmit timer, which {@code runUntilIdle} would fire
   * (jumping the clock) on every operation. The operation runs further steps until both
   * completions are there.
   */
  private static final long IN_FLIGHT_NANOS = 100_000;

  @Param({"8", "4096", "16384"})
  int size;

  /**
   * {@code verbs.threading}: {@code invoker} on the deterministic in-JVM fabric (posts, polls,
   * landed writes and board timers run the proxies, all on the benchmark thread), or the default
   * {@code dedicated} on the threaded in-JVM fabric (a proxy thread per node, the fabric's threads
   * deliver; the allocation figure covers every thread).
   */
  @Param({"invoker", "dedicated"})
  String threading;

  private TwoTcaNodes n;
  private LocalFabric deterministic;
  private SendWr send;
  private RecvWr recv;
  private final WorkCompletion[] wcs = WorkCompletion.array(1);
  /** The latest send completion of A, copied (for the test of this benchmark). */
  final WorkCompletion lastSend = new WorkCompletion();
  /** The latest receive completion of B, copied. */
  final WorkCompletion lastRecv = new WorkCompletion();

  @Setup(Level.Trial)
  public void open() {
    if ("invoker".equals(threading)) {
      n = new TwoTcaNodes(14, Map.of("verbs.fabric.mode", "deterministic", "verbs.threading", "invoker"));
      deterministic = n.fabric();
    } else {
      n = new TwoTcaNodes(14, Map.of("verbs.threading", threading));
    }
    send = new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 0, size);
    recv = new RecvWr().wrId(2).sge(n.b.pool, 0, size);
  }

  @TearDown(Level.Trial)
  public void close() {
    n.close();
  }

  @Benchmark
  public int sendRecvRoundTrip() {
    n.b.rc.postRecv(recv);
    n.a.rc.postSend(send);
    runFor();
    int got = 0;
    while (got < 2) {
      int k = poll(n.a.cq, lastSend) + poll(n.b.cq, lastRecv);
      if (k == 0) {
        runFor();
      }
      got += k;
    }
    return got;
  }

  private void runFor() {
    if (deterministic != null) {
      deterministic.runUntil(deterministic.now() + IN_FLIGHT_NANOS);
    }
  }

  private int poll(CompletionQueue cq, WorkCompletion last) {
    int k = cq.poll(wcs, 1);
    if (k == 1) {
      if (wcs[0].status() != WcStatus.SUCCESS) {
        throw new IllegalStateException("completion " + wcs[0]);
      }
      last.copyFrom(wcs[0]);
    }
    return k;
  }
}
