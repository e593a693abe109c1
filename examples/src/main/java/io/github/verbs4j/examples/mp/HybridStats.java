package io.github.verbs4j.examples.mp;

/**
 * A rank's links under {@link MpConfig.Strategy#HYBRID}.
 *
 * @param dcPeers peers it talks to on the DC channel
 * @param rcPeers the ranks it has an RC link with (or is switching to one), ascending
 * @param rcCap the most RC links it may hold
 * @param switches switches to RC completed (asked by either side)
 * @param refusals switches this rank asked for that the peer refused
 * @param ringsGiven sources on DC that write into a ring of this rank (RDMA over DC)
 * @param ringsUsed peers on DC whose ring this rank writes into
 * @param movesBack peers that went back from RC to the DC channel (asked by either side)
 */
public record HybridStats(int dcPeers, int[] rcPeers, int rcCap, long switches, long refusals, int ringsGiven,
    int ringsUsed, long movesBack) {
  /** @return as link counts: RC links open, switches completed, moves back as closings */
  LinkStats asLinkStats() {
    return new LinkStats(rcPeers.length, rcPeers.length, switches, movesBack, 0, 0, rcPeers.length);
  }

  /** @return RC links held */
  public int rcLinks() {
    return rcPeers.length;
  }

  /**
   * @param rank a peer
   * @return whether this rank has an RC link with it
   */
  public boolean onRc(int rank) {
    for (int r : rcPeers) {
      if (r == rank) {
        return true;
      }
    }
    return false;
  }
}
