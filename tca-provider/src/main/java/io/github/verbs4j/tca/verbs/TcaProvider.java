package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.tca.peach2.FabricLink;
import io.github.verbs4j.tca.peach2.ManagementPort;
import io.github.verbs4j.tca.peach2.Peach2Board;
import io.github.verbs4j.tca.peach2.Peach2Params;
import io.github.verbs4j.verbs.AtomicCap;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.DeviceCap;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.KeyTable;
import io.github.verbs4j.verbs.spi.sim.CoordinatorJob;
import io.github.verbs4j.verbs.spi.sim.SimProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.EnumSet;

/**
 * The {@code tca} provider: TCA Verbs (seed 000) on an emulated PEACH2 board (seed 001), one
 * device {@code tca_peach2} per process (or per {@code Verbs.open} on the local fabric). The fabric
 * topology must be PEACH2 rings; without {@code verbs.topology} it is {@value
 * FabricLink#DEFAULT_TOPOLOGY}. Registered through {@code META-INF/services}.
 *
 * <pre>{@code
 * VerbsConfig c = VerbsConfig.load().with("verbs.provider", "tca");
 * try (Context ctx = Verbs.open(c)) {
 *   ctx.queryPort(1).lid();   // the node id in the sub-cluster
 * }
 * }</pre>
 */
public final class TcaProvider extends SimProvider {
  /** The provider name. */
  public static final String NAME = "tca";
  /** The device name. */
  public static final String DEVICE = "tca_peach2";
  /** The device's GUID (a locally administered EUI-64). */
  public static final long GUID = 0x0200_7ca0_0000_0001L;

  /** The provider, as {@code ServiceLoader} creates it. */
  public TcaProvider() {
    super(NAME, DEVICE, GUID, TcaConfig.KEYS);
  }

  @Override
  protected Context openDevice(VerbsConfig config, DeviceOptions options) {
    Peach2Params params = TcaConfig.params(config);
    MeterRegistry registry = options.get(MeterRegistry.class).orElse(Metrics.globalRegistry);
    FabricLink link;
    try {
      link = FabricLink.open(TcaConfig.fabricSettings(config), config.environment(), params, registry);
    } catch (FabricException e) {
      throw joinFailure(config, e);
    } catch (IllegalArgumentException e) {
      throw new VerbsException(Errno.EINVAL, e.getMessage(), -1, e);
    }
    Peach2Board board = null;
    try {
      board = new Peach2Board(link, params, registry, config.getLong(TcaConfig.POOL_MB) << 20,
          config.getLong(TcaConfig.DEVICE_POOL_MB) << 20);
      ManagementPort mp = board.management();
      CoordinatorJob job = new CoordinatorJob(new CoordinatorJob.Store(mp.rank(), mp.size(), mp::put, mp::get,
          mp::barrier), config.get(TcaConfig.JOB), FabricException.class, FabricTimeoutException.class);
      CoordinatorJob stepped = link.steps().map(st -> job.withSteps(new CoordinatorJob.Steps(st::step, st::barrier, st::leave))).orElse(job);
      return new TcaContext(device(), config, deviceAttr(config, board.nodeId()), board, stepped, registry);
    } catch (RuntimeException e) {
      if (board != null) {
        board.close();
      } else {
        link.close();
      }
      if (e instanceof IllegalArgumentException) {
        throw new VerbsException(Errno.EINVAL, e.getMessage(), -1, e);
      }
      throw e;
    }
  }

  /**
   * The attributes {@code queryDevice()} reports: the limits the provider enforces. READ and
   * atomics are done in software by the target's proxy, so NATIVE_READ and NATIVE_ATOMIC are not
   * claimed; there is no DC and no SRQ resize.
   */
  static DeviceAttr deviceAttr(VerbsConfig c, int lid) {
    int maxQp = c.getInt(TcaConfig.MAX_QP);
    int maxRd = c.getInt(TcaConfig.MAX_RD_ATOMIC);
    return DeviceAttr.builder()
        .fwVer("verbs4j-tca 0.1.0")
        .nodeGuid(GUID + lid)
        .sysImageGuid(GUID)
        .maxMrSize(c.getLong(TcaConfig.POOL_MB) << 20)
        .pageSizeCap(4096)
        .vendorId(0x7ca0)
        .vendorPartId(2)
        .hwVer(2)
        .maxQp(maxQp)
        .maxQpWr(c.getInt(TcaConfig.MAX_QP_WR))
        .deviceCapFlags(EnumSet.of(DeviceCap.RC_RNR_NAK_GEN, DeviceCap.CURR_QP_STATE_MOD, DeviceCap.PORT_ACTIVE_EVENT,
            DeviceCap.SYS_IMAGE_GUID))
        .maxSge(32)
        .maxSgeRd(32)
        .maxCq(65536)
        .maxCqe(c.getInt(TcaConfig.MAX_CQE))
        .maxMr(KeyTable.MAX_ENTRIES - 1) // what the context's key table holds
        .maxPd(1 << 14)
        .maxQpRdAtom(maxRd)
        .maxQpInitRdAtom(maxRd)
        .maxResRdAtom(maxQp * maxRd)
        .atomicCap(AtomicCap.HCA)
        .maxSrq(4096)
        .maxSrqWr(c.getInt(TcaConfig.MAX_QP_WR))
        .maxSrqSge(32)
        .maxAh(1 << 16)
        .maxInlineData(256)
        .maxPkeys(1)
        .physPortCnt(1)
        .numCompVectors(1)
        .capabilities(EnumSet.of(Capability.DEVICE_MEMORY))
        .requiresLosslessFabric(false) // the PEACH2 links' data link layer replays what the fabric loses
        .build();
  }
}
