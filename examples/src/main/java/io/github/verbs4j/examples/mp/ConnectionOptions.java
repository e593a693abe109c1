package io.github.verbs4j.examples.mp;

import picocli.CommandLine.Option;

/**
 * The connection-strategy options of programs on the message-passing layer ({@code --connections},
 * {@code --gamma}), as a picocli mixin.
 */
public final class ConnectionOptions {
  @Option(names = "--connections", paramLabel = "STRATEGY", defaultValue = "BASELINE",
      description = "When peers get their RC QP and eager ring: ${COMPLETION-CANDIDATES} (baseline: every peer at "
          + "start; on_demand: on first use, at most --gamma per rank; dc: two DC initiators and a DC target per "
          + "rank serve every peer, receives in a shared pool; hybrid: dc, and a source that sent --switch-threshold "
          + "messages moves to an RC link with its own ring, at most --rc-links of them; shared: the hybrid, with the --ppn "
          + "ranks of a node sharing one file of rings in shared memory and the node's --rc-links; default: "
          + "${DEFAULT-VALUE}).")
  MpConfig.Strategy strategy = MpConfig.Strategy.BASELINE;

  @Option(names = "--gamma", paramLabel = "N", defaultValue = "" + MpConfig.DEFAULT_GAMMA,
      description = "With --connections on_demand: the most links a rank opens (default: ${DEFAULT-VALUE}).")
  int gamma = MpConfig.DEFAULT_GAMMA;

  @Option(names = "--shared-receive", paramLabel = "BUFFERS", defaultValue = "0",
      description = "Receive buffers in one SRQ shared by every link instead of receive slots per link; 0 = off "
          + "(seed 003: 4096; default: ${DEFAULT-VALUE}).")
  int sharedReceive;

  @Option(names = "--dc-initiators", paramLabel = "N", defaultValue = "" + MpConfig.DEFAULT_DC_INITIATORS,
      description = "With --connections dc: DC initiators per rank; peer r uses initiator r mod N (seed 003: 2; "
          + "default: ${DEFAULT-VALUE}).")
  int dcInitiators = MpConfig.DEFAULT_DC_INITIATORS;

  @Option(names = "--switch-threshold", paramLabel = "MESSAGES", defaultValue = "" + MpConfig.Hybrid.DEFAULT_THRESHOLD,
      description = "With --connections hybrid: messages from one source within the traffic history that move it to "
          + "RC (an assumption; seed 003 gives none; default: ${DEFAULT-VALUE}).")
  int switchThreshold = MpConfig.Hybrid.DEFAULT_THRESHOLD;

  @Option(names = "--rc-links", paramLabel = "N", defaultValue = "" + MpConfig.Hybrid.RC_QPS_PER_NODE,
      description = "With --connections hybrid: the most RC links a rank holds (seed 003: 128 RC QPs per node, so "
          + "128 / processes per node); with shared: the most a node's ranks hold together (default: ${DEFAULT-VALUE}).")
  int rcLinks = MpConfig.Hybrid.RC_QPS_PER_NODE;

  @Option(names = "--ppn", paramLabel = "RANKS", defaultValue = "" + MpConfig.Hybrid.DEFAULT_PPN,
      description = "With --connections shared: consecutive ranks that form a node, on one host, and share its "
          + "rings and RC links (seed 003: 4; default: ${DEFAULT-VALUE}).")
  int ppn = MpConfig.Hybrid.DEFAULT_PPN;

  /** @return the chosen strategy */
  public MpConfig.Strategy strategy() {
    return strategy;
  }

  /** @return the chosen γ */
  public int gamma() {
    return gamma;
  }

  /**
   * @param base settings
   * @return them with the chosen strategy and γ
   * @throws IllegalArgumentException naming {@code --gamma} if it is out of range
   */
  public MpConfig apply(MpConfig base) {
    if (gamma < 1 || gamma > 65535) {
      throw new IllegalArgumentException("--gamma=" + gamma + " must be between 1 and 65535");
    }
    if (sharedReceive != 0 && (sharedReceive < 8 || sharedReceive > 1 << 20)) {
      throw new IllegalArgumentException("--shared-receive=" + sharedReceive + " must be 0 or between 8 and 1048576");
    }
    if (dcInitiators < 1 || dcInitiators > 64) {
      throw new IllegalArgumentException("--dc-initiators=" + dcInitiators + " must be between 1 and 64");
    }
    if (switchThreshold < 1) {
      throw new IllegalArgumentException("--switch-threshold=" + switchThreshold + " must be at least 1");
    }
    if (rcLinks < 0 || rcLinks > 65535) {
      throw new IllegalArgumentException("--rc-links=" + rcLinks + " must be between 0 and 65535");
    }
    if (ppn < 1 || ppn > 1024) {
      throw new IllegalArgumentException("--ppn=" + ppn + " must be between 1 and 1024");
    }
    return base.withStrategy(strategy).withGamma(gamma).withSharedReceive(sharedReceive)
        .withDcInitiators(dcInitiators)
        .withHybrid(new MpConfig.Hybrid(switchThreshold, base.hybrid().interval(), rcLinks, ppn));
  }
}
