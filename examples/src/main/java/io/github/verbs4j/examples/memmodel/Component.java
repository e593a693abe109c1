package io.github.verbs4j.examples.memmodel;

/**
 * The functions of the communication library that the paper's Table 1 splits memory into (seed 003,
 * figure 1 and §2.3), in the table's order.
 */
public enum Component {
  /** Eager rings, receive buffers of channel (send/receive) communication, registration cache. */
  BUFFERS("communication buffer management"),
  /** The HCA's contexts: QPs with their queues and CQs, their addresses and lookup tables. */
  LOW_LEVEL_CONTEXTS("low-level communication contexts"),
  /** Per-peer protocol state: MPICH VCs and LLC bundles of channels. */
  HIGH_LEVEL_CONTEXTS("high-level communication contexts"),
  /** Traffic history and method selection of the hybrid (§3.5); none in the baseline. */
  SWITCHING("dynamic switching of method and buffers"),
  /** Communicators and their rank tables. */
  COMMUNICATORS("communicator (participant set) management"),
  /** Intra-node communication through shared memory. */
  SHARED_MEMORY("shared-memory communication"),
  /** The process manager and its key-value store. */
  PROCESS_MANAGEMENT("process management"),
  /** What no function claims (allocation logs, sections). */
  OTHER("other");

  private final String label;

  Component(String label) {
    this.label = label;
  }

  /**
   * @return the row's name in Table 1 (in English)
   */
  public String label() {
    return label;
  }
}
