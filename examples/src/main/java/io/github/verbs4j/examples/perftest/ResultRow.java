package io.github.verbs4j.examples.perftest;

/**
 * One measured size of one program run: what goes into the CSV file and the chart. Exactly one of
 * {@link #latency()} and {@link #bandwidth()} is set.
 *
 * @param program the program, e.g. {@code send_lat}
 * @param label the series label (default: the provider, plus the clock when modelled)
 * @param provider {@code ib} or {@code tca}
 * @param fabric {@code local} or {@code netty}
 * @param clock {@code wall} or {@code modelled}
 * @param latency the latency row, or null
 * @param bandwidth the bandwidth row, or null
 */
public record ResultRow(String program, String label, String provider, String fabric, String clock,
    LatencyStats latency, BandwidthStats bandwidth) {

  /** Checks that exactly one kind of row is present. */
  public ResultRow {
    if ((latency == null) == (bandwidth == null)) {
      throw new IllegalArgumentException("a result row has either latency or bandwidth figures, not "
          + (latency == null ? "neither" : "both"));
    }
  }

  /** @return whether this is a latency row */
  public boolean isLatency() {
    return latency != null;
  }

  /** @return the message size */
  public long bytes() {
    return latency != null ? latency.bytes() : bandwidth.bytes();
  }

  /** @return the iterations */
  public int iterations() {
    return latency != null ? latency.iterations() : bandwidth.iterations();
  }
}
