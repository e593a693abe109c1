package io.github.verbs4j.examples.mp;

import picocli.CommandLine.Option;

/**
 * The connection-strategy options of programs on the message-passing layer ({@code --connections},
 * {@code --gamma}), as a picocli mixin.
 */
public final class ConnectionOptions {
  @Option(names = "--connections", paramLabel = "STRATEGY", defaultValue = "BASELINE",
      description = "When peers get their RC QP and eager ring: ${COMPLETION-CANDIDATES} (baseline: every peer at "
          + "start; on_demand: on first use, at most --gamma per rank; default: ${DEFAULT-VALUE}).")
  MpConfig.Strategy strategy = MpConfig.Strategy.BASELINE;

  @Option(names = "--gamma", paramLabel = "N", defaultValue = "" + MpConfig.DEFAULT_GAMMA,
      description = "With --connections on_demand: the most links a rank opens (default: ${DEFAULT-VALUE}).")
  int gamma = MpConfig.DEFAULT_GAMMA;

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
    return base.withStrategy(strategy).withGamma(gamma);
  }
}
