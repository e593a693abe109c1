package io.github.verbs4j.examples.perftest;

/** The operation a perftest program measures, with perftest's name for it ({@code testsStr}). */
public enum Verb {
  /** SEND/RECV. */
  SEND("Send"),
  /** RDMA WRITE. */
  WRITE("RDMA_Write"),
  /** RDMA READ. */
  READ("RDMA_Read"),
  /** FETCH_AND_ADD or CMP_AND_SWAP. */
  ATOMIC("Atomic");

  private final String title;

  Verb(String title) {
    this.title = title;
  }

  /** @return perftest's name, used in the title line */
  public String title() {
    return title;
  }

  /**
   * perftest's {@code rtt_factor}: SEND and WRITE latency tests are ping-pongs and report half a
   * round trip; READ and atomics report the whole operation.
   *
   * @return 2 or 1
   */
  public int rttFactor() {
    return this == READ || this == ATOMIC ? 1 : 2;
  }
}
