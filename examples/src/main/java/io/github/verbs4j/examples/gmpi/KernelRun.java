package io.github.verbs4j.examples.gmpi;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A launched kernel: its warps run on the accelerator's threads; {@link #synchronize} waits for
 * them (bounded) and charges the host the modelled synchronisation.
 */
public final class KernelRun {
  /** How the host waits for a kernel. */
  public enum Sync {
    /** {@code cudaStreamSynchronize}. */
    STREAM,
    /** {@code cudaDeviceSynchronize}. */
    DEVICE
  }

  private final List<Future<?>> futures;
  private final List<Warp> warps;
  private final AcceleratorCosts costs;
  private final long launchedAt;

  KernelRun(List<Future<?>> futures, List<Warp> warps, AcceleratorCosts costs, long launchedAt) {
    this.futures = futures;
    this.warps = warps;
    this.costs = costs;
    this.launchedAt = launchedAt;
  }

  /**
   * Waits until every warp has finished and moves {@code host} to when the synchronisation
   * returns: the last warp's end plus what the synchronisation adds to a launch (an empty kernel
   * costs exactly launch + sync of the profile).
   *
   * @param host the host thread's clock (the one the launch was charged on)
   * @param sync the kind
   * @param timeout the longest wall-clock wait
   * @return the modelled time the last warp ended
   * @throws GmpiException if a warp failed (its failure as the cause) or the kernel is still running
   */
  public long synchronize(ModelledClock host, Sync sync, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < futures.size(); i++) {
      try {
        futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        cancel();
        throw new GmpiException("kernel failed in " + warps.get(i) + ": " + e.getCause().getMessage(), e.getCause());
      } catch (TimeoutException e) {
        cancel();
        throw new GmpiException("kernel still running after " + timeout + " (" + warps.get(i) + " not done)");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        cancel();
        throw new GmpiException("interrupted while synchronizing", e);
      }
    }
    long end = launchedAt + costs.launchNanos();
    for (Warp w : warps) {
      end = Math.max(end, w.clock().now());
    }
    long extra = (sync == Sync.STREAM ? costs.streamSyncNanos() : costs.deviceSyncNanos()) - costs.launchNanos();
    host.advanceTo(end + extra);
    return end;
  }

  private void cancel() {
    for (Future<?> f : futures) {
      f.cancel(true);
    }
  }

  /** @return the warps, in grid order */
  public List<Warp> warps() {
    return warps;
  }
}
