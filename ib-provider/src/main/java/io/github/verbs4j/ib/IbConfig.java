package io.github.verbs4j.ib;

import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.ib.engine.SrqFlowParams;
import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.runtime.HostShare;
import io.github.verbs4j.verbs.spi.runtime.IdleStrategyKey;
import io.github.verbs4j.verbs.spi.runtime.Threading;
import io.github.verbs4j.verbs.spi.sim.ProviderKeys;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code verbs.ib.*} configuration keys, each next to its default and one line of doc, and
 * their translation into {@link IbParams}. {@link #KEYS} also lists the fabric's own keys (as
 * {@link ConfigKey}s validated by sim-fabric), so {@code Verbs.open} validates the whole
 * configuration once. The device limits' defaults are {@link IbParams#DEVICE}'s.
 */
public final class IbConfig {
  /** The provider's keys, then the fabric's (added at the end of this class). */
  public static final ProviderKeys KEYS = new ProviderKeys();
  /** The engine's defaults: the keys' defaults are read from them, so the two cannot drift. */
  private static final IbParams D = IbParams.defaults();

  private static ConfigKey add(ConfigKey k) {
    return KEYS.add(k);
  }

  /** Port MTU. */
  public static final ConfigKey MTU = add(ConfigKey.choice("verbs.ib.mtu", "4096",
      "port MTU in bytes (max and active MTU; the UD MTU): 256, 512, 1024, 2048 or 4096", "256", "512", "1024",
      "2048", "4096"));
  /** When packets carry the ICRC. */
  public static final ConfigKey ICRC = add(ConfigKey.choice("verbs.ib.icrc", D.icrc.name().toLowerCase(Locale.ROOT),
      "when packets carry a CRC-32 ICRC: on, off, or auto (only while the fabric may corrupt frames, i.e. a "
          + "verbs.fault corruption rate or script is set); receivers drop packets that fail it (counted in "
          + "verbs4j.ib.crc.drops), and a frame without one that fault injection picks for corruption is lost instead",
      "auto", "on", "off"));
  /** RC window. */
  public static final ConfigKey MAX_UNACKED_PSNS = add(ConfigKey.longRange("verbs.ib.max-unacked-psns", D.maxUnackedPsns,
      "RC/DC window: most PSNs a requester sends beyond the last acknowledged one", 1, 1 << 20));
  /** AckReq cadence. */
  public static final ConfigKey ACK_REQ_EVERY = add(ConfigKey.longRange("verbs.ib.ack-req-every", D.ackReqEvery,
      "the requester sets AckReq at the end of each signaled message, of the last message posted, and every this many packets", 1, 1 << 16));
  /** ACK hold. */
  public static final ConfigKey ACK_DELAY_NS = add(ConfigKey.longRange("verbs.ib.ack-delay-ns", D.ackDelayNanos,
      "a responder may hold an ACK this long for a packet to the same node to share a frame with (0 = ACK at once)", 0, 1_000_000));
  /** Requester budget. */
  public static final ConfigKey REQUESTER_BUDGET = add(ConfigKey.longRange("verbs.ib.requester-budget", D.requesterBudget,
      "packets a requester sends per QP per engine duty cycle", 1, 1 << 16));
  /** Responder budget. */
  public static final ConfigKey RESPONDER_BUDGET = add(ConfigKey.longRange("verbs.ib.responder-budget", D.responderBudget,
      "READ response packets a responder sends per QP per engine duty cycle", 1, 1 << 16));
  /** Receive budget. */
  public static final ConfigKey RECEIVE_BUDGET = add(ConfigKey.longRange("verbs.ib.receive-budget", D.receiveBudget,
      "received packets the engine processes per duty cycle", 1, 1 << 20));
  /** Train length. */
  public static final ConfigKey TRAIN_PACKETS = add(ConfigKey.longRange("verbs.ib.train-packets", FabricPacketPort.DEFAULT_TRAIN_PACKETS,
      "most packets one engine duty cycle sends to one node in one fabric frame (a train; the fabric MTU bounds its bytes too; 1 on a modelled clock, where each packet keeps its own send and arrival time)",
      1, 4096));
  /** Inbound queue. */
  public static final ConfigKey INBOUND_QUEUE = add(ConfigKey.longRange("verbs.ib.inbound-queue", D.inboundQueue,
      "received packets waiting for the engine; beyond it packets are dropped (drops reason=inbound_full)", 16,
      1 << 24));
  /** DCT contexts. */
  public static final ConfigKey DCT_CONTEXTS = add(ConfigKey.longRange("verbs.ib.dct-contexts", D.dctContexts,
      "responder contexts a DCT keeps, one per active DCI; the least recently used is evicted", 1, 1 << 20));
  /** Fail fast. */
  public static final ConfigKey FAIL_FAST = add(ConfigKey.bool("verbs.ib.fail-fast", true,
      "when the fabric reports a peer down, connections to it fail after one more local ACK timeout "
          + "(RETRY_EXC_ERR) instead of retry_cnt more"));
  /** Modelled-time profile. */
  public static final ConfigKey PROFILE = add(ConfigKey.choice("verbs.ib.profile", IbProfile.DEFAULT.name(),
      "modelled-time parameters of HCA and links (verbs.time=modelled): default (a 200 ns, 12.5 GB/s link) or "
          + "connectx3-qdr (seed 000's ConnectX-3 QDR 4X, PCIe Gen3 x8); a verbs.link.* or verbs.ib.model.* key set "
          + "still wins", IbProfile.DEFAULT.name(), IbProfile.CONNECTX3_QDR.name()));
  /** Modelled per-packet cost. */
  public static final ConfigKey MODEL_PACKET_NS = add(ConfigKey.longRange("verbs.ib.model.packet-ns", 100,
      "modelled HCA processing cost per packet sent or received, ns (verbs.time=modelled)", 0, 1_000_000_000));
  /** Modelled DMA bandwidth. */
  public static final ConfigKey MODEL_DMA_MB_S = add(ConfigKey.longRange("verbs.ib.model.dma-mb-s", 25_000,
      "modelled DMA bandwidth between host memory and HCA, MB/s (verbs.time=modelled)", 1, 1_000_000_000));
  /** Max QPs. */
  public static final ConfigKey MAX_QP = add(ConfigKey.longRange("verbs.ib.max-qp", D.device.maxQp(),
      "device limit max_qp", 1, 1 << 20));
  /** Max WRs per queue. */
  public static final ConfigKey MAX_QP_WR = add(ConfigKey.longRange("verbs.ib.max-qp-wr", D.device.maxQpWr(),
      "device limit max_qp_wr (send and receive queue depth)", 1, 1 << 20));
  /** Max CQ entries. */
  public static final ConfigKey MAX_CQE = add(ConfigKey.longRange("verbs.ib.max-cqe", D.device.maxCqe(),
      "device limit max_cqe (each entry is preallocated)", 1, 1 << 22));
  /** Max inline. */
  public static final ConfigKey MAX_INLINE = add(ConfigKey.longRange("verbs.ib.max-inline-data", D.device.maxInlineData(),
      "device limit on max_inline_data", 0, 1 << 16));
  /** Max rd/atomic. */
  public static final ConfigKey MAX_RD_ATOMIC = add(ConfigKey.longRange("verbs.ib.max-rd-atomic", D.device.maxQpRdAtom(),
      "device limits max_qp_rd_atom and max_qp_init_rd_atom (replay cache entries per QP)", 1, 255));
  /** SRQ flow control (seed 002); docs/srq-flow-control.md. */
  public static final ConfigKey SRQ_FLOW_CONTROL = add(ConfigKey.choice("verbs.ib.srq-flow-control", "rnr",
      "what a responder does when a request finds its SRQ empty: rnr (RNR NAK, IBTA) or stop-resend (seed 002: stop "
          + "the sender, resend request once the device polls new receives; reports SRQ_STOP_RESEND)", "rnr",
      "stop-resend"));
  /** Stop/resend table: nodes. */
  public static final ConfigKey SRQ_TABLE_NODES = add(ConfigKey.longRange("verbs.ib.srq-table-nodes",
      SrqFlowParams.DEFAULT_TABLE_NODES, "stop-resend: source LIDs each SRQ's retransmission table covers", 1, 1 << 16));
  /** Stop/resend table: processes per node. */
  public static final ConfigKey SRQ_TABLE_PROCS = add(ConfigKey.longRange("verbs.ib.srq-table-procs",
      SrqFlowParams.DEFAULT_TABLE_PROCS, "stop-resend: sender QPs per node each SRQ's retransmission table covers", 1,
      1 << 16));
  /** Stop/resend poll interval. */
  public static final ConfigKey SRQ_POLL_NS = add(ConfigKey.longRange("verbs.ib.srq-poll-ns",
      SrqFlowParams.PAPER_POLL_NANOS, "stop-resend: how often the device polls an SRQ with stopped senders, ns "
          + "(t_poll, seed 002: 2.18 us)", 1, 1_000_000_000));
  /** Job namespace. */
  public static final ConfigKey JOB = add(ConfigKey.string("verbs.ib.job", "",
      "namespace prefixed to Job keys and barrier names, so several jobs can share one coordinator"));

  static {
    KEYS.bridge(FabricOptions.ownKeys().stream().map(k -> new ConfigKey(k.name(), k.defaultValue(), k.description(),
        (n, v) -> FabricOptions.from(Map.of(n, v), Map.of()))).toList());
  }

  private IbConfig() {}

  /**
   * @param c a validated configuration
   * @return the modelled-time profile it names ({@link #PROFILE})
   */
  public static IbProfile profile(VerbsConfig c) {
    return IbProfile.of(c.get(PROFILE));
  }

  /**
   * The HCA parameters a configuration asks for.
   *
   * @param c a validated configuration
   * @return the parameters
   */
  public static IbParams params(VerbsConfig c) {
    IdleStrategyKey.Backoff idle = IdleStrategyKey.of(c);
    return IbParams.builder()
        .idleSpins(idle.spins())
        .idleYields(idle.yields())
        .idleMinParkNanos(idle.minParkNanos())
        .idleMaxParkNanos(idle.maxParkNanos())
        .threading(Threading.of(c))
        .portMtu(c.getInt(MTU))
        .icrc(IbParams.IcrcMode.valueOf(c.get(ICRC).toUpperCase(Locale.ROOT)))
        .maxUnackedPsns(c.getInt(MAX_UNACKED_PSNS))
        .ackReqEvery(c.getInt(ACK_REQ_EVERY))
        .ackDelayNanos(c.getLong(ACK_DELAY_NS))
        .requesterBudget(c.getInt(REQUESTER_BUDGET))
        .responderBudget(c.getInt(RESPONDER_BUDGET))
        .receiveBudget(c.getInt(RECEIVE_BUDGET))
        .inboundQueue(c.getInt(INBOUND_QUEUE))
        .dctContexts(c.getInt(DCT_CONTEXTS))
        .failFastOnPeerDown(c.getBoolean(FAIL_FAST))
        .waitInWire(HostShare.current().oversubscribed())
        .modelPacketNanos(c.isSet(MODEL_PACKET_NS) ? c.getLong(MODEL_PACKET_NS) : profile(c).packetNs())
        .modelDmaMbPerSec(c.isSet(MODEL_DMA_MB_S) ? c.getLong(MODEL_DMA_MB_S) : profile(c).dmaMbs())
        .device(IbParams.device(c.getInt(MAX_QP), c.getInt(MAX_QP_WR), c.getInt(MAX_CQE), c.getInt(MAX_INLINE),
            c.getInt(MAX_RD_ATOMIC)))
        .srqFlow(new SrqFlowParams(c.get(SRQ_FLOW_CONTROL).equals("stop-resend") ? SrqFlowParams.Mode.STOP_RESEND
            : SrqFlowParams.Mode.RNR, c.getInt(SRQ_TABLE_NODES), c.getInt(SRQ_TABLE_PROCS), c.getLong(SRQ_POLL_NS)))
        .build();
  }

  /**
   * The settings the fabric reads, resolved from every configuration source (overrides, system
   * properties, environment, file). {@code verbs.fabric.progress} follows {@code verbs.threading}
   * ({@link Threading#fabricProgress()}: {@code caller} when the application's calls run the engine
   * — they then also do the node's socket I/O, which is what makes those calls worth running — and
   * the fabric's own thread otherwise); a setting of its own still wins (see docs/ib-provider.md,
   * "Threading").
   *
   * @param c the configuration
   * @return fabric settings for {@link FabricOptions#from(Map, Map)}
   */
  public static Map<String, String> fabricSettings(VerbsConfig c) {
    Map<String, String> defaults = new LinkedHashMap<>();
    IbProfile profile = profile(c);
    if (profile != IbProfile.DEFAULT) {
      defaults.putAll(profile.linkSettings()); // a verbs.link.* key the user set still wins
    }
    defaults.put(FabricOptions.PROGRESS.name(), Threading.of(c).fabricProgress());
    return KEYS.fabricSettings(c, defaults);
  }
}
