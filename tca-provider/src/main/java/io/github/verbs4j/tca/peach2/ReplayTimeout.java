package io.github.verbs4j.tca.peach2;

/**
 * A PCIe link's replay timeout: fixed on a modelled clock; on the wall clock it follows the round
 * trips (RFC 6298's estimator over frames sent once, Karn) and doubles on each expiry, always
 * within {@code [min, max]}.
 */
final class ReplayTimeout {
  private final long min;
  private final long max;
  private long current;
  private long srtt;
  private long rttvar;

  ReplayTimeout(long min, long max) {
    this.min = min;
    this.max = Math.max(min, max);
    this.current = min;
  }

  /** @return the timeout now, ns */
  long current() {
    return current;
  }

  /** @return the least timeout, ns */
  long min() {
    return min;
  }

  /** @return the greatest timeout, ns */
  long max() {
    return max;
  }

  /** A round trip measured on a frame sent once. */
  void sample(long rtt) {
    if (srtt == 0) {
      srtt = Math.max(1, rtt);
      rttvar = rtt / 2;
    } else {
      rttvar = (3 * rttvar + Math.abs(srtt - rtt)) / 4;
      srtt = (7 * srtt + rtt) / 8;
    }
    current = Math.min(max, Math.max(min, srtt + 4 * rttvar));
  }

  /** The timer expired without an Ack: wait twice as long next time. */
  void backOff() {
    current = Math.min(max, current * 2);
  }
}
