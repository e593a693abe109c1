package io.github.verbs4j.ib;

import io.github.verbs4j.fabric.FabricOptions;
import java.util.Locale;
import java.util.Map;

/**
 * A named set of modelled-time parameters for the simulated HCA and its fabric, chosen by {@code
 * verbs.ib.profile}: the link (latency, bandwidth, switch forwarding) and the HCA (cost per packet
 * and DMA bandwidth to host memory over PCIe). A profile supplies defaults: a {@code verbs.link.*}
 * or {@code verbs.ib.model.*} key that is set still wins. Each value's source is in
 * docs/modelled-time.md.
 *
 * @param name the value of {@code verbs.ib.profile}
 * @param linkLatencyNs latency of one link (cable and PHY), ns
 * @param linkBandwidthMbs data bandwidth of one link, MB/s (10^6 bytes/s)
 * @param switchForwardNs forwarding cost of the switch, ns
 * @param packetNs HCA processing cost per packet sent or received, ns
 * @param dmaMbs DMA bandwidth between host memory and the HCA, MB/s
 */
public record IbProfile(String name, long linkLatencyNs, long linkBandwidthMbs, long switchForwardNs, long packetNs,
    long dmaMbs) {
  /** Today's generic HCA: the fabric's and the engine's defaults (a 200 ns, 12.5 GB/s link). */
  public static final IbProfile DEFAULT = new IbProfile("default", 200, 12_500, 100, 100, 25_000);

  /**
   * The comparison HCA of seed 000 (§5): ConnectX-3 QDR 4X on PCIe Gen3 x8, through one switch. QDR
   * 4X signals at 40 Gb/s, 8b/10b coded: 32 Gb/s = 4,000 MB/s of data; PCIe Gen3 x8 moves 7,877
   * MB/s raw (8 GT/s, 128b/130b), 7,150 MB/s of 256-byte payloads after 26 bytes of TLP overhead;
   * switch 170 ns (SwitchX-2 port to port); 100 ns per cable and PHY; the per-packet cost (180 ns)
   * is fitted so that an atomic round trip takes ~1.5 µs (seed 000).
   */
  public static final IbProfile CONNECTX3_QDR = new IbProfile("connectx3-qdr", 100, 4_000, 170, 180, 7_150);

  /** @return the profiles, default first */
  public static IbProfile[] values() {
    return new IbProfile[] {DEFAULT, CONNECTX3_QDR};
  }

  /**
   * @param name a profile name (case-insensitive)
   * @return the profile
   * @throws IllegalArgumentException naming the value and the choices if there is none
   */
  public static IbProfile of(String name) {
    for (IbProfile p : values()) {
      if (p.name.equals(name.toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    throw new IllegalArgumentException("verbs.ib.profile=" + name + " is not one of default, connectx3-qdr");
  }

  /** @return the fabric link settings this profile supplies ({@code verbs.link.*}) */
  public Map<String, String> linkSettings() {
    return Map.of(FabricOptions.LINK_LATENCY_NS.name(), Long.toString(linkLatencyNs),
        FabricOptions.LINK_BANDWIDTH.name(), Long.toString(linkBandwidthMbs),
        FabricOptions.LINK_FORWARD_NS.name(), Long.toString(switchForwardNs));
  }
}
