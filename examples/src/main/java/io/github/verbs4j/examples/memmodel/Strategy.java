package io.github.verbs4j.examples.memmodel;

import java.util.EnumSet;
import java.util.Set;

/**
 * The connection strategies the model compares. Each adds one of the paper's techniques to the one
 * before it, in the order of its §3, so {@link #SHARED} is the paper's "after" column and the gaps
 * between curves show what each technique saves or costs.
 */
public enum Strategy {
  /** An RC QP and a 16 × 4 KB eager ring per remote peer, per process, created at start (§2.3). */
  BASELINE("baseline", EnumSet.noneOf(Technique.class)),
  /** Contexts (VC, BoC, RC QP, ring) created on demand, at most γ per node (§3.2). */
  CAPPED("capped", EnumSet.of(Technique.ON_DEMAND)),
  /** 2 data DC QPs per node serve every peer through their shared receive WRs (§3.3, §3.4). */
  DC("dc", EnumSet.of(Technique.ON_DEMAND, Technique.DC_TRANSPORT)),
  /**
   * Per source rank, DC channel, RC RDMA or DC RDMA by observed traffic; ≤128 RC QPs per node and
   * 1,024 rings per process (§3.3, §3.5).
   */
  HYBRID("hybrid", EnumSet.of(Technique.ON_DEMAND, Technique.DC_TRANSPORT, Technique.SWITCHING)),
  /**
   * The hybrid with the 1,024 rings shared by a node's processes, rank tables as hashed lists or
   * node-shared tables, the KVS distributed by hash (§3.1, §3.4, §3.6, §3.7).
   */
  SHARED("shared", EnumSet.allOf(Technique.class));

  /** The techniques of the paper's §3 that the strategies combine. */
  public enum Technique {
    /** §3.2: contexts on demand, at most γ active per node (the furthest-future one is evicted). */
    ON_DEMAND,
    /** §3.3: DC transport: 2 data DC QPs per node and a credit DC QP. */
    DC_TRANSPORT,
    /** §3.3, §3.5: per-source switching among DC channel, RC RDMA and DC RDMA. */
    SWITCHING,
    /** §3.1, §3.4, §3.6, §3.7: sharing among a node's processes, hashed tables, KVS by hash. */
    NODE_SHARING
  }

  private final String label;
  private final Set<Technique> techniques;

  Strategy(String label, Set<Technique> techniques) {
    this.label = label;
    this.techniques = techniques;
  }

  /**
   * @return a short lower-case name
   */
  public String label() {
    return label;
  }

  /**
   * @param t a technique
   * @return whether this strategy uses it
   */
  public boolean uses(Technique t) {
    return techniques.contains(t);
  }

  @Override
  public String toString() {
    return label;
  }
}
