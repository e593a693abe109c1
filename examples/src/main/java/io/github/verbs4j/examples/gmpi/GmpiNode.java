package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.verbs.Context;
import java.time.Duration;

/**
 * One rank's GMPI setup: the accelerator, the rings (request ring in mapped host memory, answer
 * ring in device memory), the host daemon on the rank's communicator, and the device API. The
 * daemon drives the communicator from {@link #open} until {@link #close}; the rank's own thread
 * must not use it meanwhile.
 *
 * <pre>{@code
 * try (GmpiNode node = GmpiNode.open(ctx, comm, fabric, AcceleratorCosts.PAPER, 1024, 4, Duration.ofSeconds(30))) {
 *   ModelledClock host = node.hostClock();
 *   node.accelerator().launch(1, 1, warp -> node.gmpi().synchronize(warp), host)
 *       .synchronize(host, KernelRun.Sync.STREAM, Duration.ofSeconds(60));
 * }
 * }</pre>
 */
public final class GmpiNode implements AutoCloseable {
  private final Accelerator accelerator;
  private final AttributeRing ring;
  private final HostDaemon daemon;
  private final Gmpi gmpi;
  private final ModelledClock hostClock = new ModelledClock(0);

  private GmpiNode(Context ctx, Communicator comm, FabricTimes fabric, AcceleratorCosts costs, int ringWords,
      int threads, Duration timeout) {
    accelerator = new Accelerator(ctx, costs, threads);
    try {
      DeviceMemory mem = accelerator.memory();
      long req = mem.mallocMapped(ringWords * 8L + 64);
      long ans = mem.malloc(ringWords * 8L);
      ring = new AttributeRing(mem.resolve(req, ringWords * 8L + 64), mem.resolve(ans, ringWords * 8L), ringWords);
      daemon = new HostDaemon(ring, new TimedComm(comm, costs, new ModelledClock(0), mem.deviceKind(), fabric), mem, costs);
      gmpi = new Gmpi(ring, costs, daemon, timeout);
      daemon.start();
    } catch (RuntimeException e) {
      accelerator.close();
      throw e;
    }
  }

  /**
   * @param ctx the rank's device context
   * @param comm the rank's communicator (driven by the daemon from now on); may be null when
   *     kernels only send {@code GMPI_Echo} probes (the argument-count study)
   * @param fabric the fabric's message times ({@link FabricTimes#measure}); null only without comm
   * @param costs the profile
   * @param ringWords words per ring, a power of two of at least 32
   * @param threads JVM threads running warps
   * @param timeout how long a GMPI call waits for a slot or an answer
   * @return the started node
   */
  public static GmpiNode open(Context ctx, Communicator comm, FabricTimes fabric, AcceleratorCosts costs,
      int ringWords, int threads, Duration timeout) {
    return new GmpiNode(ctx, comm, fabric, costs, ringWords, threads, timeout);
  }

  /** @return the accelerator */
  public Accelerator accelerator() {
    return accelerator;
  }

  /** @return the device memory */
  public DeviceMemory memory() {
    return accelerator.memory();
  }

  /** @return the rings */
  public AttributeRing ring() {
    return ring;
  }

  /** @return the host daemon */
  public HostDaemon daemon() {
    return daemon;
  }

  /** @return the device API */
  public Gmpi gmpi() {
    return gmpi;
  }

  /** @return the rank thread's modelled clock (launches and syncs are charged here) */
  public ModelledClock hostClock() {
    return hostClock;
  }

  /** Stops the daemon and frees the accelerator. */
  @Override
  public void close() {
    try {
      daemon.close();
    } finally {
      accelerator.close();
    }
  }
}
