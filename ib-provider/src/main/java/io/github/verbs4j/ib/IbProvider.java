package io.github.verbs4j.ib;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.sim.CoordinatorJob;
import io.github.verbs4j.verbs.spi.sim.SimProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

/**
 * The {@code ib} provider: one simulated InfiniBand HCA, {@code sim_ib0}, per process (or per
 * {@code Verbs.open} in one JVM on the local fabric), on the sim-fabric node chosen by {@code
 * verbs.fabric}. Registered through {@code META-INF/services}.
 *
 * <pre>{@code
 * VerbsConfig c = VerbsConfig.load().with("verbs.provider", "ib");
 * try (Context ctx = Verbs.open(c)) {
 *   ctx.queryPort(1).lid();   // the fabric node id
 * }
 * }</pre>
 */
public final class IbProvider extends SimProvider {
  /** The provider name. */
  public static final String NAME = "ib";
  /** The device name. */
  public static final String DEVICE = "sim_ib0";
  /** The device's GUID (a locally administered EUI-64). */
  public static final long GUID = IbParams.GUID;

  /** The provider, as {@code ServiceLoader} creates it. */
  public IbProvider() {
    super(NAME, DEVICE, GUID, IbConfig.KEYS);
  }

  @Override
  protected Context openDevice(VerbsConfig config, DeviceOptions options) {
    FabricOptions fo = FabricOptions.from(IbConfig.fabricSettings(config), config.environment());
    IbParams params = IbConfig.params(config);
    MeterRegistry registry = options.get(MeterRegistry.class).orElse(Metrics.globalRegistry);
    FabricNode node;
    try {
      node = Fabric.open(fo, registry);
    } catch (FabricException e) {
      throw joinFailure(config, e);
    }
    try {
      // On a modelled clock every packet is a frame of its own: a train leaves when its last packet
      // is built and is taken whole at its arrival, so both HCAs would store and forward a message
      // of many packets whole instead of streaming it (a 256 KiB WRITE on the QDR profile: 163 µs one
      // way instead of 68). Trains only save wall time.
      int train = node.clock().isModelled() ? 1 : config.getInt(IbConfig.TRAIN_PACKETS);
      FabricPacketPort port = new FabricPacketPort(node, train, params.inboundQueue);
      JobChannel ch = node.job();
      CoordinatorJob job = new CoordinatorJob(new CoordinatorJob.Store(fo.rank(), fo.size(), ch::kvPut, ch::kvGet,
          ch::barrier), config.get(IbConfig.JOB), FabricException.class, FabricTimeoutException.class);
      CoordinatorJob stepped = node.steps().map(s -> job.withSteps(new CoordinatorJob.Steps(s::step, s::barrier, s::leave))).orElse(job);
      return new IbContext(device(), config, deviceAttr(params, node.nodeId()), params, port, node, null, registry,
          stepped);
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
  }

  /**
   * The attributes {@code queryDevice()} reports on a node: the limits the provider enforces
   * ({@link IbParams#device}) with the node's GUID, and SRQ_STOP_RESEND when
   * {@code verbs.ib.srq-flow-control=stop-resend}.
   *
   * @param p the parameters
   * @param lid the port LID (part of the node GUID)
   * @return the attributes
   */
  static DeviceAttr deviceAttr(IbParams p, int lid) {
    DeviceAttr d = p.device.withNodeGuid(GUID + lid);
    return p.srqFlow.stopResend() ? d.withCapability(Capability.SRQ_STOP_RESEND) : d;
  }
}
