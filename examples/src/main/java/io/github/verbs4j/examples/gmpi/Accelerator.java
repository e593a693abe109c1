package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.verbs.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A simulated accelerator: kernels launched over a grid of blocks of 32-thread warps run
 * concurrently on a small pool of JVM threads (a warp per thread at a time, so the pool size plays
 * the role of the number of resident warps); its memory is {@link DeviceMemory}; launch and
 * synchronisation are modelled costs from {@link AcceleratorCosts}, charged on the host's {@link
 * ModelledClock}, and each warp keeps its own modelled clock.
 *
 * <pre>{@code
 * try (Accelerator gpu = new Accelerator(ctx, AcceleratorCosts.PAPER, 4)) {
 *   long buf = gpu.memory().malloc(4096);
 *   KernelRun run = gpu.launch(2, 4, warp -> ..., hostClock);
 *   run.synchronize(hostClock, KernelRun.Sync.STREAM, Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>As on a GPU, warps that wait for warps not yet resident can deadlock; keep the grid within the
 * pool when warps wait on each other.
 */
public final class Accelerator implements AutoCloseable {
  /** Threads of a warp. */
  public static final int WARP_SIZE = 32;
  private static final AtomicInteger INSTANCES = new AtomicInteger();
  private final AcceleratorCosts costs;
  private final DeviceMemory memory;
  private final ExecutorService pool;
  private final int threads;

  /**
   * @param ctx the rank's device context (its protection domain holds the device memory)
   * @param costs the cost profile
   * @param threads JVM threads that run warps, at least 1
   */
  public Accelerator(Context ctx, AcceleratorCosts costs, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads=" + threads + " must be at least 1");
    }
    this.costs = costs;
    this.threads = threads;
    this.memory = new DeviceMemory(ctx);
    int id = INSTANCES.incrementAndGet();
    AtomicInteger n = new AtomicInteger();
    this.pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "accelerator-" + id + "-sm-" + n.getAndIncrement());
      t.setDaemon(true);
      return t;
    });
  }

  /** @return the device memory */
  public DeviceMemory memory() {
    return memory;
  }

  /** @return the cost profile */
  public AcceleratorCosts costs() {
    return costs;
  }

  /** @return the JVM threads running warps */
  public int threads() {
    return threads;
  }

  /**
   * Launches {@code kernel} over {@code blocks × warpsPerBlock} warps ({@code <<<blocks,
   * warpsPerBlock * 32>>>}), charging the host the launch; the warps' clocks start when the launch
   * returns.
   *
   * @param blocks blocks, at least 1
   * @param warpsPerBlock warps per block, 1..32 (1024 threads)
   * @param kernel the device code
   * @param host the launching thread's clock
   * @return the running kernel
   */
  public KernelRun launch(int blocks, int warpsPerBlock, Kernel kernel, ModelledClock host) {
    if (blocks < 1) {
      throw new IllegalArgumentException("blocks=" + blocks + " must be at least 1");
    }
    if (warpsPerBlock < 1 || warpsPerBlock > 32) {
      throw new IllegalArgumentException("warpsPerBlock=" + warpsPerBlock + " must be between 1 and 32");
    }
    long launchedAt = host.now();
    long start = host.charge(costs.launchNanos());
    List<Warp> warps = new ArrayList<>(blocks * warpsPerBlock);
    List<Future<?>> futures = new ArrayList<>(blocks * warpsPerBlock);
    for (int b = 0; b < blocks; b++) {
      for (int w = 0; w < warpsPerBlock; w++) {
        Warp warp = new Warp(b, w, warpsPerBlock, start);
        warps.add(warp);
        futures.add(pool.submit(() -> kernel.run(warp)));
      }
    }
    return new KernelRun(futures, warps, costs, launchedAt);
  }

  /** Stops the threads and frees the device memory. */
  @Override
  public void close() {
    pool.shutdownNow();
    try {
      pool.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    memory.close();
  }
}
