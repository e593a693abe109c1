package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.tca.peach2.Peach2Params;
import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.runtime.Threading;
import io.github.verbs4j.verbs.spi.sim.ProviderKeys;
import java.util.Map;

/**
 * The {@code verbs.tca.*} configuration keys, each next to its default and one line of doc. {@link
 * #KEYS} also lists the fabric's own keys, so {@code Verbs.open} validates the whole
 * configuration once.
 */
public final class TcaConfig {
  /** The provider's keys, then the fabric's (added at the end of this class). */
  public static final ProviderKeys KEYS = new ProviderKeys();

  private static ConfigKey add(ConfigKey k) {
    return KEYS.add(k);
  }

  /** Job namespace. */
  public static final ConfigKey JOB = add(ConfigKey.string("verbs.tca.job", "",
      "namespace prefixed to Job keys and barrier names, so several jobs can share one coordinator"));
  /** Host pool. */
  public static final ConfigKey POOL_MB = add(ConfigKey.longRange("verbs.tca.pool-mb", 1024,
      "most MiB of the tcaMalloc pool (pinned host memory: rings, bounce buffers, allocateMemory regions)", 16,
      64 * 1024));
  /** Device pools. */
  public static final ConfigKey DEVICE_POOL_MB = add(ConfigKey.longRange("verbs.tca.device-pool-mb", 256,
      "most MiB of each of the two device (GPU) memories, for allocateMemory(..., DEVICE)", 1, 64 * 1024));
  /** Low-latency ring cut-off. */
  public static final ConfigKey LL_MAX = add(ConfigKey.longRange("verbs.tca.ll-max", Layout.LL_PAYLOAD,
      "messages up to this many bytes travel in one low-latency ring packet (fixed 128-byte slots, "
          + "descriptors prebuilt in the board's internal memory)", 0, Layout.LL_PAYLOAD));
  /** Eager cut-off. */
  public static final ConfigKey EAGER_MAX = add(ConfigKey.longRange("verbs.tca.eager-max", 8192,
      "messages up to this many bytes travel as packets of the high-bandwidth ring; longer SENDs, WRITEs and "
          + "READs go by rendezvous (the data is DMA-written straight to its destination or a bounce buffer)", 0,
      Layout.HB_MAX_PAYLOAD));
  /** Device-memory read rate. */
  public static final ConfigKey DEVICE_READ_MB_S = add(ConfigKey.longRange("verbs.tca.device-read-mb-s", 870,
      "modelled rate at which the DMA controller reads device (GPU) memory, MB/s (seed 001 §4.1.2)", 1, 100_000));
  /** Max QPs. */
  public static final ConfigKey MAX_QP = add(ConfigKey.longRange("verbs.tca.max-qp", 4096,
      "device limit max_qp", 1, 1 << 20));
  /** Max WRs per queue. */
  public static final ConfigKey MAX_QP_WR = add(ConfigKey.longRange("verbs.tca.max-qp-wr", 4096,
      "device limit max_qp_wr (send and receive queue depth)", 1, 1 << 20));
  /** Max CQ entries. */
  public static final ConfigKey MAX_CQE = add(ConfigKey.longRange("verbs.tca.max-cqe", 65536,
      "device limit max_cqe (each entry is preallocated)", 1, 1 << 22));
  /** Max rd/atomic. */
  public static final ConfigKey MAX_RD_ATOMIC = add(ConfigKey.longRange("verbs.tca.max-rd-atomic", 16,
      "device limits max_qp_rd_atom and max_qp_init_rd_atom (outstanding READ/atomic requests per QP)", 1, 255));

  static {
    KEYS.bridge(FabricOptions.ownKeys().stream().map(k -> new ConfigKey(k.name(), k.defaultValue(), k.description(),
        (n, v) -> FabricOptions.from(Map.of(n, v), Map.of()))).toList());
  }

  private TcaConfig() {}

  /**
   * The board parameters a configuration asks for.
   *
   * @param c a validated configuration
   * @return the parameters
   */
  public static Peach2Params params(VerbsConfig c) {
    return Peach2Params.defaults().toBuilder().deviceReadMbs(c.getLong(DEVICE_READ_MB_S)).build();
  }

  /**
   * The settings the fabric reads, resolved from every configuration source. {@code
   * verbs.fabric.progress} follows {@code verbs.threading} ({@link Threading#fabricProgress()}) unless
   * set itself.
   *
   * @param c the configuration
   * @return explicit fabric settings (the PEACH2 defaults are added by {@code FabricLink.open})
   */
  public static Map<String, String> fabricSettings(VerbsConfig c) {
    return KEYS.fabricSettings(c, Map.of(FabricOptions.PROGRESS.name(), Threading.of(c).fabricProgress()));
  }
}
