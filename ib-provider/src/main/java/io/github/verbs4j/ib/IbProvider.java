package io.github.verbs4j.ib;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.verbs.AtomicCap;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.DeviceCap;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.NodeType;
import io.github.verbs4j.verbs.TransportType;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.VerbsProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.EnumSet;
import java.util.List;

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
public final class IbProvider implements VerbsProvider {
  /** The provider name. */
  public static final String NAME = "ib";
  /** The device name. */
  public static final String DEVICE = "sim_ib0";
  /** The device's GUID (a locally administered EUI-64). */
  public static final long GUID = 0x0200_5e1b_0000_0001L;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ConfigKey> configKeys() {
    return IbConfig.keys();
  }

  @Override
  public List<Device> devices(VerbsConfig config) {
    return List.of(device());
  }

  private static Device device() {
    return new Device(DEVICE, NAME, NodeType.CA, TransportType.IB, GUID);
  }

  @Override
  public Context open(String deviceName, VerbsConfig config, DeviceOptions options) {
    if (!deviceName.isEmpty() && !deviceName.equals(DEVICE)) {
      throw new VerbsException(Errno.ENODEV, "verbs.device=" + deviceName + ": provider ib has only " + DEVICE);
    }
    IbParams params = IbConfig.params(config);
    MeterRegistry registry = options.get(MeterRegistry.class).orElse(Metrics.globalRegistry);
    FabricOptions fo = FabricOptions.from(IbConfig.fabricSettings(config), config.environment());
    FabricNode node;
    try {
      node = Fabric.open(fo, registry);
    } catch (FabricException e) {
      throw new VerbsException(Errno.EIO, "cannot join the fabric (verbs.fabric=" + fo.fabric() + "): "
          + e.getMessage(), -1, e);
    }
    try {
      FabricPacketPort port = new FabricPacketPort(node, config.getInt(IbConfig.TRAIN_PACKETS));
      IbJob job = new IbJob(node.job(), fo.rank(), fo.size(), config.get(IbConfig.JOB));
      return new IbContext(device(), config, deviceAttr(params, node.nodeId()), params, port, node, null, registry,
          job);
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
  }

  /**
   * The attributes {@code queryDevice()} reports: the limits the provider enforces.
   *
   * @param p the parameters
   * @param lid the port LID (part of the node GUID)
   * @return the attributes
   */
  /** @return what the device offers; SRQ_STOP_RESEND only when verbs.ib.srq-flow-control=stop-resend */
  static EnumSet<Capability> capabilities(IbParams p) {
    EnumSet<Capability> c = EnumSet.of(Capability.DC, Capability.SRQ_RESIZE, Capability.NATIVE_READ,
        Capability.NATIVE_ATOMIC);
    if (p.srqFlow.stopResend()) {
      c.add(Capability.SRQ_STOP_RESEND);
    }
    return c;
  }

  static DeviceAttr deviceAttr(IbParams p, int lid) {
    return DeviceAttr.builder()
        .fwVer("verbs4j-ib 0.1.0")
        .nodeGuid(GUID + lid)
        .sysImageGuid(GUID)
        .maxMrSize(p.maxMrSize)
        .pageSizeCap(4096)
        .vendorId(0x5e1b)
        .vendorPartId(1)
        .hwVer(1)
        .maxQp(p.maxQp)
        .maxQpWr(p.maxQpWr)
        .deviceCapFlags(EnumSet.of(DeviceCap.RC_RNR_NAK_GEN, DeviceCap.CURR_QP_STATE_MOD, DeviceCap.PORT_ACTIVE_EVENT,
            DeviceCap.SYS_IMAGE_GUID, DeviceCap.SRQ_RESIZE, DeviceCap.BAD_QKEY_CNTR))
        .maxSge(p.maxSge)
        .maxSgeRd(p.maxSge)
        .maxCq(p.maxCq)
        .maxCqe(p.maxCqe)
        .maxMr(p.maxMr)
        .maxPd(p.maxPd)
        .maxQpRdAtom(p.maxQpRdAtom)
        .maxQpInitRdAtom(p.maxQpInitRdAtom)
        .maxResRdAtom(p.maxQp * p.maxQpRdAtom)
        .atomicCap(AtomicCap.HCA)
        .maxSrq(p.maxSrq)
        .maxSrqWr(p.maxSrqWr)
        .maxSrqSge(p.maxSrqSge)
        .maxAh(p.maxAh)
        .maxInlineData(p.maxInlineData)
        .maxPkeys(1)
        .physPortCnt(1)
        .numCompVectors(p.numCompVectors)
        .capabilities(capabilities(p))
        .requiresLosslessFabric(false) // RC recovers by itself: PSNs, ACK/NAK, retransmission
        .build();
  }
}
