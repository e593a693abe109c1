package io.github.verbs4j.examples.memmodel;

/**
 * The parameters of the paper's scenario (seed 003, §2.3): a job on {@code nodes} nodes with
 * {@code ppn} MPI processes per node (the paper's m), {@code comms} communicators split from
 * COMM_WORLD (c), in which every process talks to every other, and at most {@code gamma} active
 * communication contexts per node (γ).
 *
 * @param nodes nodes in the job, 1 … 2^24
 * @param ppn processes per node (m), 1 … 256
 * @param comms user communicators (c), 0 … 4096
 * @param gamma active contexts per node at most (γ), 1 … 2^20
 */
public record Scale(long nodes, int ppn, int comms, int gamma) {
  /** Most nodes the model accepts (keeps every byte count well inside a {@code long}). */
  public static final long MAX_NODES = 1L << 24;
  /** Table 1's scenario: 2^20 nodes, m = 4, c = 10, γ = 1,024. */
  public static final Scale PAPER = new Scale(1L << 20, 4, 10, 1024);

  /**
   * @throws IllegalArgumentException naming the field when a value is out of range
   */
  public Scale {
    check("nodes", nodes, 1, MAX_NODES);
    check("ppn", ppn, 1, 256);
    check("comms", comms, 0, 4096);
    check("gamma", gamma, 1, 1 << 20);
  }

  private static void check(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + "=" + value + " is outside " + min + " … " + max);
    }
  }

  /**
   * @return n, the processes in the job
   */
  public long processes() {
    return nodes * ppn;
  }

  /**
   * @param otherNodes the node count
   * @return this scale with another node count
   */
  public Scale withNodes(long otherNodes) {
    return new Scale(otherNodes, ppn, comms, gamma);
  }
}
