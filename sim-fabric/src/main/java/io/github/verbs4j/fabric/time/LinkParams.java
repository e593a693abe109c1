package io.github.verbs4j.fabric.time;

import io.github.verbs4j.fabric.FabricOptions;

/**
 * The modelled properties of one directed link.
 *
 * @param latencyNs time for a frame's head to cross the link, ns
 * @param bandwidthMbs bandwidth in MB/s (10^6 bytes/s, i.e. bytes per microsecond)
 * @param mtu largest payload, bytes
 * @param forwardNs cost to forward a frame at the node at the far end of the link when it is not
 *     the destination (a switch, an intermediate PEACH2 board), ns
 */
public record LinkParams(long latencyNs, long bandwidthMbs, int mtu, long forwardNs) {
  /** Checks the values. */
  public LinkParams {
    if (latencyNs < 0 || bandwidthMbs <= 0 || mtu <= 0 || forwardNs < 0) {
      throw new IllegalArgumentException("link latencyNs=" + latencyNs + ", bandwidthMbs=" + bandwidthMbs + ", mtu="
          + mtu + ", forwardNs=" + forwardNs + ": latency and forward must be >= 0, bandwidth and mtu > 0");
    }
  }

  /**
   * @param o options
   * @return the {@code verbs.link.*} values
   */
  public static LinkParams from(FabricOptions o) {
    return new LinkParams(o.getLong(FabricOptions.LINK_LATENCY_NS), o.getLong(FabricOptions.LINK_BANDWIDTH), o.mtu(),
        o.getLong(FabricOptions.LINK_FORWARD_NS));
  }

  /**
   * Time to push {@code bytes} onto this link: {@code ceil(bytes * 1000 / bandwidthMbs)} ns.
   *
   * @param bytes frame size on the wire
   * @return nanoseconds
   */
  public long serializationNanos(long bytes) {
    return (bytes * 1000 + bandwidthMbs - 1) / bandwidthMbs;
  }
}
